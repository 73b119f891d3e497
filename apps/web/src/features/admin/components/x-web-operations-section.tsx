import { Alert, Button, Stack, Text } from '@mantine/core';
import { X_WEB_MESSAGES, type XWebOperations, type XWebOperationView } from '@perch/shared';
import { IconAlertTriangle, IconPin, IconPinnedOff, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { type ListColumn, ResponsiveList } from '@/components/responsive-list';
import { EmptyText } from '@/components/section-states';
import { failureReason } from '@/lib/failure-text';
import { formatDateTime, formatRelative } from '@/lib/format';
import { useNow } from '@/lib/use-now';
import { useXWebAccountsQuery } from '../api/x-web-accounts';
import {
  useRefreshXWebOperationsMutation,
  useUnpinXWebOperationMutation,
  useXWebOperationsQuery,
} from '../api/x-web-operations';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { useConfirmedAction } from '../hooks/use-confirmed-action';
import {
  X_WEB_OPERATION_LABEL,
  X_WEB_OPERATION_SOURCE_LOOK,
  X_WEB_TEXTS,
} from '../utils/x-web-texts';
import { LookBadge } from './look-badge';
import { XWebPinDialog } from './x-web-pin-dialog';
import { AdminQuerySection } from './admin-query-section';
import { ADMIN_SECTIONS } from './admin-sections';

/** An instant as '3 min ago' (the full date on hover), or a dash when there is none. */
function When({ iso, now }: { iso: string | null; now: number }) {
  if (!iso) return <>-</>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso, now)}
    </time>
  );
}

function NextCheck({ at, now }: { at: string | null; now: number }) {
  if (!at) return null;
  return (
    <>
      {' · '}
      {X_WEB_TEXTS.nextCheck} <When iso={at} now={now} />
    </>
  );
}

/**
 * How fresh the operations in use are: read from x.com some time ago, or, when the last look
 * failed or none was made yet, a warning that the last-known set is in use (with X's answer).
 */
function Freshness({ data, now }: { data: XWebOperations; now: number }) {
  const failed = data.refresh_error !== null;
  if (!failed && data.refreshed_at) {
    return (
      <Text size="sm" data-testid="x-web-operations-age">
        {X_WEB_TEXTS.operationsReadAt} <When iso={data.refreshed_at} now={now} />
        <Text span inherit c="dimmed">
          <NextCheck at={data.next_check_at} now={now} />
        </Text>
      </Text>
    );
  }
  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title={failed ? X_WEB_TEXTS.operationsReadFailed : X_WEB_TEXTS.operationsNeverRead}
      data-testid="x-web-operations-warning"
    >
      {data.refresh_error ? (
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {data.refresh_error}
        </Text>
      ) : null}
      <Text size="sm">{X_WEB_TEXTS.operationsLastKnown}</Text>
      <Text size="xs" c="dimmed" mt={4}>
        {data.refreshed_at ? (
          <>
            {X_WEB_TEXTS.operationsLastRead} <When iso={data.refreshed_at} now={now} />
          </>
        ) : null}
        <NextCheck at={data.next_check_at} now={now} />
      </Text>
    </Alert>
  );
}

type Row = { operation: XWebOperationView; now: number };

const COLUMNS: readonly ListColumn<Row>[] = [
  {
    header: 'Operation',
    card: 'title',
    cell: ({ operation }) => (
      <Stack gap={0}>
        <Text fw={600} size="sm">
          {operation.name}
        </Text>
        <Text size="xs" c="dimmed">
          {X_WEB_OPERATION_LABEL[operation.name]}
        </Text>
      </Stack>
    ),
  },
  {
    header: 'Query id',
    card: 'wide',
    cell: ({ operation }) => (
      <Stack gap={0}>
        <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
          {operation.query_id}
        </Text>
        {operation.bundle_query_id && operation.bundle_query_id !== operation.query_id ? (
          <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {X_WEB_TEXTS.bundleUses(operation.bundle_query_id)}
          </Text>
        ) : null}
      </Stack>
    ),
  },
  {
    header: 'Source',
    card: 'aside',
    cell: ({ operation }) => {
      const look = X_WEB_OPERATION_SOURCE_LOOK[operation.source];
      return <LookBadge color={look.color}>{look.label}</LookBadge>;
    },
  },
  {
    header: 'Seen on x.com',
    nowrap: true,
    cell: ({ operation, now }) => (
      <Text size="sm">
        <When iso={operation.seen_at} now={now} />
      </Text>
    ),
  },
  {
    header: 'Switches',
    nowrap: true,
    cell: ({ operation }) => (
      <Stack gap={0}>
        <Text size="sm">{X_WEB_TEXTS.featureCount(Object.keys(operation.features).length)}</Text>
        <Text size="xs" c="dimmed">
          {X_WEB_TEXTS.fieldToggleCount(Object.keys(operation.field_toggles).length)}
        </Text>
      </Stack>
    ),
  },
];

