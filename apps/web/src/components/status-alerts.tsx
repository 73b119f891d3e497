import { Alert } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import type { ReactNode } from 'react';

export interface StatusAlertProps {
  children: ReactNode;
  /** Given, the alert has a Dismiss button that calls it. */
  onDismiss?: () => void;
  /** `alert` or `status` when a screen reader should announce it. */
  role?: 'alert' | 'status';
  testId?: string;
}

function StatusAlert({
  color,
  icon,
  children,
  onDismiss,
  role,
  testId,
}: StatusAlertProps & { color: string; icon: ReactNode }) {
  return (
    <Alert
      color={color}
      variant="light"
      icon={icon}
      role={role}
      withCloseButton={onDismiss !== undefined}
      closeButtonLabel={onDismiss ? 'Dismiss' : undefined}
      onClose={onDismiss}
      data-testid={testId}
    >
      {children}
    </Alert>
  );
}

/** A red banner for a failure. */
export function ErrorAlert(props: StatusAlertProps) {
  return <StatusAlert color="red" icon={<IconAlertCircle size={18} />} {...props} />;
}

/** A green banner for a success. */
export function SuccessAlert(props: StatusAlertProps) {
  return <StatusAlert color="green" icon={<IconCircleCheck size={18} />} {...props} />;
}
