import { Alert } from './plain/alert';

export interface FormMessagesProps {
  /** Shown in a dismissible red banner. */
  error: string | null;
  onDismissError: () => void;
  /** Shown in a green banner. */
  success: string | null;
}

/** The error and success banners above a sign-in or registration form. */
export function FormMessages({ error, onDismissError, success }: FormMessagesProps) {
  return (
    <>
      {error ? (
        <Alert kind="error" onDismiss={onDismissError}>
          {error}
        </Alert>
      ) : null}
      {success ? <Alert kind="success">{success}</Alert> : null}
    </>
  );
}
