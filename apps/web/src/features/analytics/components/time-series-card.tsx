import { AreaChart, type AreaChartSeries, type ChartReferenceAreaProps } from '@mantine/charts';
import { Select, Switch, Text } from '@mantine/core';
import type { CompleteAnalytics, TimeseriesPoint } from '@perch/shared';
import { useState } from 'react';
import { METRIC_COLORS } from '../utils/chart-colors';
import { collectionGap, uncoveredDayCount } from '../utils/collected-range';
import { periodName, previousPeriodName, previousValues } from '../utils/compare';
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

/** The data key of the previous period's values in the chart rows. */
const PREVIOUS_KEY = 'previous';
/** The previous period: a muted dashed line with no fill, behind the window's area. */
const PREVIOUS_COLOR = 'gray.5';
const PREVIOUS_DASH = '5 4';

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

/**
 * The daily time series as an area chart, one metric at a time; with the comparison on, the
 * previous period as a dashed line, day i against day i.
 */
export function TimeSeriesCard({ data }: { data: CompleteAnalytics }) {
  const [metric, setMetric] = useState<SeriesMetric>('engagement');
  const [comparing, setComparing] = useState(false);
  const selected = METRICS.find((entry) => entry.value === metric) ?? METRICS[0]!;
  const series = data.timeSeries.series;
  const gap = collectionGap(data);
  // Days before collection began have no data: no line there (the API's zeros are not activity).
  const uncovered = uncoveredDayCount(series, gap);
  const showPrevious = comparing && data.previous !== undefined;
  const previous = showPrevious ? previousValues(data, metric, series.length) : [];
  const previousDays = data.previous?.timeSeries.series ?? [];
  const rows = series.map((point, index) => ({
    day: formatDay(point.date),
    [metric]: index < uncovered ? null : point[metric],
    ...(showPrevious ? { [PREVIOUS_KEY]: previous[index] ?? null } : {}),
  }));
  const uncoveredLabels = new Set(rows.slice(0, uncovered).map((row) => row.day));
  // A day's tooltip names the day of the previous period drawn against it.
  const pairedDays = new Map(
    rows.map((row, index) => {
      const before = previousDays[index];
      return [row.day, before ? formatDay(before.date) : null] as const;
    }),
  );
  const isRate = metric === 'engagement_rate';
  const notCollected = gap ? `no data before ${formatDay(gap.firstDay)}` : null;
  const previousLabel = `Previous ${periodName(data.period)}`;
  const chartSeries: AreaChartSeries[] = [
    ...(showPrevious
      ? [
          {
            name: PREVIOUS_KEY,
            label: previousLabel,
            color: PREVIOUS_COLOR,
            strokeDasharray: PREVIOUS_DASH,
          },
        ]
      : []),
    { name: metric, label: selected.label, color: selected.color },
  ];
  const nothingBefore = showPrevious && previous.every((value) => value === null);
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
      {data.previous ? (
        <Switch
          size="xs"
          mb="sm"
          label="Compare with previous period"
          checked={comparing}
          onChange={(event) => setComparing(event.currentTarget.checked)}
          data-testid="compare-previous-switch"
        />
      ) : null}
      {nothingBefore ? (
        <Text size="xs" c="dimmed" mb="xs" data-testid="compare-nothing">
          Nothing was collected in the {previousPeriodName(data.period)} to draw against.
        </Text>
      ) : null}
      <AreaChart
        h={240}
        data={rows}
        dataKey="day"
        series={chartSeries}
        curveType="monotone"
        withGradient
        fillOpacity={0.35}
        areaProps={(entry) => (entry.name === PREVIOUS_KEY ? { fillOpacity: 0 } : {})}
        withLegend={showPrevious}
        legendProps={{ verticalAlign: 'bottom', height: 36 }}
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
            const text = uncoveredLabels.has(day) ? `${day} · not collected` : day;
            const before = showPrevious ? pairedDays.get(day) : null;
            return before ? `${text} (vs ${before})` : text;
          },
        }}
        aria-label={`${selected.label} per day${notCollected ? `; ${notCollected}` : ''}${
          showPrevious ? `; dashed: ${previousLabel.toLowerCase()}` : ''
        }`}
      />
    </SectionCard>
  );
}
