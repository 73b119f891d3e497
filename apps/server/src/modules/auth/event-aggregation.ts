/**
 * Bounded security events: the sign-in events anybody can cause without an account (a wrong
 * password, a locked sign-in, a wrong two-factor code) are written one by one only up to
 * EVENTS_BEFORE_AGGREGATE per account, type and AGGREGATE_WINDOW_MS. Further ones in the same
 * window add to one aggregate event ('12 more failed sign-ins in these 5 minutes') instead of
 * adding rows, so a password-guessing run writes a handful of rows, with the right count, however
 * long it goes on. Names that match no account share one record (the account is null), so
 * guessing names does not grow the table either.
 *
 * Windows are fixed (aligned to the epoch, in UTC), so every node agrees which one an event
 * falls in without asking the others.
 */
import type { SecurityEventType } from '@perch/shared';

/** The event types bounded here: what an anonymous caller can write at will. */
export const AGGREGATED_EVENT_TYPES: ReadonlySet<SecurityEventType> = new Set([
  'login_failed',
  'login_locked',
  'two_factor_failed',
]);
/** The length of one window. */
export const AGGREGATE_WINDOW_MS = 5 * 60_000;
/** Events of one account and type written one by one in a window, before the aggregate. */
export const EVENTS_BEFORE_AGGREGATE = 3;
/** Distinct addresses an aggregate lists (it counts every event whatever their number). */
export const AGGREGATE_MAX_IPS = 10;

/** The metadata key that marks an aggregate and holds how many events it stands for. */
export const AGGREGATED_KEY = 'aggregated';

/** What the words of an aggregate call its events. */
const EVENT_NOUNS: Record<string, string> = {
  login_failed: 'failed sign-ins',
  login_locked: 'locked sign-in attempts',
  two_factor_failed: 'wrong two-factor codes',
};

export interface AggregateWindow {
  /** Inclusive start, ISO-8601 UTC. */
  from: string;
  /** Exclusive end. */
  to: string;
}

/** The window an event at `at` (ms) falls in. */
export function aggregateWindow(at: number, windowMs = AGGREGATE_WINDOW_MS): AggregateWindow {
  const start = Math.floor(at / windowMs) * windowMs;
  return { from: new Date(start).toISOString(), to: new Date(start + windowMs).toISOString() };
}

/** A row of the same account and type already in the window. */
export interface WindowRow {
  id: number;
  /** How many events the row stands for when it is an aggregate; null for a single event. */
  aggregated: number | null;
}

/** What to write for one more event. */
export type BoundedWrite =
  /** A row of its own. */
  | { write: 'event' }
  /** The window's aggregate, standing for this event alone so far. */
  | { write: 'aggregate' }
  /** One more in the window's aggregate `id`, which then stands for `count` events. */
  | { write: 'count'; id: number; count: number };

/** Decides how one more event of an account and type is written, given its window so far. */
export function nextWrite(
  inWindow: readonly WindowRow[],
  eventsBeforeAggregate = EVENTS_BEFORE_AGGREGATE,
): BoundedWrite {
  const aggregate = inWindow.find((row) => row.aggregated !== null);
  if (aggregate)
    return { write: 'count', id: aggregate.id, count: (aggregate.aggregated ?? 0) + 1 };
  if (inWindow.length < eventsBeforeAggregate) return { write: 'event' };
  return { write: 'aggregate' };
}

/** How many events a row's metadata says it stands for, or null for a single event. */
export function aggregatedCount(metadata: string): number | null {
  try {
    const value = (JSON.parse(metadata) as Record<string, unknown> | null)?.[AGGREGATED_KEY];
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

/** The description of an aggregate of `count` events of `type`. */
export function aggregateDescription(
  type: string,
  count: number,
  windowMs = AGGREGATE_WINDOW_MS,
): string {
  const noun = EVENT_NOUNS[type] ?? `${type} events`;
  return `${count} more ${noun} in these ${windowMs / 60_000} minutes (the first ${EVENTS_BEFORE_AGGREGATE} are recorded one by one).`;
}

/** The addresses an aggregate lists: those it had, and `ip` when there is room. */
export function withIp(ips: readonly string[], ip: string | null | undefined): string[] {
  if (!ip || ips.includes(ip) || ips.length >= AGGREGATE_MAX_IPS) return [...ips];
  return [...ips, ip];
}
