import { Box, Button, Tooltip } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminHandle } from '@perch/shared';
import { IconRefresh, IconTrash } from '@tabler/icons-react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { type ListColumn, ResponsiveList } from '@/components/responsive-list';
import { formatCount, formatDate } from '@/lib/format';
import { useDeleteHandleMutation } from '../api/delete-handle';
import { useAllHandlesQuery } from '../api/get-all-handles';
import { useConfirmedAction } from '../hooks/use-confirmed-action';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { formatStatus } from '../utils/format';
import { backfillColor } from '../utils/looks';
import { LookBadge } from './look-badge';
import { DangerButton } from './danger-button';
import { HANDLE_NAME_COLUMN } from './handle-name-column';
import { AdminQuerySection } from './admin-query-section';
import { ADMIN_SECTIONS } from './admin-sections';

function HandleStatus({ handle }: { handle: AdminHandle }) {
  const badge = handle.stopped ? (
    <LookBadge color="red">stopped</LookBadge>
  ) : (
    <LookBadge color={backfillColor(handle.status)}>
      {formatStatus(handle.status)}
      {handle.status === 'in_progress' || handle.status === 'collecting'
        ? ` ${Math.round(handle.backfill_progress)}%`
        : ''}
    </LookBadge>
  );
  if (!handle.last_error) return badge;
  return (
    <Tooltip label={handle.last_error} multiline maw={320}>
      <Box component="span" display="inline-block">
        {badge}
      </Box>
    </Tooltip>
  );
}

const HANDLE_COLUMNS: readonly ListColumn<AdminHandle>[] = [
  HANDLE_NAME_COLUMN,
  { header: 'ID', cell: (handle) => handle.id },
  { header: 'Created', cell: (handle) => formatDate(handle.created_at) },
  {
    header: 'Followers',
    align: 'right',
    cell: (handle) =>
      handle.followers_count === null ? ADMIN_TEXTS.none : formatCount(handle.followers_count),
  },
  { header: 'Status', card: 'aside', cell: (handle) => <HandleStatus handle={handle} /> },
  { header: 'Tweets', align: 'right', cell: (handle) => formatCount(handle.tweets) },
  { header: 'Users', align: 'right', cell: (handle) => handle.users_count },
];

/**
 * 'Global Handle Management': every handle of the system with a 'Global Delete' that stops its
 * collector and removes it for all users, and a 'Refresh System Handles' button.
 */
export function GlobalHandlesSection() {
  const query = useAllHandlesQuery();
  const deleteMutation = useDeleteHandleMutation();
  const globalDelete = useConfirmedAction(deleteMutation, {
    variables: (target: AdminHandle) => ({ id: target.id, handle: target.handle }),
    successText: (target) => ADMIN_MESSAGES.handleDeleted(target.handle),
    failureText: (target) => ADMIN_MESSAGES.deleteHandleFailed(target.handle),
    failureFallback: (target) => ADMIN_MESSAGES.globalDeleteFailed(target.id),
  });
  const handles = query.data;
  const pending = globalDelete.pending;

  return (
    <AdminQuerySection
      section={ADMIN_SECTIONS.globalHandles}
      query={query}
      actions={
        <Button
          size="xs"
          variant="light"
          leftSection={<IconRefresh size={14} />}
          loading={query.isFetching && !query.isPending}
          onClick={() => void query.refetch()}
        >
          {ADMIN_TEXTS.refreshSystemHandles}
        </Button>
      }
    >
      {handles && handles.length > 0 ? (
        <ResponsiveList
          label="System handles"
          items={handles}
          itemKey={(handle) => handle.id}
          itemTestId="system-handle-row"
          columns={HANDLE_COLUMNS}
          minWidth={760}
          highlightOnHover
          actions={(handle) => (
            <DangerButton
              icon={IconTrash}
              label={ADMIN_TEXTS.globalDelete}
              aria-label={`${ADMIN_TEXTS.globalDelete} @${handle.handle}`}
              busy={deleteMutation.isPending && deleteMutation.variables.id === handle.id}
              onClick={() => globalDelete.ask(handle)}
            />
          )}
        />
      ) : null}

      <ConfirmDialog
        question={
          pending
            ? {
                title: ADMIN_TEXTS.globalDelete,
                message: ADMIN_MESSAGES.confirmGlobalDelete(pending.handle, pending.id),
                confirmLabel: ADMIN_TEXTS.globalDelete,
              }
            : null
        }
        onConfirm={globalDelete.confirm}
        onCancel={globalDelete.cancel}
      />
    </AdminQuerySection>
  );
}
