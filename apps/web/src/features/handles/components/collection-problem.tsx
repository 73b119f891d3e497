import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { X_USAGE_MESSAGES, handleWaitingReason, type Handle } from '@perch/shared';
import { IconAlertTriangle, IconClockPause, IconRefresh } from '@tabler/icons-react';
import { ApiError } from '@/lib/api-client';
import { useRetryHandleMutation } from '../api/retry-handle';

/** What the person can do about a wait for X, by its reason. */
function waitingHint(reason: string): string {
  if (reason === X_USAGE_MESSAGES.budgetPaused) {
    return 'Collection resumes by itself when the daily budget starts afresh.';
  }
  return 'Collection resumes by itself once X accepts the app again; an admin can check the X API status on the Admin page.';
}

function retryErrorText(error: unknown): string {
  if (error instanceof ApiError && error.serverMessage) return error.serverMessage;
  return error instanceof Error ? error.message : 'The retry could not be sent.';
}

/** Whether the server says something is wrong with a handle's collection (failed or waiting). */
export function hasCollectionProblem(handle: Handle): boolean {
  return handle.backfill_status === 'failed' || handleWaitingReason(handle) !== null;
}

export interface CollectionProblemProps {
  /** The selected handle's record (its status and reason, as the badge shows them). */
  handle: Handle;
}

/**
 * Above a handle's analytics, what the server says is wrong with its collection: a failure
 * (not found, suspended, protected...) with its reason and a Retry that queues it again, or a
 * wait for X (credentials, credits, the daily budget). The badge shows the same reason.
 * Nothing for a handle that collects or is ready.
 */
export function CollectionProblem({ handle }: CollectionProblemProps) {
  const retry = useRetryHandleMutation();
  const waiting = handleWaitingReason(handle);
  if (handle.backfill_status === 'failed') {
    return (
      <Alert
        variant="light"
        color="red"
        radius="md"
        icon={<IconAlertTriangle size={18} />}
        title={`Collection of @${handle.handle} failed`}
        data-testid="handle-failed"
      >
        <Stack gap="sm" align="flex-start">
          <Text size="sm">{handle.last_error ?? 'Collection failed'}</Text>
          <Group gap="sm">
            <Button
              size="xs"
              variant="light"
              color="red"
              leftSection={<IconRefresh size={14} />}
              loading={retry.isPending}
              onClick={() => retry.mutate(handle)}
            >
              Retry
            </Button>
            <Text size="xs" c="dimmed">
              Tries the collection again from where it stopped.
            </Text>
          </Group>
          {retry.isError ? (
            <Text size="sm" c="red.4" data-testid="retry-error">
              {retryErrorText(retry.error)}
            </Text>
          ) : null}
        </Stack>
      </Alert>
    );
  }
  if (waiting) {
    return (
      <Alert
        variant="light"
        color="yellow"
        radius="md"
        icon={<IconClockPause size={18} />}
        title={`Collection of @${handle.handle} is waiting`}
        data-testid="handle-waiting"
      >
        <Text size="sm">{waiting}</Text>
        <Text size="xs" c="dimmed" mt={4}>
          {waitingHint(waiting)}
        </Text>
      </Alert>
    );
  }
  return null;
}
