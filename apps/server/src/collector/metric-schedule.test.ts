import { describe, expect, it } from 'vitest';
import {
  METRIC_READ_AGES_MS,
  billedDaysPerPost,
  estimateHandleMonth,
  metricReadAgesMs,
  type XMetricRefreshPreset,
} from '@perch/shared';
import { metricReadAllowed, nextMetricsAt } from './metric-schedule.js';

const HOUR = 3_600_000;
const created = '2026-11-20T10:00:00.000Z';
const at = (hours: number, from = created) => new Date(Date.parse(from) + hours * HOUR);

describe('nextMetricsAt', () => {
  it('reads at 1 h, 3 h, 6 h, 24 h and 72 h after posting, then never again', () => {
    expect(METRIC_READ_AGES_MS.map((ms) => ms / HOUR)).toEqual([1, 3, 6, 24, 72]);
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
    expect(nextMetricsAt('not a date', at(1), 'economy')).toBeNull();
  });

  // [preset, created at, taken (or first seen) at, next reading]
  const cases: [XMetricRefreshPreset, string, string, string | null][] = [
    // Standard: today's schedule, whatever the day.
    [
      'standard',
      '2026-11-20T10:00:00.000Z',
      '2026-11-20T10:00:30.000Z',
      '2026-11-20T11:00:00.000Z',
    ],
    [
      'standard',
      '2026-11-20T10:00:00.000Z',
      '2026-11-20T16:00:00.000Z',
      '2026-11-21T10:00:00.000Z',
    ],
    [
      'standard',
      '2026-11-20T23:30:00.000Z',
      '2026-11-20T23:31:00.000Z',
      '2026-11-21T00:30:00.000Z',
    ],
    [
      'standard',
      '2026-11-20T20:00:00.000Z',
      '2026-11-21T09:00:00.000Z',
      '2026-11-21T20:00:00.000Z',
    ],
    // Economy, mid-day post: 1, 3 and 6 h on its day, then nothing.
    ['economy', '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:30.000Z', '2026-11-20T11:00:00.000Z'],
    ['economy', '2026-11-20T10:00:00.000Z', '2026-11-20T11:00:00.000Z', '2026-11-20T13:00:00.000Z'],
    ['economy', '2026-11-20T10:00:00.000Z', '2026-11-20T13:00:00.000Z', '2026-11-20T16:00:00.000Z'],
    ['economy', '2026-11-20T10:00:00.000Z', '2026-11-20T16:00:00.000Z', null],
    // Economy near midnight: the readings past 00:00 UTC go.
    ['economy', '2026-11-20T00:00:00.000Z', '2026-11-20T00:00:00.000Z', '2026-11-20T01:00:00.000Z'],
    ['economy', '2026-11-20T17:59:59.999Z', '2026-11-20T21:00:00.000Z', '2026-11-20T23:59:59.999Z'],
    ['economy', '2026-11-20T18:00:00.000Z', '2026-11-20T21:00:00.000Z', null],
    ['economy', '2026-11-20T20:30:00.000Z', '2026-11-20T20:31:00.000Z', '2026-11-20T21:30:00.000Z'],
    ['economy', '2026-11-20T20:30:00.000Z', '2026-11-20T21:30:00.000Z', '2026-11-20T23:30:00.000Z'],
    ['economy', '2026-11-20T21:00:00.000Z', '2026-11-20T22:00:00.000Z', null],
    ['economy', '2026-11-20T22:59:59.000Z', '2026-11-20T23:00:00.000Z', '2026-11-20T23:59:59.000Z'],
    ['economy', '2026-11-20T23:00:00.000Z', '2026-11-20T23:00:30.000Z', null],
    ['economy', '2026-11-20T23:30:00.000Z', '2026-11-20T23:31:00.000Z', null],
    // Economy, first seen on a later day (backfill, a late poll): never read again.
    ['economy', '2026-11-20T23:50:00.000Z', '2026-11-21T00:05:00.000Z', null],
    ['economy', '2026-11-20T10:00:00.000Z', '2026-11-21T09:00:00.000Z', null],
    ['economy', '2026-11-17T10:00:00.000Z', '2026-11-20T12:00:00.000Z', null],
  ];

  it.each(cases)('%s: a post of %s read at %s is next read at %s', (preset, post, now, next) => {
    expect(nextMetricsAt(post, new Date(now), preset)).toBe(next);
  });
});

describe('metricReadAgesMs', () => {
  it.each([
    ['standard', '2026-11-20T23:59:00.000Z', [1, 3, 6, 24, 72]],
    ['economy', '2026-11-20T00:00:00.000Z', [1, 3, 6]],
    ['economy', '2026-11-20T17:00:00.000Z', [1, 3, 6]],
    ['economy', '2026-11-20T18:00:00.000Z', [1, 3]],
    ['economy', '2026-11-20T20:59:00.000Z', [1, 3]],
    ['economy', '2026-11-20T21:00:00.000Z', [1]],
    ['economy', '2026-11-20T23:00:00.000Z', []],
  ] as const)('%s keeps for a post of %s the readings at %j h', (preset, post, hours) => {
    expect(metricReadAgesMs(preset, Date.parse(post)).map((ms) => ms / HOUR)).toEqual(hours);
  });
});

describe('metricReadAllowed', () => {
  it.each([
    ['standard', '2026-11-20T23:30:00.000Z', '2026-11-24T00:30:00.000Z', true],
    ['economy', '2026-11-20T23:30:00.000Z', '2026-11-20T23:59:59.999Z', true],
    ['economy', '2026-11-20T23:30:00.000Z', '2026-11-21T00:00:00.000Z', false],
    ['economy', '2026-11-20T10:00:00.000Z', '2026-11-20T16:00:20.000Z', true],
    ['economy', '2026-11-20T10:00:00.000Z', '2026-11-21T10:00:00.000Z', false],
    ['economy', 'not a date', '2026-11-20T12:00:00.000Z', false],
  ] as const)('%s: a reading of a post of %s at %s is taken: %s', (preset, post, now, allowed) => {
    expect(metricReadAllowed(preset, post, new Date(now))).toBe(allowed);
  });
});

describe('the cost model', () => {
  it('bills a post on three UTC days under standard and on one under economy', () => {
    expect(billedDaysPerPost('standard')).toBe(3);
    expect(billedDaysPerPost('economy')).toBe(1);
  });

  it('prices a typical handle (10 posts a day) per month at the default prices', () => {
    const prices = { postReadUsd: 0.005, userReadUsd: 0.01 };
    expect(estimateHandleMonth('standard', prices)).toEqual({
      postsPerDay: 10,
      postReadsPerDay: 30,
      userReadsPerDay: 1,
      usd: 4.8,
    });
    expect(estimateHandleMonth('economy', prices)).toEqual({
      postsPerDay: 10,
      postReadsPerDay: 10,
      userReadsPerDay: 1,
      usd: 1.8,
    });
    expect(estimateHandleMonth('economy', prices, 1).usd).toBe(0.45);
    expect(estimateHandleMonth('economy', { postReadUsd: 0.01, userReadUsd: 0 }).usd).toBe(3);
  });
});
