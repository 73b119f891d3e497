import { Anchor, Badge, Group, Stack, Text } from '@mantine/core';
import type { CompleteAnalytics } from '@perch/shared';
import { collectionGap } from '../utils/collected-range';
import { progressPercent, type ProgressReading } from '../utils/collecting-overlay';
import { formatCompact, formatDateTime, formatDayInZone } from '../utils/format';
import { FreshnessBadge } from './freshness-badge';

export interface AnalyticsHeaderProps {
  data: CompleteAnalytics;
  /**
   * The freshest backfill reading: the live poll while there is one, else the payload's own
   * copy (which can lag behind it).
   */
  progress?: ProgressReading;
  /** Why collection waits for X (the handle row's reason), when it does. */
  waiting?: string | null;
}

/** The window's first and last day, in the zone the numbers were computed in. */
function windowText(data: CompleteAnalytics): string {
  const start = formatDayInZone(data.window.start, data.timezone);
  const end = formatDayInZone(data.window.end, data.timezone);
  return `${start} – ${end}`;
}

/** 'Collected since Nov 7 — earlier days have no data', when collection starts in the window. */
export function collectedSinceText(data: CompleteAnalytics): string | null {
  const gap = collectionGap(data);
  if (!gap) return null;
  const since = formatDayInZone(new Date(gap.since).toISOString(), data.timezone);
  return `Collected since ${since} — earlier days have no data`;
}

/** The badge's colour and words for where collection stands. */
function statusOf(
  data: CompleteAnalytics,
  progress: ProgressReading,
  waiting?: string | null,
): { color: string; label: string; title?: string } {
  // New tweets are not coming in: the numbers are not up to date, whatever was collected.
  if (waiting) return { color: 'yellow', label: 'Waiting for X', title: waiting };
  if (data.analytics_status === 'collecting') {
    return { color: 'blue', label: `Collecting ${progressPercent(progress)}%` };
  }
  if (data.analytics_status === 'data_ready') return { color: 'green', label: 'Up to date' };
  return { color: 'gray', label: 'No data yet' };
}

function StatusBadge({
  data,
  progress,
  waiting,
}: {
  data: CompleteAnalytics;
  progress: ProgressReading;
  waiting?: string | null;
}) {
  const { color, label, title } = statusOf(data, progress, waiting);
  return (
    <Badge
      variant="light"
      color={color}
      radius="sm"
      tt="none"
      title={title}
      data-testid="analytics-status-badge"
    >
      {label}
    </Badge>
  );
}

/** Who and which window the numbers are about, what collection covers, and when they were computed. */
export function AnalyticsHeader({ data, progress, waiting }: AnalyticsHeaderProps) {
  const followers = data.profile.followersCount ?? data.summary.followers;
  const collected = collectedSinceText(data);
  return (
    <Group justify="space-between" gap="xs" wrap="wrap">
      <Group gap="sm" wrap="wrap">
        <Anchor
          href={`https://x.com/${encodeURIComponent(data.handle)}`}
          target="_blank"
          rel="noopener noreferrer"
          fw={700}
          fz="lg"
          c="var(--mantine-color-text)"
        >
          @{data.profile.username || data.handle}
        </Anchor>
        <StatusBadge data={data} progress={progress ?? data.backfillProgress} waiting={waiting} />
        {followers !== null ? (
          <Text size="sm" c="dimmed">
            {formatCompact(followers)} followers
          </Text>
        ) : null}
      </Group>
      <Stack gap={2}>
        <Text size="xs" c="dimmed" ta={{ base: 'left', sm: 'right' }}>
          {windowText(data)} · {data.timezone} ·{' '}
          {/* The time and its freshness wrap as one, so the label never sits alone on a line. */}
          <span style={{ whiteSpace: 'nowrap' }}>
            computed {formatDateTime(data.computed_at)}
            <FreshnessBadge computedAt={data.computed_at} />
          </span>
        </Text>
        {collected ? (
          <Text
            size="xs"
            c="dimmed"
            fs="italic"
            ta={{ base: 'left', sm: 'right' }}
            data-testid="collected-since"
          >
            {collected}
          </Text>
        ) : null}
      </Stack>
    </Group>
  );
}
