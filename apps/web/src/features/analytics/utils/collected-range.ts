import type { AnalyticsMeta } from '@perch/shared';

/** The window's days before collection began: zeros there mean "no data", not "no activity". */
export interface CollectionGap {
  /** When collection coverage begins (ms since epoch). */
  since: number;
  /** The first day with data, YYYY-MM-DD in the payload's zone: earlier days have none. */
  firstDay: string;
}

/** An instant's calendar day in a time zone, as YYYY-MM-DD (the API's series dates). */
export function dayKeyInZone(time: number, timeZone: string): string {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      timeZone,
    }).formatToParts(time);
  } catch {
    return new Date(time).toISOString().slice(0, 10);
  }
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((entry) => entry.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/**
 * The part of the window that collection does not cover, or null when it covers every day:
 * `collected_since` falls on a later day than the window's first (in the payload's zone).
 * Without `collected_since` (collection not begun) there is nothing to mark either: the handle's
 * status says it is still collecting.
 */
export function collectionGap(
  meta: Pick<AnalyticsMeta, 'collected_since' | 'window' | 'timezone'>,
): CollectionGap | null {
  if (!meta.collected_since) return null;
  const since = Date.parse(meta.collected_since);
  const start = Date.parse(meta.window.start);
  if (Number.isNaN(since) || Number.isNaN(start) || since <= start) return null;
  const end = Date.parse(meta.window.end);
  const covered = Number.isNaN(end) ? since : Math.min(since, end);
  const firstDay = dayKeyInZone(covered, meta.timezone);
  if (firstDay <= dayKeyInZone(start, meta.timezone)) return null;
  return { since: covered, firstDay };
}

/** How many leading days of a daily series (YYYY-MM-DD dates) fall before the gap's end. */
export function uncoveredDayCount(
  series: readonly { date: string }[],
  gap: CollectionGap | null,
): number {
  if (!gap) return 0;
  const index = series.findIndex((point) => point.date >= gap.firstDay);
  return index === -1 ? series.length : index;
}
