import { Progress, Stack, Text, Tooltip } from '@mantine/core';
import type { CompleteAnalytics } from '@perch/shared';
import { METRIC_COLORS } from '../utils/chart-colors';
import { formatCompact, formatInteger, formatPercent } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { LegendItem } from './legend-item';
import { SectionCard, SectionEmpty } from './section-card';

const PARTS = [
  { key: 'likes', total: 'total_likes', label: 'Likes', color: METRIC_COLORS.likes },
  { key: 'retweets', total: 'total_retweets', label: 'Retweets', color: METRIC_COLORS.retweets },
  { key: 'replies', total: 'total_replies', label: 'Replies', color: METRIC_COLORS.replies },
  { key: 'quotes', total: 'total_quotes', label: 'Quotes', color: METRIC_COLORS.quotes },
] as const;

/** A share is labelled inside the bar only when the label fits. */
const INLINE_LABEL_MIN_SHARE = 20;

/** Likes, retweets, replies and quotes as shares of all engagement: one stacked bar. */
export function InteractionBreakdownCard({ data }: { data: CompleteAnalytics }) {
  const breakdown = data.interactionBreakdown;
  const total = PARTS.reduce((sum, part) => sum + breakdown[part.key], 0);
  return (
    <SectionCard
      title="Interaction breakdown"
      definition={METRIC_DEFINITIONS.interactionBreakdown}
      subtitle="Share of all engagement"
      testId="analytics-interactions"
    >
      {total === 0 ? (
        <SectionEmpty>No engagement in this period.</SectionEmpty>
      ) : (
        <Stack gap="md">
          <Progress.Root
            size={24}
            radius="md"
            aria-label="Share of likes, retweets, replies and quotes"
          >
            {PARTS.filter((part) => breakdown[part.key] > 0).map((part) => (
              <Tooltip
                key={part.key}
                label={`${part.label}: ${formatPercent(breakdown[part.key])}`}
              >
                <Progress.Section value={breakdown[part.key]} color={part.color}>
                  {breakdown[part.key] >= INLINE_LABEL_MIN_SHARE ? (
                    <Progress.Label>{formatPercent(breakdown[part.key])}</Progress.Label>
                  ) : null}
                </Progress.Section>
              </Tooltip>
            ))}
          </Progress.Root>
          <Stack gap={8} component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
            {PARTS.map((part) => (
              <LegendItem key={part.key} color={part.color} label={part.label}>
                <Text size="sm" c="dimmed" title={formatInteger(data.summary[part.total])}>
                  {formatCompact(data.summary[part.total])}
                </Text>
                <Text size="sm" fw={600} w={56} ta="right">
                  {formatPercent(breakdown[part.key])}
                </Text>
              </LegendItem>
            ))}
          </Stack>
        </Stack>
      )}
    </SectionCard>
  );
}
