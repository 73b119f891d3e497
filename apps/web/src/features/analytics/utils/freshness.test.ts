import { ANALYTICS_FRESH_UNDER_MS, ANALYTICS_RECENT_UNDER_MS } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { freshnessOf, type Freshness } from './freshness';

const COMPUTED_AT = '2025-03-10T12:00:00.000Z';
const computed = Date.parse(COMPUTED_AT);
const HOUR = 60 * 60 * 1000;

describe('freshnessOf', () => {
  it('uses the spec thresholds: fresh under 1 h, recent under 24 h', () => {
    expect(ANALYTICS_FRESH_UNDER_MS).toBe(HOUR);
    expect(ANALYTICS_RECENT_UNDER_MS).toBe(24 * HOUR);
  });

  it.each<[string, number, Freshness]>([
    ['just computed', 0, 'fresh'],
    ['a minute ahead of this clock', -60_000, 'fresh'],
    ['1 ms under 1 h', HOUR - 1, 'fresh'],
    ['exactly 1 h', HOUR, 'recent'],
    ['1 ms under 24 h', 24 * HOUR - 1, 'recent'],
    ['exactly 24 h', 24 * HOUR, 'stale'],
    ['a week', 7 * 24 * HOUR, 'stale'],
  ])('%s old is %s', (_case, age, expected) => {
    expect(freshnessOf(COMPUTED_AT, computed + age)).toBe(expected);
  });

  it('counts a time it cannot read as stale', () => {
    expect(freshnessOf('not a time', computed)).toBe('stale');
  });
});
