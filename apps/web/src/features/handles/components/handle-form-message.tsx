import { Alert } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck, IconInfoCircle } from '@tabler/icons-react';
import type { TimedMessage } from '@/lib/use-timed-message';

const LOOK = {
  success: { color: 'green', icon: IconCircleCheck },
  error: { color: 'red', icon: IconAlertCircle },
  info: { color: 'blue', icon: IconInfoCircle },
} as const;

export interface HandleFormMessageProps {
  message: TimedMessage | null;
  onClose?: () => void;
  compact?: boolean;
}

/** The inline status message of the handle forms. */
export function HandleFormMessage({ message, onClose, compact = false }: HandleFormMessageProps) {
  if (!message) return null;
  const look = LOOK[message.kind];
  return (
    <Alert
      color={look.color}
      variant="light"
      icon={compact ? undefined : <look.icon size={18} />}
      role={message.kind === 'error' ? 'alert' : 'status'}
      withCloseButton={Boolean(onClose)}
      closeButtonLabel="Dismiss"
      onClose={onClose}
      p={compact ? 'xs' : undefined}
      data-testid="handle-message"
    >
      {message.text}
    </Alert>
  );
}
