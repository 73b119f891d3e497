import { Alert, Anchor, Button, Group, Progress, Stack, Text } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminProcess, type AdminProcesses } from '@perch/shared';
import { IconAlertTriangle, IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import { Link } from 'react-router';
import { type ListColumn, ResponsiveList } from '@/components/responsive-list';
import { EmptyText } from '@/components/section-states';
import { failureReason } from '@/lib/failure-text';
import { formatDateTime } from '@/lib/format';
import { formatCount, formatRelative } from '@/lib/format';
import { useProcessesQuery } from '../api/get-processes';
import { useProcessActionMutation, type ProcessAction } from '../api/set-process-state';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { PROCESS_STATE_LOOK, SOURCE_HEALTH_LOOK, SOURCE_NAME } from '../utils/looks';
import { LookBadge } from './look-badge';
import { AdminQuerySection } from './admin-query-section';
import { ADMIN_SECTIONS } from './admin-sections';

type Source = AdminProcesses['source'];

function RelativeTime({ label, iso, now }: { label: string; iso: string | null; now: number }) {
  return (
    <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
      {label}{' '}
      {iso ? (
        <Text span inherit c="var(--mantine-color-text)" title={formatDateTime(iso)}>
          <time dateTime={iso}>{formatRelative(iso, now)}</time>
        </Text>
      ) : (
        ADMIN_TEXTS.none
      )}
    </Text>
  );
}

function RateBudget({ budget, now }: { budget: Source['rate_budget']; now: number }) {
  if (budget.limit === null || budget.remaining === null)
    return <>{ADMIN_TEXTS.rateBudgetUnknown}</>;
  return (
    <>
      {ADMIN_TEXTS.rateBudget(budget.remaining, budget.limit)}
      {budget.resetAt ? `, resets ${formatRelative(budget.resetAt, now)}` : ''}
    </>
  );
}

/** Which tweet source is in use, how healthy it is and how much of its rate budget is left. */
function SourceSummary({ source, now }: { source: Source; now: number }) {
  const health = SOURCE_HEALTH_LOOK[source.health];
  return (
    <Stack gap={4} mb="md" data-testid="collector-source">
      <Group gap="xs" wrap="wrap">
        <Text size="sm">
          Source: <strong>{SOURCE_NAME[source.name]}</strong>
        </Text>
        <LookBadge color={health.color}>{health.label}</LookBadge>
        {source.health_reason ? (
          <Text size="sm" c="dimmed">
            {source.health_reason}
          </Text>
        ) : null}
      </Group>
      <Text size="sm" c="dimmed">
        Rate budget: <RateBudget budget={source.rate_budget} now={now} />
      </Text>
      {source.collector_in_process ? null : (
        <Text size="xs" c="dimmed">
          {ADMIN_TEXTS.collectorsElsewhere}
        </Text>
      )}
    </Stack>
  );
}

/** The yellow banner while the collector account waits for a verification code. */
function ChallengeBanner({ isSuperAdmin }: { isSuperAdmin: boolean }) {
  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      mb="md"
      data-testid="challenge-paused"
    >
      <Text size="sm">{ADMIN_MESSAGES.collectionPausedByChallenge}</Text>
      <Text size="sm" mt={4}>
        {isSuperAdmin ? (
          <Anchor component={Link} to="/settings" size="sm">
            {ADMIN_TEXTS.challengeLinkSuperAdmin}
          </Anchor>
        ) : (
          ADMIN_TEXTS.challengeHintAdmin
        )}
      </Text>
    </Alert>
  );
}

function ProcessState({ process }: { process: AdminProcess }) {
  const state = PROCESS_STATE_LOOK[process.state];
  const progress = Math.max(0, Math.min(100, Math.round(process.backfill_progress)));
  return (
    <Stack gap={2} align="flex-start">
      <LookBadge color={state.color}>{state.label}</LookBadge>
      <Group gap={6} wrap="nowrap">
        <Text size="xs">{process.job === 'backfill' ? 'Backfill' : 'Monitor'}</Text>
        {process.job === 'backfill' ? (
          <>
            <Progress
              value={progress}
              w={48}
              size="sm"
              aria-label={`Backfill of @${process.handle}`}
            />
            <Text size="xs">{progress}%</Text>
          </>
        ) : null}
      </Group>
      {process.state_reason ? (
        <Text size="xs" c="dimmed" maw={200} lineClamp={2} title={process.state_reason}>
          {process.state_reason}
        </Text>
      ) : null}
    </Stack>
  );
}

