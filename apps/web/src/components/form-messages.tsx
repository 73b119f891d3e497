import { ErrorAlert, SuccessAlert } from './status-alerts';

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
      {error ? <ErrorAlert onDismiss={onDismissError}>{error}</ErrorAlert> : null}
      {success ? <SuccessAlert>{success}</SuccessAlert> : null}
    </>
  );
}
