import { Card } from '@mantine/core';
import {
  isHandleCollecting,
  isTemporaryHandleId,
  type ForwardingSettings,
  type Handle,
} from '@perch/shared';
import { useTimedMessage } from '@/lib/use-timed-message';
import { useLiveHandle } from '../hooks/use-live-handle';
import { COMPLETED_MESSAGE_MS, HANDLE_TEXTS } from '../utils/handle-messages';
import { ForwardingNotes, type SwitchRefusal } from './forwarding-notes';
import { HandleRowFilter } from './handle-row-filter';
import { HandleRowHeader } from './handle-row-header';
import { HandleRowCompleted, HandleRowProgress, HandleRowStatus } from './handle-row-status';
import type { NotificationSwitchesProps } from './notification-switches';

export interface HandleRowProps {
  handle: Handle;
  selected: boolean;
  /** Another change to the list is running. */
  busy: boolean;
  onSelect: (handle: string) => void;
  onShowTweets: (handle: string) => void;
  onRemove: (handle: Handle) => void;
  /**
   * Say '@x data collection completed!' in the row, where its progress was, when its collection
   * completes on screen (false where another part of the page says so).
   */
  announceCompletion: boolean;
  notifications: Pick<NotificationSwitchesProps, 'isBusy' | 'onToggle'>;
  onEditFilter: (handle: Handle) => void;
  forwarding: ForwardingSettings | undefined;
  /** The last refused switch of this handle. */
  refusal: SwitchRefusal | null;
  onDismissRefusal: (id: number) => void;
  /** What the last switch of this handle that succeeded did, for a few seconds. */
  success?: string | null;
}

/**
 * One handle of the panel's list: name and counts, its actions, the collection badge and the
 * switches, why a switch will not deliver, the filter, and the progress while it is collected
 * (then, for a few seconds, that its collection completed).
 */
export function HandleRow({
  handle,
  selected,
  busy,
  onSelect,
  onShowTweets,
  onRemove,
  announceCompletion,
  onEditFilter,
  notifications,
  forwarding,
  refusal,
  onDismissRefusal,
  success = null,
}: HandleRowProps) {
  const completion = useTimedMessage(COMPLETED_MESSAGE_MS);
  const live = useLiveHandle(handle, (name) => {
    if (announceCompletion)
      completion.show({ kind: 'success', text: HANDLE_TEXTS.completed(name) });
  });
  const temporary = isTemporaryHandleId(handle.id);
  return (
    <Card
      component="li"
      withBorder
      radius="md"
      p="sm"
      data-testid="handle-row"
      aria-label={`@${handle.handle}`}
      style={{
        borderColor: selected ? 'var(--mantine-primary-color-filled)' : undefined,
      }}
    >
      <HandleRowHeader
        handle={handle}
        live={live}
        selected={selected}
        temporary={temporary}
        busy={busy}
        onSelect={onSelect}
        onShowTweets={onShowTweets}
        onRemove={onRemove}
      />
      <HandleRowStatus
        handle={handle}
        live={live}
        temporary={temporary}
        notifications={notifications}
        forwarding={forwarding}
      />
      <ForwardingNotes
        handle={handle}
        settings={forwarding}
        refusal={refusal}
        onDismissRefusal={() => onDismissRefusal(handle.id)}
        success={success}
      />
      <HandleRowFilter handle={handle} temporary={temporary} onEditFilter={onEditFilter} />
      {/* The completion takes the progress bar's place: nothing above the list moves. */}
      {isHandleCollecting(live) ? (
        <HandleRowProgress handle={handle} live={live} />
      ) : completion.message ? (
        <HandleRowCompleted text={completion.message.text} />
      ) : null}
    </Card>
  );
}
