import { describe, expect, it } from 'vitest';
import { METRIC_READ_AGES_MS, nextMetricsAt } from './metric-schedule.js';

const created = '2026-11-20T10:00:00.000Z';
const at = (hours: number) => new Date(Date.parse(created) + hours * 3_600_000);

describe('nextMetricsAt', () => {
  it('reads at 1 h, 3 h, 6 h, 24 h and 72 h after posting, then never again', () => {
    expect(METRIC_READ_AGES_MS.map((ms) => ms / 3_600_000)).toEqual([1, 3, 6, 24, 72]);
    expect(nextMetricsAt(created, at(0))).toBe('2026-11-20T11:00:00.000Z');
    expect(nextMetricsAt(created, at(1))).toBe('2026-11-20T13:00:00.000Z');
    expect(nextMetricsAt(created, at(2.5))).toBe('2026-11-20T13:00:00.000Z');
    expect(nextMetricsAt(created, at(3))).toBe('2026-11-20T16:00:00.000Z');
    expect(nextMetricsAt(created, at(6))).toBe('2026-11-21T10:00:00.000Z');
    expect(nextMetricsAt(created, at(24))).toBe('2026-11-23T10:00:00.000Z');
    expect(nextMetricsAt(created, at(71.9))).toBe('2026-11-23T10:00:00.000Z');
    expect(nextMetricsAt(created, at(72))).toBeNull();
    expect(nextMetricsAt(created, at(500))).toBeNull();
  });

  it('schedules a backfilled post from its age when first seen', () => {
    expect(nextMetricsAt(created, at(30))).toBe('2026-11-23T10:00:00.000Z');
  });

  it('gives up on an unreadable date', () => {
    expect(nextMetricsAt('not a date', at(1))).toBeNull();
  });
});
