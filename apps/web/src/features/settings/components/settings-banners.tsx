import { Alert } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';

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
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertCircle size={18} />}
          role="alert"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={onDismissError}
          data-testid="settings-error"
        >
          {error}
        </Alert>
      ) : null}
      {success ? (
        <Alert
          color="green"
          variant="light"
          icon={<IconCircleCheck size={18} />}
          role="status"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={onDismissSuccess}
          data-testid="settings-success"
        >
          {success}
        </Alert>
      ) : null}
    </>
  );
}
