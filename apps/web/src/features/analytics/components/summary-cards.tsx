import { Box, Card, Group, SimpleGrid, Stack, Text, type MantineColor } from '@mantine/core';
import type { ComparedSummaryField, CompleteAnalytics } from '@perch/shared';
import { cssColor } from '../utils/chart-colors';
import {
  peakComparison,
  periodName,
  pointsComparison,
  previousPartlyCollectedFrom,
  relativeComparison,
  type ChangeTone,
  type Comparison,
} from '../utils/compare';
import {
  formatCompact,
  formatDecimal,
  formatHour,
  formatInteger,
  formatPercent,
  formatSignedCompact,
  formatSignedPercent,
  shortWeekday,
} from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { MetricInfo } from './metric-info';

export interface SummaryItem {
  /** The summary field it shows, also its test id: summary-card-<key>. */
  key: string;
  label: string;
  /** The raw number (data-value); null when unknown. */
  value: number | null;
  /** The number as people read it. */
  display: string;
  /** The exact number, shown on hover. */
  exact?: string;
  detail: string;
  definition: string;
  color: MantineColor;
  /** Colours the value: up is green, down is red. */
  trend?: 'up' | 'down' | null;
  /** Against the previous period, when the payload has it and the value is known. */
  comparison?: Comparison | null;
}

function trendOf(value: number | null): 'up' | 'down' | null {
  if (value === null || value === 0) return null;
  return value > 0 ? 'up' : 'down';
}

/**
 * Each card's comparison with the previous period (docs/analytics.md): counts, averages and the
 * engagement rate in percent of the previous value, growth in points, the peak beside the
 * previous one. Nothing without the previous period in the payload.
 */
function comparisons(data: CompleteAnalytics): Partial<Record<string, Comparison | null>> {
  const previous = data.previous?.summary;
  if (!previous) return {};
  const { summary, period } = data;
  // Without posts last period, its zeros are an absence of data, not a value to compare with.
  const hadPosts = previous.total_tweets > 0;
  const posts = (field: ComparedSummaryField) =>
    relativeComparison(summary[field], previous[field], period, hadPosts);
  return {
    total_tweets: posts('total_tweets'),
    total_likes: posts('total_likes'),
    total_retweets: posts('total_retweets'),
    total_replies: posts('total_replies'),
    total_quotes: posts('total_quotes'),
    followers: relativeComparison(summary.followers, previous.followers, period),
    avg_engagement: posts('avg_engagement'),
    engagement_rate: posts('engagement_rate'),
    growth_rate: pointsComparison(summary.growth_rate, previous.growth_rate, period),
    peak_hour: peakComparison(summary, previous, period),
  };
}

/** The ten headline numbers of a payload, in display order. */
export function summaryItems(data: CompleteAnalytics): SummaryItem[] {
  const items = headlineItems(data);
  const changes = comparisons(data);
  return items.map((item) => ({ ...item, comparison: changes[item.key] ?? null }));
}

function headlineItems(data: CompleteAnalytics): SummaryItem[] {
  const { summary, engagement, growth, profile } = data;
  const followers = summary.followers ?? profile.followersCount;
  const following = summary.following ?? profile.followingCount;
  const perPost = (value: number) => `${formatDecimal(value)} per post`;
  return [
    {
      key: 'total_tweets',
      label: 'Tweets',
      value: summary.total_tweets,
      display: formatCompact(summary.total_tweets),
      exact: formatInteger(summary.total_tweets),
      detail: `posts in ${data.period} days`,
      definition: METRIC_DEFINITIONS.tweets,
      color: 'yellow',
    },
    {
      key: 'total_likes',
      label: 'Likes',
      value: summary.total_likes,
      display: formatCompact(summary.total_likes),
      exact: formatInteger(summary.total_likes),
      detail: perPost(summary.avg_likes_per_tweet),
      definition: METRIC_DEFINITIONS.likes,
      color: 'pink',
    },
    {
      key: 'total_retweets',
      label: 'Retweets',
      value: summary.total_retweets,
      display: formatCompact(summary.total_retweets),
      exact: formatInteger(summary.total_retweets),
      detail: perPost(summary.avg_retweets_per_tweet),
      definition: METRIC_DEFINITIONS.retweets,
      color: 'teal',
    },
    {
      key: 'total_replies',
      label: 'Replies',
      value: summary.total_replies,
      display: formatCompact(summary.total_replies),
      exact: formatInteger(summary.total_replies),
      detail: perPost(summary.avg_replies_per_tweet),
      definition: METRIC_DEFINITIONS.replies,
      color: 'blue',
    },
    {
      key: 'total_quotes',
      label: 'Quotes',
      value: summary.total_quotes,
      display: formatCompact(summary.total_quotes),
      exact: formatInteger(summary.total_quotes),
      detail: perPost(engagement.averages.quote_count),
      definition: METRIC_DEFINITIONS.quotes,
      color: 'violet',
    },
    {
      key: 'followers',
      label: 'Followers',
      value: followers,
      display: formatCompact(followers),
      exact: formatInteger(followers),
      detail: `${formatCompact(following)} following`,
      definition: METRIC_DEFINITIONS.followers,
      color: 'grape',
    },
    {
      key: 'avg_engagement',
      label: 'Avg engagement',
      value: summary.avg_engagement,
      display: formatDecimal(summary.avg_engagement),
      detail: 'interactions per post',
      definition: METRIC_DEFINITIONS.avgEngagement,
      color: 'cyan',
    },
    {
      key: 'engagement_rate',
      label: 'Engagement rate',
      value: summary.engagement_rate,
      display: formatPercent(summary.engagement_rate),
      detail: 'of followers, per post',
      definition: METRIC_DEFINITIONS.engagementRate,
      color: 'cyan',
    },
    {
      key: 'growth_rate',
      label: 'Growth rate',
      value: summary.growth_rate,
      display: formatSignedPercent(summary.growth_rate),
      detail:
        summary.growth_rate === null
          ? 'needs 2 snapshots'
          : `${formatSignedCompact(growth.net_change)} followers`,
      definition: METRIC_DEFINITIONS.growthRate,
      color: 'green',
      trend: trendOf(summary.growth_rate),
    },
    {
      key: 'peak_hour',
      label: 'Peak time',
      value: summary.peak_hour,
      display:
        summary.peak_day !== null && summary.peak_hour !== null
          ? `${shortWeekday(summary.peak_day)} ${formatHour(summary.peak_hour)}`
          : '—',
      detail: 'busiest day and hour',
      definition: METRIC_DEFINITIONS.peak,
      color: 'orange',
    },
  ];
}

