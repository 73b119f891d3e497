import { Alert, TextInput } from '@mantine/core';
import { ADMIN_MESSAGES, normalizeHandle, type AdminHandle } from '@perch/shared';
import { IconEraser, IconLock, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { IconSection } from '@/components/icon-section';
import { type ListColumn, ResponsiveList } from '@/components/responsive-list';
import { EmptyText, QueryStates } from '@/components/section-states';
import { formatDateTime } from '@/lib/format';
import { useClearHandleDataMutation } from '../api/clear-handle-data';
import { useAllHandlesQuery } from '../api/get-all-handles';
import { useConfirmedAction } from '../hooks/use-confirmed-action';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { DangerButton } from './danger-button';
import { HANDLE_NAME_COLUMN } from './handle-name-column';
import { ADMIN_SECTIONS } from './admin-sections';

/** Handles whose name or ID contains the search text (a leading @ is ignored). */
export function filterHandles(handles: readonly AdminHandle[], search: string): AdminHandle[] {
  const wanted = normalizeHandle(search).toLowerCase();
  if (!wanted) return [...handles];
  return handles.filter(
    (handle) => handle.handle.toLowerCase().includes(wanted) || String(handle.id).includes(wanted),
  );
}

const CLEANUP_COLUMNS: readonly ListColumn<AdminHandle>[] = [
  { header: 'ID', cell: (handle) => handle.id },
  HANDLE_NAME_COLUMN,
  { header: 'Created At', cell: (handle) => formatDateTime(handle.created_at) },
];

function CleanupTable() {
  const query = useAllHandlesQuery();
  const clearMutation = useClearHandleDataMutation();
  const clearData = useConfirmedAction(clearMutation, {
    variables: (target: AdminHandle) => ({ id: target.id, handle: target.handle }),
    successText: (target) => ADMIN_MESSAGES.handleDataCleared(target.handle),
    failureText: (target) => ADMIN_MESSAGES.clearDataForHandleFailed(target.handle),
    failureFallback: (target) => ADMIN_MESSAGES.clearDataFailed(target.id),
  });
  const [search, setSearch] = useState('');
  const handles = query.data;
  const shown = handles ? filterHandles(handles, search) : [];
  const pending = clearData.pending;

  return (
    <>
      <TextInput
        placeholder="Search by handle or ID"
        aria-label={ADMIN_TEXTS.searchHandles}
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(event) => setSearch(event.currentTarget.value)}
        mb="sm"
        maw={360}
      />
      <QueryStates query={query} {...ADMIN_SECTIONS.dataCleanup.states} />
      {handles && handles.length > 0 && shown.length === 0 ? (
        <EmptyText>{ADMIN_TEXTS.noMatchingHandles(search.trim())}</EmptyText>
      ) : null}
      {shown.length > 0 ? (
        <ResponsiveList
          label="Handles for data clean-up"
          items={shown}
          itemKey={(handle) => handle.id}
          itemTestId="cleanup-row"
          columns={CLEANUP_COLUMNS}
          minWidth={520}
          showActionsHeader
          actions={(handle) => (
            <DangerButton
              icon={IconEraser}
              label={ADMIN_TEXTS.clearData}
              aria-label={`${ADMIN_TEXTS.clearData} @${handle.handle}`}
              busy={clearMutation.isPending && clearMutation.variables.id === handle.id}
              onClick={() => clearData.ask(handle)}
            />
          )}
        />
      ) : null}

      <ConfirmDialog
        question={
          pending
            ? {
                title: ADMIN_TEXTS.clearDataTitle,
                message: ADMIN_MESSAGES.confirmClearData(pending.handle),
                confirmLabel: ADMIN_TEXTS.clearData,
              }
            : null
        }
        onConfirm={clearData.confirm}
        onCancel={clearData.cancel}
      />
    </>
  );
}

/**
 * 'Data Cleanup per Handle' (super admin only): a searchable table of handles with 'Clear Data'
 * behind a confirmation that warns it cannot be undone. Others see the access-denied text.
 */
export function DataCleanupSection({ isSuperAdmin }: { isSuperAdmin: boolean }) {
  const { frame } = ADMIN_SECTIONS.dataCleanup;
  return (
    <IconSection {...frame} description={isSuperAdmin ? frame.description : undefined}>
      {isSuperAdmin ? (
        <CleanupTable />
      ) : (
        <Alert color="red" variant="light" icon={<IconLock size={18} />}>
          {ADMIN_MESSAGES.superAdminRequired}
        </Alert>
      )}
    </IconSection>
  );
}