/**
 * 'X web operations' (TWEET_SOURCE=x-web): the GraphQL operations the source calls, with the
 * query id in use, where it came from (x.com's client, the last-known set, a pin or the
 * overrides file), when x.com last showed it and how many switches it sends, under how fresh
 * the set is. Super admins check x.com's client now, pin an operation's values and unpin them.
 * Shown only while the server uses the x-web source; polled with the account pool.
 */
export function XWebOperationsSection({ isSuperAdmin }: { isSuperAdmin: boolean }) {
  const pool = useXWebAccountsQuery();
  const inUse = pool.data?.in_use === true;
  const query = useXWebOperationsQuery(inUse);
  // Never behind the answer being shown: its times were measured by the server just before.
  const now = Math.max(useNow(), query.dataUpdatedAt);
  const notify = useAdminNotifier();
  const refreshMutation = useRefreshXWebOperationsMutation();
  const unpinMutation = useUnpinXWebOperationMutation();
  const [pinning, setPinning] = useState<XWebOperationView | null>(null);
  const unpin = useConfirmedAction(unpinMutation, {
    variables: (target: XWebOperationView) => target.name,
    successText: (target) => X_WEB_MESSAGES.operationUnpinned(target.name),
    failureText: (target) => X_WEB_TEXTS.unpinFailed(target.name),
    failureFallback: (target) => X_WEB_TEXTS.unpinFailed(target.name),
  });
  if (!inUse) return null;
  const data = query.data;
  const rows = data?.operations.map((operation) => ({ operation, now }));

  const handleCheckNow = () =>
    refreshMutation.mutate(undefined, {
      onSuccess: ({ data: answer, message }) => {
        // The look is over: when it failed, the answer says why, in the list's own field.
        if (answer.refresh_error) notify.error(X_WEB_TEXTS.checkFailed, answer.refresh_error);
        else notify.success(message ?? X_WEB_MESSAGES.operationsRefreshed(0));
      },
      onError: (error) =>
        notify.error(X_WEB_TEXTS.checkFailed, failureReason(error, X_WEB_TEXTS.checkFailed)),
    });

  return (
    <AdminQuerySection
      section={ADMIN_SECTIONS.xWebOperations}
      query={query}
      actions={
        isSuperAdmin ? (
          <Button
            size="xs"
            variant="light"
            leftSection={<IconRefresh size={14} />}
            loading={refreshMutation.isPending}
            onClick={handleCheckNow}
          >
            {X_WEB_TEXTS.checkNow}
          </Button>
        ) : null
      }
    >
      {data ? (
        <Stack gap="md">
          <Stack gap={4}>
            <Freshness data={data} now={now} />
            {data.overrides_file ? (
              <Text size="xs" c="dimmed">
                {X_WEB_TEXTS.overridesFile(data.overrides_file)}
              </Text>
            ) : null}
          </Stack>
          {rows && rows.length === 0 ? (
            <EmptyText testId="x-web-operations-empty">{X_WEB_TEXTS.operationsEmpty}</EmptyText>
          ) : null}
          {rows && rows.length > 0 ? (
            <ResponsiveList
              label="Operations"
              items={rows}
              itemKey={({ operation }) => operation.name}
              itemTestId="x-web-operation-row"
              itemLabel={({ operation }) => `Operation ${operation.name}`}
              columns={COLUMNS}
              minWidth={760}
              actions={
                isSuperAdmin
                  ? ({ operation }) => (
                      <>
                        {/* X_WEB_OPERATIONS_FILE wins over a pin: it is changed in the file. */}
                        {operation.source === 'file' ? (
                          <Text size="xs" c="dimmed">
                            {X_WEB_TEXTS.setInFile}
                          </Text>
                        ) : (
                          <Button
                            size="xs"
                            variant="light"
                            leftSection={<IconPin size={14} />}
                            aria-label={`${X_WEB_TEXTS.pin} ${operation.name}`}
                            onClick={() => setPinning(operation)}
                          >
                            {X_WEB_TEXTS.pin}
                          </Button>
                        )}
                        {operation.source === 'admin' ? (
                          <Button
                            size="xs"
                            variant="default"
                            leftSection={<IconPinnedOff size={14} />}
                            aria-label={`${X_WEB_TEXTS.unpin} ${operation.name}`}
                            loading={
                              unpinMutation.isPending && unpinMutation.variables === operation.name
                            }
                            onClick={() => unpin.ask(operation)}
                          >
                            {X_WEB_TEXTS.unpin}
                          </Button>
                        ) : null}
                      </>
                    )
                  : undefined
              }
            />
          ) : null}
        </Stack>
      ) : null}
      {isSuperAdmin ? (
        <>
          <XWebPinDialog operation={pinning} onClose={() => setPinning(null)} />
          <ConfirmDialog
            question={
              unpin.pending
                ? {
                    title: X_WEB_TEXTS.unpinTitle,
                    message: X_WEB_TEXTS.confirmUnpin(unpin.pending.name),
                    confirmLabel: X_WEB_TEXTS.unpin,
                  }
                : null
            }
            confirmColor="blue"
            onConfirm={unpin.confirm}
            onCancel={unpin.cancel}
          />
        </>
      ) : null}
    </AdminQuerySection>
  );
}
