import { describe, expect, it } from 'vitest';
import { at } from './test-factories.js';
import {
  createZoneCalendar,
  dayNumber,
  formatDay,
  hourOf,
  localDay,
  offsetFromParts,
  parseLongOffset,
  weekdayOf,
  wallClockFormat,
  zoneCalendar,
  type ZoneCalendar,
} from './timezone.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SHORT_WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

interface Local {
  date: string;
  weekday: number;
  hour: number;
  minute: number;
}

/** The local date, weekday and hour as Intl prints them: the reference for the arithmetic. */
function intlLocal(timeZone: string): (ms: number) => Local {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
  return (ms) => {
    const parts = Object.fromEntries(format.formatToParts(ms).map((p) => [p.type, p.value]));
    return {
      date: `${parts.year}-${parts.month}-${parts.day}`,
      weekday: SHORT_WEEKDAYS.indexOf(parts.weekday ?? ''),
      hour: Number(parts.hour),
      minute: Number(parts.minute),
    };
  };
}

function engineLocal(calendar: ZoneCalendar, ms: number): Local {
  const local = ms + calendar.offsetAt(ms);
  const day = dayNumber(local);
  const hour = hourOf(local);
  return {
    date: formatDay(day),
    weekday: weekdayOf(day),
    hour,
    minute: Math.floor((local - day * DAY - hour * HOUR) / MINUTE),
  };
}

/** A small deterministic generator, so a failure names the same instants every run. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/**
 * Transitions of each zone (UTC): whole-hour ones, Lord Howe's half-hour DST at 15:30 and 15:00
 * UTC, Kathmandu's move from +05:30 to +05:45 at 18:30 UTC, India's last change in 1945.
 */
const ZONES: Record<string, string[]> = {
  'America/New_York': ['2026-03-08T07:00:00.000Z', '2026-11-01T06:00:00.000Z'],
  'Europe/Berlin': ['2026-03-29T01:00:00.000Z', '2026-10-25T01:00:00.000Z'],
  'Asia/Kolkata': ['1945-10-14T17:30:00.000Z'],
  'Australia/Lord_Howe': ['2026-04-04T15:00:00.000Z', '2026-10-03T15:30:00.000Z'],
  'Asia/Kathmandu': ['1985-12-31T18:30:00.000Z'],
  UTC: [],
};

function instantsFor(transitions: string[], random: () => number): number[] {
  const instants: number[] = [];
  // The whole of 2026 at an odd step, so every local hour and minute offset comes up.
  for (
    let ms = at('2026-01-01T00:00:00.000Z');
    ms < at('2027-01-01T00:00:00.000Z');
    ms += 37 * MINUTE
  ) {
    instants.push(ms + Math.floor(random() * MINUTE));
  }
  for (const transition of transitions) {
    const ms = at(transition);
    instants.push(ms - 1, ms, ms + 1);
    for (let step = -180; step <= 180; step++) {
      instants.push(ms + step * MINUTE, ms + step * MINUTE + Math.floor(random() * MINUTE));
    }
  }
  // Random order: what the cache saw before must not matter.
  for (let i = instants.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [instants[i], instants[j]] = [instants[j]!, instants[i]!];
  }
  return instants;
}

describe('zone calendar', () => {
  for (const [zone, transitions] of Object.entries(ZONES)) {
    it(`gives Intl's local date, weekday, hour and minute in ${zone}`, () => {
      const calendar = createZoneCalendar(zone);
      const reference = intlLocal(zone);
      const instants = instantsFor(transitions, lcg(zone.length));
      expect(instants.length).toBeGreaterThan(14_000);
      const mismatches = instants
        .map((ms) => ({
          iso: new Date(ms).toISOString(),
          engine: engineLocal(calendar, ms),
          intl: reference(ms),
        }))
        .filter(({ engine, intl }) => JSON.stringify(engine) !== JSON.stringify(intl));
      expect(mismatches.slice(0, 5)).toEqual([]);
    });
  }

  it('switches offset at the exact millisecond of a mid-hour transition', () => {
    const lordHowe = createZoneCalendar('Australia/Lord_Howe');
    // DST starts 2026-10-04 02:00 local standard time (+10:30) = 2026-10-03 15:30 UTC.
    expect(lordHowe.offsetAt(at('2026-10-03T15:29:59.999Z'))).toBe(10.5 * HOUR);
    expect(lordHowe.offsetAt(at('2026-10-03T15:30:00.000Z'))).toBe(11 * HOUR);
    const kathmandu = createZoneCalendar('Asia/Kathmandu');
    expect(kathmandu.offsetAt(at('1985-12-31T18:29:59.999Z'))).toBe(5.5 * HOUR);
    expect(kathmandu.offsetAt(at('1985-12-31T18:30:00.000Z'))).toBe(5.75 * HOUR);
  });

  it('buckets New York around the 2026 DST changes', () => {
    const newYork = createZoneCalendar('America/New_York');
    const cases: [iso: string, expected: Local][] = [
      // Spring forward: 01:59 EST is followed by 03:00 EDT.
      ['2026-03-08T06:59:00.000Z', { date: '2026-03-08', weekday: 6, hour: 1, minute: 59 }],
      ['2026-03-08T07:00:00.000Z', { date: '2026-03-08', weekday: 6, hour: 3, minute: 0 }],
      // Fall back: 01:30 happens twice, first in EDT then in EST.
      ['2026-11-01T05:30:00.000Z', { date: '2026-11-01', weekday: 6, hour: 1, minute: 30 }],
      ['2026-11-01T06:30:00.000Z', { date: '2026-11-01', weekday: 6, hour: 1, minute: 30 }],
      // 23:30 local on Saturday is already Sunday in UTC.
      ['2026-03-08T04:30:00.000Z', { date: '2026-03-07', weekday: 5, hour: 23, minute: 30 }],
    ];
    for (const [iso, expected] of cases) {
      expect(engineLocal(newYork, at(iso))).toEqual(expected);
    }
  });

  it('numbers days and weekdays from 1970-01-01, a Thursday', () => {
    expect(dayNumber(0)).toBe(0);
    expect(weekdayOf(0)).toBe(3);
    expect(dayNumber(-1)).toBe(-1);
    expect(weekdayOf(-1)).toBe(2);
    expect(formatDay(-1)).toBe('1969-12-31');
    expect(hourOf(-1)).toBe(23);
    const monday = dayNumber(at('2026-03-02T10:00:00.000Z'));
    expect(weekdayOf(monday)).toBe(0);
    expect(formatDay(monday)).toBe('2026-03-02');
    expect(localDay(createZoneCalendar('Asia/Kolkata'), at('2026-03-01T18:30:00.000Z'))).toBe(
      monday,
    );
  });

  it('reads offsets from longOffset names, and from the printed wall clock otherwise', () => {
    expect(parseLongOffset('3/1/2026, GMT')).toBe(0);
    expect(parseLongOffset('3/1/2026, GMT+05:45')).toBe(5.75 * HOUR);
    expect(parseLongOffset('6/30/1960, GMT-00:44:30')).toBe(-(44 * MINUTE + 30_000));
    expect(parseLongOffset('3/1/2026, EST')).toBeNull();
    expect(offsetFromParts(wallClockFormat('Asia/Kathmandu'), at('2026-03-01T10:00:00.999Z'))).toBe(
      5.75 * HOUR,
    );
  });

  it('shares one calendar per zone and rejects unknown zones', () => {
    expect(zoneCalendar('Europe/Berlin')).toBe(zoneCalendar('Europe/Berlin'));
    expect(() => zoneCalendar('Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
