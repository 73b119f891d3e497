import '@mantine/charts/styles.css';
import {
  Alert,
  Box,
  type AlertProps,
  Button,
  Card,
  EmptyState,
  Group,
  Loader,
  Stack,
  Text,
} from '@mantine/core';
import {
  ANALYTICS_MESSAGES,
  DEFAULT_PERIOD,
  collectionCompletedMessage,
  handleWaitingReason,
  isTemporaryHandleId,
  type CompleteAnalytics,
  type Handle,
  type ProgressState,
} from '@perch/shared';
import {
  IconAlertTriangle,
  IconChartLine,
  IconCircleCheck,
  IconClockPause,
} from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import { SectionError } from '@/components/section-states';
import { switchHandleFailedText } from '@/lib/resilience/retry-texts';
import {
  handleAnalyticsQueryKey,
  useCompleteAnalyticsQuery,
  type AnalyticsParams,
} from '../api/get-complete-analytics';
import { useAnalyticsRefresh, type RefreshNotice } from '../hooks/use-analytics-refresh';
import { useCollectingOverlay } from '../hooks/use-collecting-overlay';
import { useHandleSwitch } from '../hooks/use-handle-switch';
import { useNeighbourPrefetch } from '../hooks/use-neighbour-prefetch';
import { hasCompleteAnalyticsData, hasNoPosts, isForHandle } from '../utils/analytics-data';
import { progressPercent, type ProgressReading } from '../utils/collecting-overlay';
import { plural } from '../utils/format';
import { browserTimeZone } from '../utils/timezone';
import { AnalyticsHeader } from './analytics-header';
import { AnalyticsSections } from './analytics-sections';
import { AnalyticsSkeleton } from './analytics-skeleton';
import { AnalyticsToolbar } from './analytics-toolbar';
import { CollectingOverlay } from './collecting-overlay';

export interface AnalyticsViewProps {
  /** The user's handles, in list order. */
  handles: readonly Handle[];
  /** The handle on screen, or null. */
  selectedHandle: string | null;
  onSelectHandle: (handle: string) => void;
  /** The selected handle's live backfill reading, while it is polled. */
  progress?: ProgressState;
  /**
   * What the server says is wrong with the selected handle's collection (failed, with its reason
   * and Retry, or waiting for X), shown above the numbers; null when nothing is.
   */
  collectionNotice?: ReactNode;
}

const NOTICE_COLORS: Record<RefreshNotice['kind'], string> = {
  success: 'green',
  info: 'yellow',
  error: 'red',
};

/** The light, rounded alert the analytics area speaks through. */
function Notice(props: AlertProps) {
  return <Alert variant="light" radius="md" {...props} />;
}

function findRecord(handles: readonly Handle[], name: string | null): Handle | undefined {
  if (!name) return undefined;
  const wanted = name.toLowerCase();
  return handles.find((entry) => entry.handle.toLowerCase() === wanted);
}

/** The line of a collection that has not started after a minute: waiting, with the server's word. */
function waitingText(handle: string, reading: ProgressReading | undefined): string {
  const said = reading?.message?.trim() ?? '';
  // The plain pending texts add nothing; a rate limit or a queue note does.
  const plain =
    said === '' || /^(Waiting to start collection|Starting collection|Collecting )/.test(said);
  const why = plain ? '' : ` (${said.replace(/\.$/, '')})`;
  return `Collection of @${handle} has not started yet${why}. It starts by itself as soon as X allows; the numbers appear as tweets arrive.`;
}

function StillCollecting({ handle, progress }: { handle: string; progress: ProgressReading }) {
  return (
    <Notice color="blue" icon={<Loader size={16} color="blue" />} data-testid="still-collecting">
      Still collecting @{handle}: {progressPercent(progress)}% done,{' '}
      {plural(progress.totalTweets, 'tweet')} found. The numbers grow as tweets arrive.
    </Notice>
  );
}

