import {
  PERIOD_MONTH,
  PERIOD_WEEK,
  percentChange,
  type CompleteAnalytics,
  type PreviousPeriod,
} from '@perch/shared';
import { collectionGap, uncoveredDayCount } from './collected-range';
import { formatDay, formatDecimal, formatHour, formatSignedPercent, shortWeekday } from './format';

/** up: more than before (green), down: less (red), neutral: the same or nothing to compare. */
export type ChangeTone = 'up' | 'down' | 'neutral';

/** How a number compares with the previous period, as a summary card says it. */
export interface Comparison {
  text: string;
  tone: ChangeTone;
  /** The change itself at the start of `text` ('+12%'), shown in the tone's colour. */
  value?: string;
}

/** Changes smaller than this (percent or points) read as 0 and are told as the same. */
const NO_CHANGE = 0.005;

/** The period as people name it: 'week', 'month', else '14 days'. */
export function periodName(period: number): string {
  if (period === PERIOD_WEEK) return 'week';
  if (period === PERIOD_MONTH) return 'month';
  return `${period} days`;
}

/** 'previous week', 'previous month', 'previous 14 days'. */
export function previousPeriodName(period: number): string {
  return `previous ${periodName(period)}`;
}

/** 'last week', 'last month', 'the previous 14 days'. */
function lastPeriodName(period: number): string {
  return period === PERIOD_WEEK || period === PERIOD_MONTH
    ? `last ${periodName(period)}`
    : `the ${previousPeriodName(period)}`;
}

function noData(period: number): Comparison {
  return { text: `no data ${lastPeriodName(period)}`, tone: 'neutral' };
}

/**
 * A count, average or rate against the previous period's, in percent of it (docs/analytics.md,
 * Compare with the previous period): '+12% vs last week', 'same as last week' when equal.
 * 'no data last week' when the previous value is unknown or the previous period had no posts
 * to count; from 0, no percentage: 'up from 0 last week'. Null when the current value is unknown
 * (nothing to compare). Short enough for one line of a phone's card.
 */
export function relativeComparison(
  current: number | null,
  previous: number | null,
  period: number,
  previousHasData = true,
): Comparison | null {
  if (current === null) return null;
  if (previous === null || !previousHasData) return noData(period);
  const last = lastPeriodName(period);
  if (previous === 0) {
    return current === 0
      ? { text: `same as ${last}`, tone: 'neutral' }
      : { text: `up from 0 ${last}`, tone: 'up' };
  }
  const change = percentChange(current, previous) ?? 0;
  if (Math.abs(change) < NO_CHANGE) return { text: `same as ${last}`, tone: 'neutral' };
  const value = formatSignedPercent(change);
  return { text: `${value} vs ${last}`, tone: change > 0 ? 'up' : 'down', value };
}

/**
 * A rate that is itself a change (growth rate) against the previous one, in percentage
 * points: '+0.4 pts vs last week'. A percentage of a percentage says little, and growth can be
 * negative.
 */
export function pointsComparison(
  current: number | null,
  previous: number | null,
  period: number,
): Comparison | null {
  if (current === null) return null;
  if (previous === null) return noData(period);
  const difference = current - previous;
  const last = lastPeriodName(period);
  if (Math.abs(difference) < NO_CHANGE) return { text: `same as ${last}`, tone: 'neutral' };
  const value = `${difference > 0 ? '+' : '-'}${formatDecimal(Math.abs(difference))} pts`;
  return { text: `${value} vs ${last}`, tone: difference > 0 ? 'up' : 'down', value };
}

/** The peak time of the previous period beside this one's: 'last week: Mon 09:00'. */
export function peakComparison(
  current: Pick<PreviousPeriod['summary'], 'peak_day' | 'peak_hour'>,
  previous: Pick<PreviousPeriod['summary'], 'peak_day' | 'peak_hour'>,
  period: number,
): Comparison | null {
  if (current.peak_day === null || current.peak_hour === null) return null;
  if (previous.peak_day === null || previous.peak_hour === null) return noData(period);
  const last = lastPeriodName(period);
  if (previous.peak_day === current.peak_day && previous.peak_hour === current.peak_hour) {
    return { text: `same as ${last}`, tone: 'neutral' };
  }
  return {
    text: `${last}: ${shortWeekday(previous.peak_day)} ${formatHour(previous.peak_hour)}`,
    tone: 'neutral',
  };
}

/**
 * The first day collection covers when it began inside the previous period (its numbers then
 * cover fewer days than the window's), else null.
 */
export function previousPartlyCollectedFrom(
  data: Pick<CompleteAnalytics, 'collected_since' | 'timezone' | 'previous'>,
): string | null {
  if (!data.previous || !data.collected_since) return null;
  const since = Date.parse(data.collected_since);
  if (Number.isNaN(since) || since > Date.parse(data.previous.window.end)) return null;
  const gap = collectionGap({
    collected_since: data.collected_since,
    window: data.previous.window,
    timezone: data.timezone,
  });
  return gap ? formatDay(gap.firstDay) : null;
}

/**
 * The previous period's values of one metric, day by day against the window's days (point i
 * against point i); null where there is no point or collection had not begun.
 */
export function previousValues<K extends keyof PreviousPeriod['timeSeries']['series'][number]>(
  data: Pick<CompleteAnalytics, 'collected_since' | 'timezone' | 'previous'>,
  metric: K,
  length: number,
): (PreviousPeriod['timeSeries']['series'][number][K] | null)[] {
  const previous = data.previous;
  const since = Date.parse(data.collected_since ?? '');
  // Collection not begun, or begun after the previous period: nothing of it to draw.
  if (!previous || Number.isNaN(since) || since > Date.parse(previous.window.end)) {
    return Array.from({ length }, () => null);
  }
  const series = previous.timeSeries.series;
  const uncovered = uncoveredDayCount(
    series,
    collectionGap({
      collected_since: data.collected_since,
      window: previous.window,
      timezone: data.timezone,
    }),
  );
  return Array.from({ length }, (_, index) => {
    const point = series[index];
    return point && index >= uncovered ? point[metric] : null;
  });
}
