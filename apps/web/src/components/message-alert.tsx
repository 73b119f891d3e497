import { Alert, Text, type MantineSpacing } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';

/** The outcome of an action: what happened, and for a failure why (in the server's words). */
export interface AlertMessage {
  kind: 'success' | 'error';
  text: string;
  /** A second, smaller line. */
  details?: string;
}

export interface MessageAlertProps {
  message: AlertMessage | null;
  onDismiss: () => void;
  /** The test id, or one per kind, e.g. `(kind) => \`admin-${kind}\``. */
  testId?: string | ((kind: AlertMessage['kind']) => string);
  mb?: MantineSpacing;
}

/** The green or red line of an action's outcome, with a Dismiss button; nothing without one. */
export function MessageAlert({ message, onDismiss, testId, mb }: MessageAlertProps) {
  if (!message) return null;
  const isError = message.kind === 'error';
  return (
    <Alert
      color={isError ? 'red' : 'green'}
      variant="light"
      icon={isError ? <IconAlertCircle size={18} /> : <IconCircleCheck size={18} />}
      role={isError ? 'alert' : 'status'}
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={onDismiss}
      data-testid={typeof testId === 'function' ? testId(message.kind) : testId}
      mb={mb}
    >
      <Text size="sm" fw={500}>
        {message.text}
      </Text>
      {message.details ? (
        <Text size="xs" c="dimmed" mt={2}>
          {message.details}
        </Text>
      ) : null}
    </Alert>
  );
}
