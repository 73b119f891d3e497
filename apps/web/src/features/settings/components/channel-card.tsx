import { Stack } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { ChannelId } from '../hooks/use-channel-id';
import { ConnectionBadge, type ConnectionState } from './connection-badge';
import { IdForm, type IdFormProps } from './id-form';
import { SettingsCard } from './settings-card';

export interface ChannelCardProps {
  title: string;
  icon: Icon;
  /** The accent of the icon. */
  color: string;
  description: string;
  testId: string;
  /** The badge beside the title. */
  state: ConnectionState;
  /** The card's stored value and what it does with it (useChannelId). */
  channel: ChannelId;
  /** A value is stored. */
  connected: boolean;
  /** The form is open; otherwise a connected card shows its value. */
  showForm: boolean;
  /** The form's field: label, help, placeholder. */
  field: IdFormProps['field'];
  /** The accent of the form's buttons; the theme's by default. */
  formColor?: string;
  /** At the top: why delivery stopped, or what the server lacks. */
  notices?: ReactNode;
  /** The stored value with its actions (Change, Test, Disconnect). */
  connectedView: ReactNode;
  /** In place of the form while nothing is stored and the form is closed. */
  connectOffer?: ReactNode;
  /** Under the form (another way to connect). */
  afterForm?: ReactNode;
  /** At the bottom: the card's own message line. */
  footer?: ReactNode;
  /** The form's Cancel, offered once a value is stored; it closes the form by default. */
  onCancel?: () => void;
}

/**
 * The shell of the Telegram, Discord and X account cards: title, connection badge, notices, then
 * the stored value, or the form that stores it (Save, Test, Cancel), or a way to connect.
 */
export function ChannelCard({
  title,
  icon,
  color,
  description,
  testId,
  state,
  channel,
  connected,
  showForm,
  field,
  formColor,
  notices,
  connectedView,
  connectOffer,
  afterForm,
  footer,
  onCancel = channel.editor.cancel,
}: ChannelCardProps) {
  return (
    <SettingsCard
      title={title}
      icon={icon}
      color={color}
      description={description}
      status={<ConnectionBadge state={state} />}
      testId={testId}
    >
      <Stack gap="md">
        {notices}
        {connected && !showForm ? connectedView : null}
        {!connected && !showForm ? connectOffer : null}
        {showForm ? (
          <>
            <IdForm
              editor={channel.editor}
              onSubmit={channel.handleSave}
              field={field}
              color={formColor}
              saving={channel.saving}
              onTest={channel.handleFormTest}
              testing={channel.testing}
              onCancel={connected ? onCancel : undefined}
            />
            {afterForm}
          </>
        ) : null}
        {footer}
      </Stack>
    </SettingsCard>
  );
}
