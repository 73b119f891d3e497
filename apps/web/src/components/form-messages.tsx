import { Alert } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';

export interface FormMessagesProps {
  /** Shown in a dismissible red banner. */
  error: string | null;
  onDismissError: () => void;
  /** Shown in a green banner. */
  success: string | null;
}

/** The error and success banners above a form. */
export function FormMessages({ error, onDismissError, success }: FormMessagesProps) {
  return (
    <>
      {error ? (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertCircle size={18} />}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={onDismissError}
        >
          {error}
        </Alert>
      ) : null}
      {success ? (
        <Alert color="green" variant="light" icon={<IconCircleCheck size={18} />}>
          {success}
        </Alert>
      ) : null}
    </>
  );
}
