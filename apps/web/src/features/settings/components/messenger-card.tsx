import type { MantineColor } from '@mantine/core';
import type { Settings } from '@perch/shared';
import { ChannelCard, type ChannelCardProps } from './channel-card';
import { ChannelNotices } from './channel-notices';
import { ConnectedChannel } from './connected-channel';
import { channelState } from './connection-badge';

export interface MessengerCardProps extends Omit<
  ChannelCardProps,
  'color' | 'formColor' | 'state' | 'showForm' | 'notices' | 'connectedView'
> {
  color: MantineColor;
  /** What the server offers for this messenger, and why delivery stopped. */
  status: Pick<Settings['discord'], 'available' | 'stoppedReason' | 'hint'>;
  /** Shown when the server lacks the bot and gives no hint of its own. */
  unavailableText: string;
  /** 'Chat ID', 'User ID'. */
  valueLabel: string;
  /** The stored id, when there is one. */
  value: string | null;
}

/**
 * A Telegram or Discord card: the badge, notices and connected view follow from what the server
 * offers and whether an id is stored; the form opens while nothing is stored or on Change.
 */
export function MessengerCard({
  color,
  status,
  unavailableText,
  valueLabel,
  value,
  ...card
}: MessengerCardProps) {
  const { available, stoppedReason } = status;
  return (
    <ChannelCard
      {...card}
      color={color}
      formColor={color}
      state={channelState({ available, stoppedReason, connected: card.connected })}
      showForm={available && (!card.connected || card.channel.editor.editing)}
      notices={
        <ChannelNotices
          stoppedReason={stoppedReason}
          connected={card.connected}
          available={available}
          unavailableHint={status.hint ?? unavailableText}
        />
      }
      connectedView={
        <ConnectedChannel
          label={valueLabel}
          value={value ?? ''}
          color={color}
          available={available}
          channel={card.channel}
        />
      }
    />
  );
}
