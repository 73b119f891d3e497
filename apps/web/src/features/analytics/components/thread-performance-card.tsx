import { Anchor, Group, Paper, Text } from '@mantine/core';
import type { CompleteAnalytics, ThreadPerformance } from '@perch/shared';
import { IconExternalLink } from '@tabler/icons-react';
import { formatDecimal, formatInteger, plural } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { MetricInfo } from './metric-info';
import { SectionCard, SectionEmpty } from './section-card';
import { StatTileList, StatTiles, type StatItem } from './stat-tile';

/** The link of a post on X. */
export function postUrl(handle: string, id: string): string {
  return `https://x.com/${encodeURIComponent(handle)}/status/${encodeURIComponent(id)}`;
}

function threadItems(threads: ThreadPerformance): StatItem[] {
  return [
    {
      label: 'Threads',
      value: threads.thread_count,
      format: formatInteger,
      definition: METRIC_DEFINITIONS.threadCount,
    },
    {
      label: 'Avg length',
      value: threads.avg_thread_length,
      format: formatDecimal,
      definition: METRIC_DEFINITIONS.avgThreadLength,
      hint: 'posts per thread',
    },
    {
      label: 'Thread engagement',
      value: threads.avg_thread_engagement,
      format: formatDecimal,
      definition: METRIC_DEFINITIONS.avgThreadEngagement,
      hint: 'per thread',
    },
    {
      label: 'Standalone engagement',
      value: threads.avg_standalone_engagement,
      format: formatDecimal,
      definition: METRIC_DEFINITIONS.avgStandaloneEngagement,
      hint: 'per post outside threads',
    },
  ];
}

/** Threads against standalone posts, and the best thread. */
export function ThreadPerformanceCard({ data }: { data: CompleteAnalytics }) {
  const threads = data.threadPerformance;
  const best = threads.best_thread;
  return (
    <SectionCard
      title="Thread performance"
      definition={METRIC_DEFINITIONS.threads}
      testId="analytics-threads"
    >
      {threads.thread_count === 0 ? (
        <SectionEmpty>No threads in this period.</SectionEmpty>
      ) : (
        <>
          <StatTiles>
            <StatTileList items={threadItems(threads)} />
          </StatTiles>
          {best ? (
            <Paper withBorder radius="md" p="sm" mt="sm">
              <Group justify="space-between" wrap="nowrap" gap="xs">
                <Group gap={4} wrap="nowrap">
                  <Text size="sm" fw={600}>
                    Best thread
                  </Text>
                  <MetricInfo label="Best thread" definition={METRIC_DEFINITIONS.bestThread} />
                </Group>
                <Anchor
                  href={postUrl(data.handle, best.conversation_id)}
                  target="_blank"
                  rel="noopener noreferrer"
                  size="sm"
                >
                  <Group gap={4} wrap="nowrap">
                    Open on X <IconExternalLink size={14} aria-hidden />
                  </Group>
                </Anchor>
              </Group>
              <Text size="xs" c="dimmed" mt={4}>
                {plural(best.length, 'post')} · {formatInteger(best.engagement)} engagement
              </Text>
            </Paper>
          ) : null}
        </>
      )}
    </SectionCard>
  );
}
