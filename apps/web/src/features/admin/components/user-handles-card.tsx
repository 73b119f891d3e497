import { Group, Paper, Stack, Text } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminUser, type AdminUserHandle } from '@perch/shared';
import { IconAt, IconTrash } from '@tabler/icons-react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { IconSection } from '@/components/icon-section';
import { EmptyText, SectionError, SectionSkeleton } from '@/components/section-states';
import { failureReason } from '@/lib/failure-text';
import { formatDate } from '@/lib/format';
import { useAdminUserHandlesQuery } from '../api/get-user-handles';
import { useRemoveUserHandleMutation } from '../api/remove-user-handle';
import { useConfirmedAction } from '../hooks/use-confirmed-action';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { formatStatus } from '../utils/format';
import { backfillColor } from '../utils/looks';
import { LookBadge } from './look-badge';
import { DangerButton } from './danger-button';

export interface UserHandlesCardProps {
  /** The selected user's id; null when none is selected. */
  userId: number | null;
  /** The selected user, once the list has it. */
  user: AdminUser | null;
}

/** 'Monitored Handles' of the selected user, each with a Delete behind a confirmation. */
export function UserHandlesCard({ userId, user }: UserHandlesCardProps) {
  const query = useAdminUserHandlesQuery(userId);
  const removeMutation = useRemoveUserHandleMutation();
  const removal = useConfirmedAction(removeMutation, {
    variables: (target: AdminUserHandle) =>
      userId === null ? null : { userId, handleId: target.id, handle: target.handle },
    successText: (target) => ADMIN_MESSAGES.handleRemovedFromUser(target.handle),
    failureText: (target) => ADMIN_MESSAGES.removeHandleFromUserFailed(target.handle),
    failureFallback: (target) => ADMIN_MESSAGES.removeHandleFromUserFailed(target.handle),
  });
  const pending = removal.pending;

  const isRemoving = (handleId: number) =>
    removeMutation.isPending &&
    removeMutation.variables.userId === userId &&
    removeMutation.variables.handleId === handleId;

  return (
    <IconSection
      title={ADMIN_TEXTS.userHandlesTitle}
      icon={IconAt}
      color="teal"
      description={
        userId === null
          ? undefined
          : ADMIN_TEXTS.userHandlesOf(user?.username ?? String(userId), userId)
      }
      testId="user-handles"
    >
      {userId === null ? <EmptyText>{ADMIN_TEXTS.selectUserHint}</EmptyText> : null}
      {userId !== null && query.isPending ? (
        <SectionSkeleton label="Loading the user's handles" rows={2} />
      ) : null}
      {userId !== null && query.isError ? (
        <SectionError
          title={ADMIN_MESSAGES.loadUserHandlesFailed(userId)}
          reason={failureReason(query.error, ADMIN_MESSAGES.fetchUserHandlesFailed(userId))}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
          testId="user-handles-error"
        />
      ) : null}
      {query.isSuccess && query.data.length === 0 ? (
        <EmptyText testId="user-handles-empty">{ADMIN_MESSAGES.noUserHandles}</EmptyText>
      ) : null}
      {query.isSuccess && query.data.length > 0 ? (
        <Stack component="ul" gap="xs" m={0} p={0} style={{ listStyle: 'none' }}>
          {query.data.map((handle) => (
            <Paper
              key={handle.id}
              component="li"
              withBorder
              radius="md"
              p="xs"
              aria-label={`@${handle.handle}`}
            >
              <Group justify="space-between" gap="sm" wrap="nowrap">
                <Stack gap={2} miw={0}>
                  <Text fw={600} size="sm" truncate="end">
                    @{handle.handle}
                  </Text>
                  <Group gap={6} wrap="wrap">
                    <Text size="xs" c="dimmed">
                      ID: {handle.id} · added {formatDate(handle.added_at)}
                    </Text>
                    <LookBadge color={backfillColor(handle.backfill_status)} size="xs">
                      {formatStatus(handle.backfill_status)}
                    </LookBadge>
                  </Group>
                </Stack>
                <DangerButton
                  icon={IconTrash}
                  label="Delete"
                  aria-label={`Delete @${handle.handle}`}
                  busy={isRemoving(handle.id)}
                  onClick={() => removal.ask(handle)}
                  style={{ flexShrink: 0 }}
                />
              </Group>
            </Paper>
          ))}
        </Stack>
      ) : null}

      <ConfirmDialog
        question={
          pending && userId !== null
            ? {
                title: 'Remove handle from user',
                message: ADMIN_MESSAGES.confirmRemoveFromUser(pending.handle, pending.id, userId),
                confirmLabel: 'Delete',
              }
            : null
        }
        onConfirm={removal.confirm}
        onCancel={removal.cancel}
      />
    </IconSection>
  );
}
