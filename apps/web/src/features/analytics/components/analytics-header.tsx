import { Anchor, Badge, Group, Text } from '@mantine/core';
import { clampProgress, type CompleteAnalytics } from '@perch/shared';
import { formatCompact, formatDateTime, formatDayInZone } from '../utils/format';

/** The window's first and last day, in the zone the numbers were computed in. */
function windowText(data: CompleteAnalytics): string {
  const start = formatDayInZone(data.window.start, data.timezone);
  const end = formatDayInZone(data.window.end, data.timezone);
  return `${start} – ${end}`;
}

function StatusBadge({ data }: { data: CompleteAnalytics }) {
  if (data.analytics_status === 'collecting') {
    const percent = Math.round(clampProgress(data.backfillProgress.progress));
    return (
      <Badge variant="light" color="blue" radius="sm" tt="none">
        Collecting {percent}%
      </Badge>
    );
  }
  if (data.analytics_status === 'data_ready') {
    return (
      <Badge variant="light" color="green" radius="sm" tt="none">
        Up to date
      </Badge>
    );
  }
  return (
    <Badge variant="light" color="gray" radius="sm" tt="none">
      No data yet
    </Badge>
  );
}

/** Who and which window the numbers are about, and when they were computed. */
export function AnalyticsHeader({ data }: { data: CompleteAnalytics }) {
  const followers = data.profile.followersCount ?? data.summary.followers;
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
        <StatusBadge data={data} />
        {followers !== null ? (
          <Text size="sm" c="dimmed">
            {formatCompact(followers)} followers
          </Text>
        ) : null}
      </Group>
      <Text size="xs" c="dimmed">
        {windowText(data)} · {data.timezone} · computed {formatDateTime(data.computed_at)}
      </Text>
    </Group>
  );
}
