import { ErrorAlert, SuccessAlert } from '@/components/status-alerts';

export interface SettingsBannersProps {
  error: string | null;
  success: string | null;
  onDismissError: () => void;
  onDismissSuccess: () => void;
}

/** The page's red and green banners; both can be dismissed. */
export function SettingsBanners({
  error,
  success,
  onDismissError,
  onDismissSuccess,
}: SettingsBannersProps) {
  if (!error && !success) return null;
  return (
    <>
      {error ? (
        <ErrorAlert role="alert" onDismiss={onDismissError} testId="settings-error">
          {error}
        </ErrorAlert>
      ) : null}
      {success ? (
        <SuccessAlert role="status" onDismiss={onDismissSuccess} testId="settings-success">
          {success}
        </SuccessAlert>
      ) : null}
    </>
  );
}