const PROCESS_COLUMNS: readonly ListColumn<{ process: AdminProcess; now: number }>[] = [
  {
    header: 'Handle',
    card: 'title',
    cell: ({ process }) => (
      <Text fw={600} size="sm">
        @{process.handle}
      </Text>
    ),
  },
  { header: 'State', cell: ({ process }) => <ProcessState process={process} /> },
  {
    header: 'Polls',
    cell: ({ process, now }) => (
      <>
        <RelativeTime label="last" iso={process.last_poll_at} now={now} />
        <RelativeTime
          label="next"
          iso={process.state === 'stopped' ? null : process.next_poll_at}
          now={now}
        />
      </>
    ),
  },
  {
    header: 'Last error',
    cell: ({ process }) =>
      process.last_error ? (
        <Text size="xs" c="red.4" maw={220} lineClamp={2} title={process.last_error}>
          {process.last_error}
        </Text>
      ) : (
        ADMIN_TEXTS.none
      ),
  },
  {
    header: 'Tweets',
    align: 'right',
    cell: ({ process }) => formatCount(process.tweets_collected),
  },
];

interface ProcessButtonProps {
  process: AdminProcess;
  busy: boolean;
  onAction: (process: AdminProcess, action: ProcessAction) => void;
}

/** Stop for a running collector, Start for a stopped one (super admins only). */
function ProcessButton({ process, busy, onAction }: ProcessButtonProps) {
  const stopped = process.state === 'stopped';
  return (
    <Button
      size="xs"
      color={stopped ? 'green' : 'orange'}
      variant="light"
      leftSection={stopped ? <IconPlayerPlay size={14} /> : <IconPlayerStop size={14} />}
      aria-label={`${stopped ? 'Start' : 'Stop'} @${process.handle}`}
      loading={busy}
      onClick={() => onAction(process, stopped ? 'start' : 'stop')}
    >
      {stopped ? 'Start' : 'Stop'}
    </Button>
  );
}

/**
 * 'Collectors': the tweet source with its health and rate budget, and each handle's collector
 * (idle, running, paused or stopped) with its job, progress, polls and last error. Fetched every
 * 10 s while the page is visible. Super admins can stop and start collectors.
 */
export function CollectorsSection({ isSuperAdmin }: { isSuperAdmin: boolean }) {
  const query = useProcessesQuery();
  const actionMutation = useProcessActionMutation();
  const notify = useAdminNotifier();
  const data = query.data;
  const now = query.dataUpdatedAt;

  const handleAction = (process: AdminProcess, action: ProcessAction) => {
    const { handle, handle_id: handleId } = process;
    actionMutation.mutate(
      { action, handleId, handle },
      {
        onSuccess: ({ message }) =>
          notify.success(
            message ??
              (action === 'stop'
                ? ADMIN_MESSAGES.processStopped(handle)
                : ADMIN_MESSAGES.processStarted(handle)),
          ),
        onError: (error) =>
          action === 'stop'
            ? notify.error(
                ADMIN_TEXTS.stopFailed(handle),
                failureReason(error, ADMIN_MESSAGES.stopProcessFailed(handleId)),
              )
            : notify.error(
                ADMIN_TEXTS.startFailed(handle),
                failureReason(error, ADMIN_MESSAGES.startProcessFailed(handleId)),
              ),
      },
    );
  };

  return (
    <AdminQuerySection section={ADMIN_SECTIONS.collectors} query={query}>
      {data ? (
        <>
          {data.source.challenge.status === 'IDLE' ? null : (
            <ChallengeBanner isSuperAdmin={isSuperAdmin} />
          )}
          <SourceSummary source={data.source} now={now} />
          {data.processes.length === 0 ? <EmptyText>{ADMIN_TEXTS.noProcesses}</EmptyText> : null}
          {data.processes.length > 0 ? (
            <ResponsiveList
              label="Collectors"
              items={data.processes.map((process) => ({ process, now }))}
              itemKey={({ process }) => process.handle_id}
              itemTestId="process-row"
              itemLabel={({ process }) => `@${process.handle}`}
              columns={PROCESS_COLUMNS}
              minWidth={isSuperAdmin ? 700 : 620}
              actions={
                isSuperAdmin
                  ? ({ process }) => (
                      <ProcessButton
                        process={process}
                        busy={
                          actionMutation.isPending &&
                          actionMutation.variables.handleId === process.handle_id
                        }
                        onAction={handleAction}
                      />
                    )
                  : undefined
              }
            />
          ) : null}
        </>
      ) : null}
    </AdminQuerySection>
  );
}