interface BodyProps {
  handle: string;
  /** The collecting overlay covers the body: placeholders look better under it than texts. */
  covered: boolean;
  data: CompleteAnalytics | undefined;
  mismatch: boolean;
  isPending: boolean;
  error: Error | null;
  /** The title of a failed load. */
  errorTitle: string;
  /** The load is being asked for again. */
  retrying: boolean;
  onRetry: () => void;
}

/** Why a handle has nothing to show: collecting, a failed collection, or a quiet account. */
function emptyDescription(handle: string, data: CompleteAnalytics): string {
  if (data.backfillProgress.status === 'failed') {
    return `Nothing was collected for @${handle}: its collection failed (the reason is above). Retry it once the problem is solved.`;
  }
  if (data.analytics_status === 'collecting') {
    return 'Tweets are still being collected; the analytics appear as soon as the first posts arrive.';
  }
  return `@${handle} has no posts in the last ${data.period} days. Try the month view, or come back later.`;
}

/** The dashboard under the toolbar, or what stands in for it. */
function AnalyticsBody({
  handle,
  covered,
  data,
  mismatch,
  isPending,
  error,
  errorTitle,
  retrying,
  onRetry,
}: BodyProps) {
  if (mismatch) {
    return (
      <Notice
        color="yellow"
        icon={<IconAlertTriangle size={18} />}
        title={ANALYTICS_MESSAGES.mismatch}
      >
        <Text size="sm" mb="sm">
          The numbers that arrived were not for @{handle}, so they are not shown.
        </Text>
        <Button size="xs" variant="light" color="yellow" onClick={onRetry}>
          Refresh
        </Button>
      </Notice>
    );
  }
  if (error && !data) {
    return (
      <SectionError
        title={errorTitle}
        reason={error.message}
        retrying={retrying}
        onRetry={onRetry}
        testId="analytics-error"
      />
    );
  }
  if (!data || isPending || (covered && hasNoPosts(data))) return <AnalyticsSkeleton />;
  if (hasNoPosts(data)) {
    return (
      <Card withBorder radius="lg" p="xl" data-testid="analytics-empty">
        <EmptyState
          icon={<IconClockPause size={28} />}
          variant="light"
          title={ANALYTICS_MESSAGES.noData}
          description={emptyDescription(handle, data)}
        />
      </Card>
    );
  }
  return <AnalyticsSections data={data} />;
}

/**
 * The analytics dashboard of one handle: pick a handle and a week or month, refresh,
 * export; every section is drawn from the one `complete` payload. A blurred overlay covers the
 * numbers while the handle is being collected.
 */
