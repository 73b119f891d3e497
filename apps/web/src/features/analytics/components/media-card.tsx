import { Group, Progress, Stack, Text } from '@mantine/core';
import type { CompleteAnalytics } from '@perch/shared';
import { formatDecimal, formatInteger, formatPercent } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { MetricInfo } from './metric-info';
import { SectionCard, SectionEmpty } from './section-card';
import { StatTile, StatTiles } from './stat-tile';

function ComparisonBar({
  label,
  value,
  max,
  definition,
  color,
}: {
  label: string;
  value: number;
  max: number;
  definition: string;
  color: string;
}) {
  return (
    <div>
      <Group justify="space-between" gap="xs" mb={4} wrap="nowrap">
        <Group gap={4} wrap="nowrap">
          <Text size="xs" c="dimmed">
            {label}
          </Text>
          <MetricInfo label={label} definition={definition} />
        </Group>
        <Text size="sm" fw={600}>
          {formatDecimal(value)}
        </Text>
      </Group>
      <Progress
        value={max > 0 ? (value / max) * 100 : 0}
        color={color}
        size="sm"
        radius="xl"
        aria-label={`${label}: ${formatDecimal(value)}`}
      />
    </div>
  );
}

/** Photos, videos and GIFs, and whether media lifts engagement. */
export function MediaCard({ data }: { data: CompleteAnalytics }) {
  const media = data.mediaStats;
  const posts = data.summary.total_tweets;
  const max = Math.max(media.avg_engagement_with_media, media.avg_engagement_without_media);
  return (
    <SectionCard title="Media" definition={METRIC_DEFINITIONS.media} testId="analytics-media">
      {posts === 0 ? (
        <SectionEmpty>No posts in this period.</SectionEmpty>
      ) : (
        <Stack gap="md">
          <StatTiles>
            <StatTile
              label="Posts with media"
              value={formatInteger(media.posts_with_media)}
              rawValue={media.posts_with_media}
              definition={METRIC_DEFINITIONS.postsWithMedia}
              hint={`${formatPercent((media.posts_with_media / posts) * 100)} of posts`}
            />
            <StatTile
              label="Photos · Videos · GIFs"
              value={`${formatInteger(media.photos)} · ${formatInteger(media.videos)} · ${formatInteger(media.gifs)}`}
              definition={METRIC_DEFINITIONS.media}
              hint="media items attached"
            />
          </StatTiles>
          <Stack gap="sm">
            <ComparisonBar
              label="Avg engagement with media"
              value={media.avg_engagement_with_media}
              max={max}
              definition={METRIC_DEFINITIONS.engagementWithMedia}
              color="cyan.5"
            />
            <ComparisonBar
              label="Avg engagement without media"
              value={media.avg_engagement_without_media}
              max={max}
              definition={METRIC_DEFINITIONS.engagementWithoutMedia}
              color="gray.6"
            />
          </Stack>
        </Stack>
      )}
    </SectionCard>
  );
}
