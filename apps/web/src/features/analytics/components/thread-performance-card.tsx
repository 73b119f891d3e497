import { Anchor, Group, Paper, Text } from '@mantine/core';
import type { CompleteAnalytics } from '@perch/shared';
import { IconExternalLink } from '@tabler/icons-react';
import { formatDecimal, formatInteger, plural } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { MetricInfo } from './metric-info';
import { SectionCard, SectionEmpty } from './section-card';
import { StatTile, StatTiles } from './stat-tile';

/** The link of a post on X. */
export function postUrl(handle: string, id: string): string {
  return `https://x.com/${encodeURIComponent(handle)}/status/${encodeURIComponent(id)}`;
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
            <StatTile
              label="Threads"
              value={formatInteger(threads.thread_count)}
              rawValue={threads.thread_count}
              definition={METRIC_DEFINITIONS.threadCount}
            />
            <StatTile
              label="Avg length"
              value={formatDecimal(threads.avg_thread_length)}
              rawValue={threads.avg_thread_length}
              definition={METRIC_DEFINITIONS.avgThreadLength}
              hint="posts per thread"
            />
            <StatTile
              label="Thread engagement"
              value={formatDecimal(threads.avg_thread_engagement)}
              rawValue={threads.avg_thread_engagement}
              definition={METRIC_DEFINITIONS.avgThreadEngagement}
              hint="per thread"
            />
            <StatTile
              label="Standalone engagement"
              value={formatDecimal(threads.avg_standalone_engagement)}
              rawValue={threads.avg_standalone_engagement}
              definition={METRIC_DEFINITIONS.avgStandaloneEngagement}
              hint="per post outside threads"
            />
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
