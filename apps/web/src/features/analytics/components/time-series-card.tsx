import { AreaChart, type ChartReferenceAreaProps } from '@mantine/charts';
import { Select } from '@mantine/core';
import type { CompleteAnalytics, TimeseriesPoint } from '@perch/shared';
import { useState } from 'react';
import { METRIC_COLORS } from '../utils/chart-colors';
import { collectionGap, uncoveredDayCount } from '../utils/collected-range';
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

/** Below this share of the chart the shaded area is too narrow for its label. */
const MIN_LABELLED_SHARE = 0.2;

/**
 * The shading over the days before collection began, from the first day to the first day with
 * data, labelled 'Not collected' when there is room; none when every day is covered.
 */
export function uncoveredArea(
  rows: readonly { day: string }[],
  uncovered: number,
): ChartReferenceAreaProps[] | undefined {
  const first = rows[0];
  const boundary = rows[Math.min(uncovered, rows.length - 1)];
  if (uncovered <= 0 || !first || !boundary || rows.length < 2) return undefined;
  const share = Math.min(uncovered, rows.length - 1) / (rows.length - 1);
  return [
    {
      x1: first.day,
      x2: boundary.day,
      color: 'gray.6',
      fillOpacity: 0.12,
      strokeOpacity: 0,
      ifOverflow: 'hidden',
      label:
        share >= MIN_LABELLED_SHARE
          ? { value: 'Not collected', fill: 'var(--mantine-color-dimmed)', fontSize: 11 }
          : undefined,
      labelPosition: 'insideTop',
    },
  ];
}

/** The daily time series as an area chart, one metric at a time. */
export function TimeSeriesCard({ data }: { data: CompleteAnalytics }) {
  const [metric, setMetric] = useState<SeriesMetric>('engagement');
  const selected = METRICS.find((entry) => entry.value === metric) ?? METRICS[0]!;
  const series = data.timeSeries.series;
  const gap = collectionGap(data);
  // Days before collection began have no data: no line there (the API's zeros are not activity).
  const uncovered = uncoveredDayCount(series, gap);
  const rows = series.map((point, index) => ({
    day: formatDay(point.date),
    [metric]: index < uncovered ? null : point[metric],
  }));
  const uncoveredLabels = new Set(rows.slice(0, uncovered).map((row) => row.day));
  const isRate = metric === 'engagement_rate';
  const notCollected = gap ? `no data before ${formatDay(gap.firstDay)}` : null;
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
        referenceAreas={uncoveredArea(rows, uncovered)}
        tooltipProps={{
          // Uncovered days still get a tooltip, which says why there is no value.
          filterNull: false,
          labelFormatter: (label: unknown) => {
            const day = String(label);
            return uncoveredLabels.has(day) ? `${day} · not collected` : day;
          },
        }}
        aria-label={`${selected.label} per day${notCollected ? `; ${notCollected}` : ''}`}
      />
    </SectionCard>
  );
}
