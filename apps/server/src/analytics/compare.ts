import {
  COMPARED_SUMMARY_FIELDS,
  percentChange,
  type Summary,
  type SummaryChange,
  type Timeseries,
} from '@perch/shared';
import { summary } from './summary.js';
import { timeseries } from './timeseries.js';
import type { PreparedWindow } from './window.js';

/** What a comparison adds (docs/analytics.md, Compare with the previous period). */
export interface PreviousPeriodBlocks {
  window: { start: number; end: number };
  summary: Summary;
  timeSeries: Timeseries;
  change: SummaryChange;
}

/** Per compared field, the change from the previous period's summary to the current one. */
export function summaryChange(current: Summary, previous: Summary): SummaryChange {
  const change = {} as SummaryChange;
  for (const field of COMPARED_SUMMARY_FIELDS) {
    change[field] = percentChange(current[field], previous[field]);
  }
  return change;
}

/**
 * The previous period's summary and daily series, by the same rules as the window's, and the
 * changes from it to `current` (the window's summary).
 */
export function previousPeriod(prepared: PreparedWindow, current: Summary): PreviousPeriodBlocks {
  const previous = summary(prepared);
  return {
    window: { start: prepared.window.start, end: prepared.window.end },
    summary: previous,
    timeSeries: timeseries(prepared),
    change: summaryChange(current, previous),
  };
}
