import { Button, Group, Modal, Text } from '@mantine/core';
import { useState } from 'react';
import { ADMIN_TEXTS } from '../utils/admin-texts';

export interface ConfirmDialogProps {
  /** The question, e.g. ADMIN_MESSAGES.confirmGlobalDelete(...); null keeps the dialog closed. */
  message: string | null;
  title: string;
  confirmLabel: string;
  /** Red for destructive actions. */
  confirmColor?: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * Asks before an admin action; Cancel (focused first) or Escape leaves everything as it was.
 * The last question stays in place while the dialog fades out.
 */
export function ConfirmDialog({
  message,
  title,
  confirmLabel,
  confirmColor = 'red',
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const [shown, setShown] = useState(message);
  if (message !== null && message !== shown) setShown(message);
  return (
    <Modal opened={message !== null} onClose={onCancel} title={title} centered>
      <Text size="sm" mb="lg" data-testid="confirm-message">
        {shown}
      </Text>
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onCancel} data-autofocus>
          {ADMIN_TEXTS.cancel}
        </Button>
        <Button color={confirmColor} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </Group>
    </Modal>
  );
}
