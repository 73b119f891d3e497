import { LineChart } from '@mantine/charts';
import { Group, Text } from '@mantine/core';
import type { CompleteAnalytics } from '@perch/shared';
import { METRIC_COLORS } from '../utils/chart-colors';
import {
  formatCompact,
  formatDay,
  formatInteger,
  formatSignedCompact,
  formatSignedPercent,
} from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard, SectionEmpty } from './section-card';

/** Followers per day with a snapshot, with the net change and growth rate. */
export function FollowerGrowthCard({ data }: { data: CompleteAnalytics }) {
  const { series, net_change, growth_rate } = data.growth;
  const rows = series.map((point) => ({ day: formatDay(point.date), followers: point.followers }));
  const changeColor =
    (net_change ?? 0) > 0 ? 'green.5' : (net_change ?? 0) < 0 ? 'red.5' : 'dimmed';
  return (
    <SectionCard
      title="Follower growth"
      definition={METRIC_DEFINITIONS.growth}
      testId="analytics-growth"
      actions={
        series.length >= 2 && net_change !== null ? (
          <Group gap={6} wrap="nowrap">
            <Text size="sm" fw={700} c={changeColor}>
              {formatSignedCompact(net_change)}
            </Text>
            <Text size="xs" c="dimmed">
              ({formatSignedPercent(growth_rate)})
            </Text>
          </Group>
        ) : null
      }
    >
      {series.length < 2 ? (
        <SectionEmpty>
          {series.length === 1
            ? `${formatInteger(series[0]?.followers)} followers so far; growth shows after a second daily snapshot.`
            : 'No follower snapshots in this period yet.'}
        </SectionEmpty>
      ) : (
        <LineChart
          h={200}
          data={rows}
          dataKey="day"
          series={[{ name: 'followers', label: 'Followers', color: METRIC_COLORS.followers }]}
          curveType="monotone"
          withDots={false}
          tickLine="none"
          valueFormatter={formatCompact}
          yAxisProps={{ width: 48, domain: ['auto', 'auto'] }}
          xAxisProps={{ minTickGap: 24 }}
          aria-label="Followers per day"
        />
      )}
    </SectionCard>
  );
}
