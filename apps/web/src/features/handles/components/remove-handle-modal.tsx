import { Button, Group, Modal, Text } from '@mantine/core';
import type { Handle } from '@perch/shared';
import { HANDLE_TEXTS } from '../utils/handle-messages';

export interface RemoveHandleModalProps {
  /** The handle to remove; null keeps the modal closed. */
  handle: Handle | null;
  /** Adds the line that says the handle will no longer be monitored for the user. */
  explained?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Asks before a handle leaves the signed-in user's list; Cancel leaves it as it was. */
export function RemoveHandleModal({
  handle,
  explained = false,
  onConfirm,
  onCancel,
}: RemoveHandleModalProps) {
  return (
    <Modal opened={handle !== null} onClose={onCancel} title="Remove handle" centered>
      <Text mb={explained ? 'xs' : 'lg'}>{HANDLE_TEXTS.removeConfirm}</Text>
      {explained && handle ? (
        <Text size="sm" c="dimmed" mb="lg">
          @{handle.handle} will no longer be monitored for you.
        </Text>
      ) : null}
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button color="red" onClick={onConfirm}>
          Remove
        </Button>
      </Group>
    </Modal>
  );
}
