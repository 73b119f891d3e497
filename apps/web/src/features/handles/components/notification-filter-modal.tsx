import { Button, Group, Modal, Stack, Switch, TagsInput, Text } from '@mantine/core';
import {
  EMPTY_NOTIFICATION_FILTER,
  FILTER_MAX_TERMS,
  FILTER_MESSAGES,
  isFilterActive,
  notificationFilterRequestSchema,
  type Handle,
  type NotificationFilter,
} from '@perch/shared';
import { useState, type FormEvent } from 'react';
import { ErrorAlert } from '@/components/status-alerts';
import { refusalText } from '@/lib/failure-text';
import { usePhoneLayout } from '@/lib/use-phone-layout';
import { useSetHandleFilterMutation } from '../api/set-handle-filter';

export interface NotificationFilterModalProps {
  /** The handle whose filter is edited; null keeps the modal closed. */
  handle: Handle | null;
  onClose: () => void;
  /** The filter was stored: what to tell the person. */
  onSaved: (message: string) => void;
}

/** The text of a refused save: the server's own for a 4xx, else a generic one. */
function saveErrorText(error: unknown): string {
  return refusalText(error, FILTER_MESSAGES.saveFailed);
}

/**
 * Edits a handle's notification filter: words or phrases to notify about (any of them), words
 * or phrases that hold a tweet back, and "media only". Checked with the request's own rules
 * before anything is sent; Save stores it, Clear filter empties it.
 */
export function NotificationFilterModal({
  handle,
  onClose,
  onSaved,
}: NotificationFilterModalProps) {
  const phone = usePhoneLayout();
  const stored = handle?.notification_filter ?? EMPTY_NOTIFICATION_FILTER;
  const [include, setInclude] = useState<string[]>(stored.include);
  const [exclude, setExclude] = useState<string[]>(stored.exclude);
  const [mediaOnly, setMediaOnly] = useState(stored.media_only);
  const [error, setError] = useState<string | null>(null);
  const mutation = useSetHandleFilterMutation();

  const save = (filter: NotificationFilter) => {
    if (!handle) return;
    const checked = notificationFilterRequestSchema.safeParse(filter);
    if (!checked.success) {
      setError(checked.error.issues[0]?.message ?? FILTER_MESSAGES.saveFailed);
      return;
    }
    setError(null);
    mutation.mutate(
      { handleId: handle.id, filter: checked.data },
      {
        onSuccess: (updated) => {
          onSaved(
            isFilterActive(updated.notification_filter)
              ? FILTER_MESSAGES.saved(updated.handle)
              : FILTER_MESSAGES.cleared(updated.handle),
          );
          onClose();
        },
        onError: (saveError) => setError(saveErrorText(saveError)),
      },
    );
  };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save({ include, exclude, media_only: mediaOnly });
  };

  const nothingStored = !isFilterActive(stored);

  return (
    <Modal
      opened={handle !== null}
      onClose={onClose}
      title={handle ? `Notification filter for @${handle.handle}` : 'Notification filter'}
      size="lg"
      fullScreen={phone}
      centered
    >
      <form onSubmit={handleSubmit} aria-label="Notification filter" noValidate>
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            Applies to Telegram, Discord and webhooks. Words match whole words, whatever their case;
            type a phrase with its spaces. Press Enter or a comma after each one.
          </Text>
          <TagsInput
            label="Notify only about tweets with"
            description="Any of these words or phrases. Leave empty to be told about every tweet."
            placeholder="e.g. launch, landing"
            value={include}
            onChange={setInclude}
            maxTags={FILTER_MAX_TERMS}
            clearable
            data-autofocus
          />
          <TagsInput
            label="Never notify about tweets with"
            description="A tweet with any of these is held back, and the delivery log says why."
            placeholder="e.g. giveaway, sponsored"
            value={exclude}
            onChange={setExclude}
            maxTags={FILTER_MAX_TERMS}
            clearable
          />
          <Switch
            label="Only tweets with a photo or video"
            checked={mediaOnly}
            onChange={(event) => setMediaOnly(event.currentTarget.checked)}
          />
          {error ? (
            <ErrorAlert role="alert" testId="filter-error">
              {error}
            </ErrorAlert>
          ) : null}
          <Group justify="space-between" gap="sm">
            <Button
              variant="subtle"
              color="gray"
              disabled={nothingStored || mutation.isPending}
              onClick={() => save(EMPTY_NOTIFICATION_FILTER)}
            >
              Clear filter
            </Button>
            <Group gap="sm">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={mutation.isPending}>
                Save filter
              </Button>
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
