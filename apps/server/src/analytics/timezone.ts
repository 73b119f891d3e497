/**
 * Local calendar arithmetic for one IANA time zone without an Intl call per instant.
 *
 * Intl is asked for the zone's UTC offset once per distinct UTC hour; local day, weekday and hour
 * then follow from `ms + offset`. Offsets change at most once within any hour, and not always on
 * an hour boundary (Australia/Lord_Howe switches at 15:30 UTC, Asia/Kathmandu moved from +05:30
 * to +05:45 at 18:30 UTC), so an hour whose start and end offsets differ gets its transition
 * instant located to the millisecond by bisection. Every instant therefore gets Intl's exact
 * offset.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** 1970-01-01 (day 0) was a Thursday: weekday 3 when Monday is 0. */
const EPOCH_WEEKDAY = 3;

/**
 * The offset of one UTC hour: `offset` before `transitionAt`, `offsetAfter` from it on.
 * `transitionAt` is Infinity for the (nearly all) hours without a change.
 */
interface HourOffset {
  offset: number;
  transitionAt: number;
  offsetAfter: number;
}

/** A zone's calendar: its UTC offset at any instant, cached per UTC hour. */
export interface ZoneCalendar {
  readonly timeZone: string;
  /** Milliseconds to add to a UTC instant to get the zone's wall-clock time at that instant. */
  offsetAt(ms: number): number;
}

/** `GMT`, `GMT+05:45`, `GMT-04:56:02` (ECMA-402 `longOffset`). */
const LONG_OFFSET = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** The offset encoded in a `longOffset` time zone name, or null when it is not one. */
export function parseLongOffset(text: string): number | null {
  const match = LONG_OFFSET.exec(text);
  if (!match) return null;
  const [, sign, hours, minutes, seconds] = match;
  if (sign === undefined) return 0;
  const magnitude =
    Number(hours) * HOUR_MS + Number(minutes) * MINUTE_MS + Number(seconds ?? 0) * 1000;
  return sign === '-' ? -magnitude : magnitude;
}

/** The offset from the wall clock Intl prints, for runtimes whose `longOffset` text differs. */
export function offsetFromParts(format: Intl.DateTimeFormat, ms: number): number {
  const fields: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
  for (const part of format.formatToParts(ms)) fields[part.type] = Number(part.value);
  const wallClock = Date.UTC(
    fields.year ?? 1970,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  // The wall clock has whole seconds; the instant's milliseconds are not part of the offset.
  return wallClock - Math.floor(ms / 1000) * 1000;
}

/** Prints a zone's wall clock (24-hour, to the second) in parts `offsetFromParts` reads. */
export function wallClockFormat(timeZone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
}

/** Reads a zone's offset at one instant from Intl (slow: the cache below calls it rarely). */
function intlOffsetReader(timeZone: string): (ms: number) => number {
  const longOffset = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
  const parts = wallClockFormat(timeZone);
  return (ms) => parseLongOffset(longOffset.format(ms)) ?? offsetFromParts(parts, ms);
}

/** The first instant in (lo, hi] with the offset found at hi, given a different one at lo. */
function findTransition(read: (ms: number) => number, lo: number, hi: number): number {
  const before = read(lo);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (read(mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Hours cached per zone before the cache starts afresh (about 11 years of hours). */
const MAX_CACHED_HOURS = 100_000;

/** Builds an uncached calendar for a zone; prefer `zoneCalendar`, which reuses them. */
export function createZoneCalendar(timeZone: string): ZoneCalendar {
  const read = intlOffsetReader(timeZone);
  /** Offsets at the start of UTC hours: each is the end of one hour and the start of the next. */
  const hourStarts = new Map<number, number>();
  const hours = new Map<number, HourOffset>();

  function offsetAtHourStart(hour: number): number {
    let offset = hourStarts.get(hour);
    if (offset === undefined) {
      offset = read(hour * HOUR_MS);
      hourStarts.set(hour, offset);
    }
    return offset;
  }

  function hourOffset(hour: number): HourOffset {
    const offset = offsetAtHourStart(hour);
    const offsetAfter = offsetAtHourStart(hour + 1);
    const start = hour * HOUR_MS;
    const transitionAt =
      offset === offsetAfter ? Infinity : findTransition(read, start, start + HOUR_MS);
    return { offset, transitionAt, offsetAfter };
  }

  // Tweets usually come in time order, so the next one is mostly in the same hour.
  let lastHour = NaN;
  let lastEntry: HourOffset = { offset: 0, transitionAt: Infinity, offsetAfter: 0 };

  return {
    timeZone,
    offsetAt(ms) {
      const hour = Math.floor(ms / HOUR_MS);
      let entry = hour === lastHour ? lastEntry : hours.get(hour);
      if (entry === undefined) {
        if (hours.size >= MAX_CACHED_HOURS) {
          hours.clear();
          hourStarts.clear();
        }
        entry = hourOffset(hour);
        hours.set(hour, entry);
      }
      lastHour = hour;
      lastEntry = entry;
      return ms < entry.transitionAt ? entry.offset : entry.offsetAfter;
    },
  };
}

/** Zones kept between computations, so repeated requests skip Intl entirely. */
const MAX_CACHED_ZONES = 32;
const calendars = new Map<string, ZoneCalendar>();

/**
 * The calendar of an IANA zone, shared between computations. Throws a RangeError for a zone the
 * runtime does not know (callers validate with `isKnownTimeZone` first).
 */
export function zoneCalendar(timeZone: string): ZoneCalendar {
  const cached = calendars.get(timeZone);
  if (cached) return cached;
  if (calendars.size >= MAX_CACHED_ZONES) calendars.clear();
  const calendar = createZoneCalendar(timeZone);
  calendars.set(timeZone, calendar);
  return calendar;
}

/** Days since 1970-01-01 of a wall-clock time expressed as epoch ms. */
export function dayNumber(localMs: number): number {
  return Math.floor(localMs / DAY_MS);
}

/** 0 = Monday ... 6 = Sunday of a day number. */
export function weekdayOf(day: number): number {
  return (((day + EPOCH_WEEKDAY) % 7) + 7) % 7;
}

/** 0-23 of a wall-clock time expressed as epoch ms. */
export function hourOf(localMs: number): number {
  return Math.floor((localMs - dayNumber(localMs) * DAY_MS) / HOUR_MS);
}

/** YYYY-MM-DD of a day number (called once per day shown, never per tweet). */
export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The local day number of a UTC instant in a calendar's zone. */
export function localDay(calendar: ZoneCalendar, ms: number): number {
  return dayNumber(ms + calendar.offsetAt(ms));
}
