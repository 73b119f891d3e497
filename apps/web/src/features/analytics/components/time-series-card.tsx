import { AreaChart } from '@mantine/charts';
import { Select } from '@mantine/core';
import type { CompleteAnalytics, TimeseriesPoint } from '@perch/shared';
import { useState } from 'react';
import { METRIC_COLORS } from '../utils/chart-colors';
import { formatCompact, formatDay, formatPercent } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard } from './section-card';

type SeriesMetric = Exclude<keyof TimeseriesPoint, 'date'>;

const METRICS: { value: SeriesMetric; label: string; color: string }[] = [
  { value: 'engagement', label: 'Engagement', color: METRIC_COLORS.engagement },
  { value: 'tweets', label: 'Posts', color: METRIC_COLORS.tweets },
  { value: 'likes', label: 'Likes', color: METRIC_COLORS.likes },
  { value: 'retweets', label: 'Retweets', color: METRIC_COLORS.retweets },
  { value: 'replies', label: 'Replies', color: METRIC_COLORS.replies },
  { value: 'quotes', label: 'Quotes', color: METRIC_COLORS.quotes },
  { value: 'engagement_rate', label: 'Engagement rate', color: METRIC_COLORS.engagement },
];

function isSeriesMetric(value: string | null): value is SeriesMetric {
  return METRICS.some((metric) => metric.value === value);
}

/** The daily time series as an area chart, one metric at a time. */
export function TimeSeriesCard({ data }: { data: CompleteAnalytics }) {
  const [metric, setMetric] = useState<SeriesMetric>('engagement');
  const selected = METRICS.find((entry) => entry.value === metric) ?? METRICS[0]!;
  const rows = data.timeSeries.series.map((point) => ({
    day: formatDay(point.date),
    [metric]: point[metric],
  }));
  const isRate = metric === 'engagement_rate';
  return (
    <SectionCard
      title="Daily activity"
      definition={METRIC_DEFINITIONS.timeSeries}
      subtitle={`${selected.label} per day, last ${data.period} days`}
      fullWidth
      testId="analytics-time-series"
      actions={
        <Select
          aria-label="Time series metric"
          size="xs"
          w={150}
          data={METRICS.map(({ value, label }) => ({ value, label }))}
          value={metric}
          onChange={(value) => {
            if (isSeriesMetric(value)) setMetric(value);
          }}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
        />
      }
    >
      <AreaChart
        h={240}
        data={rows}
        dataKey="day"
        series={[{ name: metric, label: selected.label, color: selected.color }]}
        curveType="monotone"
        withGradient
        fillOpacity={0.35}
        withDots={false}
        tickLine="none"
        connectNulls
        valueFormatter={(value) => (isRate ? formatPercent(value) : formatCompact(value))}
        yAxisProps={{ width: 48 }}
        xAxisProps={{ minTickGap: 24 }}
        aria-label={`${selected.label} per day`}
      />
    </SectionCard>
  );
}