const TONE_COLORS: Record<ChangeTone, string> = {
  up: 'green.5',
  down: 'red.5',
  neutral: 'dimmed',
};

/**
 * '+12% vs last week' under a card's number: the change in green (up) or red (down), the rest
 * dimmed; a second line on a card too narrow for one, rather than losing its end.
 */
function ChangeLine({ itemKey, comparison }: { itemKey: string; comparison: Comparison }) {
  const { value } = comparison;
  const rest = value ? comparison.text.slice(value.length) : comparison.text;
  return (
    <Text
      size="xs"
      c="dimmed"
      mt={6}
      lh={1.35}
      lineClamp={2}
      data-testid={`summary-change-${itemKey}`}
      data-tone={comparison.tone}
    >
      {value ? (
        <Text span inherit c={TONE_COLORS[comparison.tone]} fw={700}>
          {value}
        </Text>
      ) : null}
      {rest}
    </Text>
  );
}

function SummaryCard({ item }: { item: SummaryItem }) {
  const valueColor =
    item.trend === 'up' ? 'green.5' : item.trend === 'down' ? 'red.5' : 'var(--mantine-color-text)';
  return (
    <Card
      withBorder
      radius="lg"
      px="sm"
      py="md"
      data-testid={`summary-card-${item.key}`}
      data-value={item.value ?? ''}
    >
      <Group justify="space-between" wrap="nowrap" gap={2}>
        <Group gap={6} wrap="nowrap" miw={0}>
          <Box
            w={8}
            h={8}
            style={{ borderRadius: '50%', flexShrink: 0, background: cssColor(`${item.color}.5`) }}
            aria-hidden
          />
          <Text size="xs" c="dimmed" fw={500} truncate="end" title={item.label}>
            {item.label}
          </Text>
        </Group>
        <MetricInfo label={item.label} definition={item.definition} />
      </Group>
      <Text
        fz={{ base: 22, sm: 24 }}
        fw={700}
        mt="xs"
        lh={1.15}
        c={valueColor}
        title={item.exact}
        style={{ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }}
      >
        {item.display}
      </Text>
      <Text size="xs" c="dimmed" mt={4} truncate="end">
        {item.detail}
      </Text>
      {item.comparison ? <ChangeLine itemKey={item.key} comparison={item.comparison} /> : null}
    </Card>
  );
}

/** Columns of the headline numbers by the width of the analytics area. */
export const SUMMARY_COLUMNS = { base: 2, '560px': 3, '760px': 5 } as const;

/**
 * The headline numbers: two per row on a phone, five on a desktop, each with its change
 * against the previous period; a note when collection began inside that period.
 */
export function SummaryCards({ data }: { data: CompleteAnalytics }) {
  const partlyFrom = previousPartlyCollectedFrom(data);
  return (
    <Stack gap="xs">
      <SimpleGrid
        type="container"
        cols={SUMMARY_COLUMNS}
        spacing={{ base: 'sm', '760px': 'md' }}
        data-testid="summary-cards"
      >
        {summaryItems(data).map((item) => (
          <SummaryCard key={item.key} item={item} />
        ))}
      </SimpleGrid>
      {partlyFrom ? (
        <Text size="xs" c="dimmed" data-testid="compare-partial">
          Collection began on {partlyFrom}, inside the previous {periodName(data.period)}: its
          numbers cover fewer days than this one&apos;s.
        </Text>
      ) : null}
    </Stack>
  );
}
