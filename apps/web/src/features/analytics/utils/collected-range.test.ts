import { describe, expect, it } from 'vitest';
import { collectionGap, dayKeyInZone, uncoveredDayCount } from './collected-range';

const window = { start: '2025-02-08T12:00:00.000Z', end: '2025-03-10T12:00:00.000Z' };

describe('collectionGap', () => {
  it('is the first collected day when collection began inside the window', () => {
    const gap = collectionGap({
      window,
      timezone: 'UTC',
      collected_since: '2025-02-23T12:00:00.000Z',
    });
    expect(gap).toEqual({ since: Date.parse('2025-02-23T12:00:00.000Z'), firstDay: '2025-02-23' });
  });

  it.each([
    // 02:00 UTC on Feb 23 is still Feb 22 in New York.
    {
      name: "counts days in the payload's time zone",
      timezone: 'America/New_York',
      since: '2025-02-23T02:00:00.000Z',
      firstDay: '2025-02-22',
    },
    {
      name: 'stops at the end of the window',
      timezone: 'UTC',
      since: '2025-04-01T00:00:00.000Z',
      firstDay: '2025-03-10',
    },
  ])('$name', ({ timezone, since, firstDay }) => {
    const gap = collectionGap({ window, timezone, collected_since: since });
    expect(gap?.firstDay).toBe(firstDay);
  });

  it('is null when collection covers the window, has not begun or is unreadable', () => {
    const meta = { window, timezone: 'UTC' };
    expect(collectionGap({ ...meta, collected_since: '2025-01-01T00:00:00.000Z' })).toBeNull();
    expect(collectionGap({ ...meta, collected_since: window.start })).toBeNull();
    expect(collectionGap({ ...meta, collected_since: null })).toBeNull();
    expect(collectionGap({ ...meta, collected_since: 'soon' })).toBeNull();
    // Later on the window's first day: no earlier day of the window lacks data.
    expect(collectionGap({ ...meta, collected_since: '2025-02-08T20:00:00.000Z' })).toBeNull();
  });
});

describe('uncoveredDayCount', () => {
  const series = ['2025-02-21', '2025-02-22', '2025-02-23', '2025-02-24'].map((date) => ({ date }));

  it('counts the leading days before the first collected day', () => {
    expect(uncoveredDayCount(series, { since: 0, firstDay: '2025-02-23' })).toBe(2);
    expect(uncoveredDayCount(series, { since: 0, firstDay: '2025-02-21' })).toBe(0);
    expect(uncoveredDayCount(series, { since: 0, firstDay: '2025-03-01' })).toBe(4);
    expect(uncoveredDayCount(series, null)).toBe(0);
  });
});

describe('dayKeyInZone', () => {
  it('gives YYYY-MM-DD in the zone, falling back to UTC for an unknown zone', () => {
    const time = Date.parse('2025-02-23T02:00:00.000Z');
    expect(dayKeyInZone(time, 'UTC')).toBe('2025-02-23');
    expect(dayKeyInZone(time, 'Asia/Tokyo')).toBe('2025-02-23');
    expect(dayKeyInZone(time, 'America/Los_Angeles')).toBe('2025-02-22');
    expect(dayKeyInZone(time, 'Not/AZone')).toBe('2025-02-23');
  });
});