export function AnalyticsView({
  handles,
  selectedHandle,
  onSelectHandle,
  progress,
  collectionNotice = null,
}: AnalyticsViewProps) {
  const queryClient = useQueryClient();
  const [period, setPeriod] = useState<number>(DEFAULT_PERIOD);
  const [timezone] = useState(browserTimeZone);
  const record = findRecord(handles, selectedHandle);
  const displayName = record?.handle ?? selectedHandle;
  // An entry still being added has no server record yet: nothing to ask for.
  const canFetch = selectedHandle !== null && !(record && isTemporaryHandleId(record.id));

  const params = useMemo<AnalyticsParams | null>(
    () => (canFetch && selectedHandle ? { handle: selectedHandle, period, timezone } : null),
    [canFetch, selectedHandle, period, timezone],
  );
  const query = useCompleteAnalyticsQuery(params);
  const payload = query.data;
  const mismatch =
    payload !== undefined && selectedHandle !== null && !isForHandle(payload, selectedHandle);
  const data = mismatch ? undefined : payload;
  const hasData = hasCompleteAnalyticsData(data);
  const reading: ProgressReading | undefined = progress ?? data?.backfillProgress;

  const overlay = useCollectingOverlay(
    { handle: selectedHandle, record, progress: reading, hasData },
    (name) => void queryClient.invalidateQueries({ queryKey: handleAnalyticsQueryKey(name) }),
  );

  const names = handles
    .filter((entry) => !isTemporaryHandleId(entry.id))
    .map((entry) => entry.handle);
  const loaded = query.isSuccess && !mismatch && !query.isPlaceholderData;
  useNeighbourPrefetch(names, selectedHandle, period, timezone, loaded);
  // A handle switched to whose first load fails names the failed switch ('Failed to switch to
  // @x'); the first handle shown, or a handle that loaded since, has the plain
  // 'Failed to load analytics data'. A failure with data on screen shows no alert at all.
  const switching = useHandleSwitch(selectedHandle, loaded);

  // Off after a minute at 0 % with nothing collected: a wait (a queue, a rate limit), said once.
  const waitingToStart =
    overlay.outcome === 'waiting' &&
    !hasData &&
    progressPercent(reading) === 0 &&
    collectionNotice === null;

  const refresh = useAnalyticsRefresh(params);
  const handleRetry = () => void query.refetch();

  let body: ReactNode;
  if (!selectedHandle || !displayName) {
    body = (
      <Card withBorder radius="lg" p="xl">
        <EmptyState
          icon={<IconChartLine size={28} />}
          variant="light"
          title="No handle selected"
          description="Add a handle, or pick one from the list, to see its analytics."
        />
      </Card>
    );
  } else {
    body = (
      <AnalyticsBody
        handle={displayName}
        covered={overlay.visible}
        data={data}
        mismatch={mismatch}
        isPending={query.isPending && params !== null}
        error={query.error}
        errorTitle={switching ? switchHandleFailedText(displayName) : ANALYTICS_MESSAGES.loadFailed}
        retrying={query.isFetching}
        onRetry={handleRetry}
      />
    );
  }

  return (
    <Stack gap="md" data-testid="analytics-view">
      <AnalyticsToolbar
        handles={handles.map((entry) => entry.handle)}
        selectedHandle={displayName}
        onSelectHandle={onSelectHandle}
        period={period}
        onPeriodChange={setPeriod}
        onRefresh={refresh.handleRefresh}
        isRefreshing={refresh.isRefreshing}
        data={data}
      />
      {refresh.notice ? (
        <Text
          size="sm"
          c={`${NOTICE_COLORS[refresh.notice.kind]}.5`}
          role="status"
          data-testid="refresh-notice"
        >
          {refresh.notice.text}
        </Text>
      ) : null}
      {overlay.completedAt !== null && displayName ? (
        <Notice
          color="green"
          icon={<IconCircleCheck size={18} />}
          data-testid="collection-completed"
        >
          {collectionCompletedMessage(displayName)}
        </Notice>
      ) : null}
      {collectionNotice}
      {/* A slow start (a queue, a rate limit) is a wait, never a failure: only the server fails. */}
      {waitingToStart && displayName ? (
        <Notice color="blue" icon={<IconClockPause size={18} />} data-testid="collection-waiting">
          {waitingText(displayName, reading)}
        </Notice>
      ) : null}
      {data && displayName ? (
        <Group gap="xs" wrap="nowrap" align="center">
          <Box style={{ flex: 1, minWidth: 0 }}>
            <AnalyticsHeader
              data={data}
              progress={reading}
              waiting={record ? handleWaitingReason(record) : null}
            />
          </Box>
          {query.isFetching ? <Loader size="xs" aria-label="Updating analytics" /> : null}
        </Group>
      ) : null}
      {data &&
      displayName &&
      data.analytics_status === 'collecting' &&
      !overlay.visible &&
      !waitingToStart ? (
        <StillCollecting handle={displayName} progress={reading ?? data.backfillProgress} />
      ) : null}
      <Box pos="relative" mih={overlay.visible ? 440 : undefined}>
        {body}
        {overlay.visible && displayName ? (
          <CollectingOverlay handle={displayName} progress={reading} />
        ) : null}
      </Box>
    </Stack>
  );
}
