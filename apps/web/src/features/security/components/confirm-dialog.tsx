import { Button, Group, Modal, Text } from '@mantine/core';
import { useState } from 'react';
import { SECURITY_TEXTS } from '../utils/security-texts';

export interface ConfirmQuestion {
  title: string;
  message: string;
  /** The red button's label. */
  confirmLabel: string;
}

export interface ConfirmDialogProps {
  /** What to ask; null keeps the dialog closed. */
  question: ConfirmQuestion | null;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * Asks before signing sessions out; Cancel (focused first) or Escape leaves everything as it was.
 * The last question stays in place while the dialog fades out.
 */
export function ConfirmDialog({ question, onConfirm, onCancel }: ConfirmDialogProps) {
  const [shown, setShown] = useState(question);
  if (question !== null && question !== shown) setShown(question);
  return (
    <Modal opened={question !== null} onClose={onCancel} title={shown?.title} centered>
      <Text size="sm" mb="lg" data-testid="confirm-message">
        {shown?.message}
      </Text>
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onCancel} data-autofocus>
          {SECURITY_TEXTS.cancel}
        </Button>
        <Button color="red" onClick={onConfirm}>
          {shown?.confirmLabel}
        </Button>
      </Group>
    </Modal>
  );
}
