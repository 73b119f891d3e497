import { Button, Group, Paper, Stack, Text } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminUser, type AdminUserHandle } from '@perch/shared';
import { IconAt, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useAdminUserHandlesQuery } from '../api/get-user-handles';
import { useRemoveUserHandleMutation } from '../api/remove-user-handle';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { failureReason } from '../utils/failure';
import { formatDate, formatStatus } from '../utils/format';
import { backfillColor } from '../utils/looks';
import { AdminSection } from './admin-section';
import { LookBadge } from './look-badge';
import { ConfirmDialog } from './confirm-dialog';
import { EmptyText, SectionError, SectionSkeleton } from './section-states';

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
  const notify = useAdminNotifier();
  const [pending, setPending] = useState<AdminUserHandle | null>(null);

  const handleConfirm = () => {
    const target = pending;
    setPending(null);
    if (!target || userId === null) return;
    removeMutation.mutate(
      { userId, handleId: target.id, handle: target.handle },
      {
        onSuccess: ({ message }) =>
          notify.success(message ?? ADMIN_MESSAGES.handleRemovedFromUser(target.handle)),
        onError: (error) =>
          notify.error(
            ADMIN_MESSAGES.removeHandleFromUserFailed(target.handle),
            failureReason(error, ADMIN_MESSAGES.removeHandleFromUserFailed(target.handle)),
          ),
      },
    );
  };

  const isRemoving = (handleId: number) =>
    removeMutation.isPending &&
    removeMutation.variables.userId === userId &&
    removeMutation.variables.handleId === handleId;

  return (
    <AdminSection
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
                <Button
                  size="xs"
                  color="red"
                  variant="light"
                  leftSection={<IconTrash size={14} />}
                  aria-label={`Delete @${handle.handle}`}
                  loading={isRemoving(handle.id)}
                  onClick={() => setPending(handle)}
                  style={{ flexShrink: 0 }}
                >
                  Delete
                </Button>
              </Group>
            </Paper>
          ))}
        </Stack>
      ) : null}

      <ConfirmDialog
        title="Remove handle from user"
        message={
          pending && userId !== null
            ? ADMIN_MESSAGES.confirmRemoveFromUser(pending.handle, pending.id, userId)
            : null
        }
        confirmLabel="Delete"
        onConfirm={handleConfirm}
        onCancel={() => setPending(null)}
      />
    </AdminSection>
  );
}
