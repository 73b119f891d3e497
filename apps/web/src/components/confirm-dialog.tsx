import { Button, Group, Modal, Text } from '@mantine/core';
import { useState } from 'react';
import { COMMON_TEXTS } from './common-texts';

/** What a confirm dialog asks. */
export interface ConfirmQuestion {
  title: string;
  /** The question, e.g. ADMIN_MESSAGES.confirmGlobalDelete(...). */
  message: string;
  /** The confirm button's label. */
  confirmLabel: string;
}

export interface ConfirmDialogProps {
  /** What to ask; null keeps the dialog closed. */
  question: ConfirmQuestion | null;
  /** Red for destructive actions. */
  confirmColor?: string;
  onConfirm: () => void;
  onCancel: () => void;
}

function sameQuestion(a: ConfirmQuestion, b: ConfirmQuestion | null): boolean {
  return (
    b !== null &&
    a.title === b.title &&
    a.message === b.message &&
    a.confirmLabel === b.confirmLabel
  );
}

/**
 * Asks before an action; Cancel (focused first) or Escape leaves everything as it was. The last
 * question stays in place while the dialog fades out.
 */
export function ConfirmDialog({
  question,
  confirmColor = 'red',
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const [shown, setShown] = useState(question);
  if (question !== null && !sameQuestion(question, shown)) setShown(question);
  return (
    <Modal opened={question !== null} onClose={onCancel} title={shown?.title} centered>
      <Text size="sm" mb="lg" data-testid="confirm-message">
        {shown?.message}
      </Text>
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onCancel} data-autofocus>
          {COMMON_TEXTS.cancel}
        </Button>
        <Button color={confirmColor} onClick={onConfirm}>
          {shown?.confirmLabel}
        </Button>
      </Group>
    </Modal>
  );
}
