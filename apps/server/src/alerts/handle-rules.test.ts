import { ALERT_DIRECTIONS, type FollowerChangeKind, type HandleAlertKind } from '@perch/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INITIAL_HANDLE_MEMORY, parseHandleMemory, serializeHandleMemory } from './crossing.js';
import { evaluateHandleRule, handleCondition } from './handle-rules.js';
import type { HandleState } from './types.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-03-10T12:00:00.000Z');

const rule = (kind: HandleAlertKind, enabled = true) => ({ id: 3, enabled, kind });
const followers = (...counts: [hoursAgo: number, followers: number][]): HandleState => ({
  profileSnapshots: counts.map(([hoursAgo, count]) => ({
    takenAt: NOW - hoursAgo * HOUR,
    followers: count,
  })),
  lastPostAt: null,
});
const change = (
  direction: FollowerChangeKind['direction'],
  limits: { percent?: number; accounts?: number },
): FollowerChangeKind => ({ type: 'follower_change', direction, ...limits });
const met = (kind: HandleAlertKind, state: HandleState, now = NOW) =>
  handleCondition(kind, state, now).met;

describe('follower_change', () => {
  it('compares the latest count with the earliest of the 24 hours before it', () => {
    // 26 h ago lies outside; 24 h ago is the base (1000), the latest is 1100: +10 %, +100.
    const state = followers([26, 500], [24, 1000], [12, 1050], [1, 1100]);
    expect(handleCondition(change('up', { percent: 10 }), state, NOW)).toEqual({
      met: true,
      numbers: {
        followers: 1100,
        followers_before: 1000,
        change: 100,
        percent_change: 10,
        percent: 10,
        taken_at: NOW - HOUR,
        before_taken_at: NOW - 24 * HOUR,
      },
    });
    expect(met(change('up', { percent: 10.1 }), state)).toBe(false);
    expect(met(change('up', { accounts: 100 }), state)).toBe(true);
    expect(met(change('up', { accounts: 101, percent: 11 }), state)).toBe(false);
    expect(met(change('up', { accounts: 101, percent: 5 }), state)).toBe(true);
    expect(met(change('down', { accounts: 1 }), state)).toBe(false);
    expect(met(change('either', { accounts: 1 }), state)).toBe(true);
  });

  it('ignores snapshots taken after now, and is unknown without two counts within 24 h', () => {
    expect(met(change('either', { accounts: 1 }), followers([30, 10], [2, 900]))).toBe(null);
    expect(met(change('either', { accounts: 1 }), followers())).toBe(null);
    expect(met(change('either', { accounts: 1 }), followers([5, 10], [-1, 900]))).toBe(null);
  });

  it('never counts a percentage from a zero base, only accounts', () => {
    const state = followers([20, 0], [0, 40]);
    expect(met(change('up', { percent: 1 }), state)).toBe(false);
    expect(met(change('up', { percent: 1, accounts: 40 }), state)).toBe(true);
    expect(handleCondition(change('up', { accounts: 40 }), state, NOW).numbers).not.toHaveProperty(
      'percent_change',
    );
  });

  it('decides by direction, accounts and percent of the earlier count', () => {
    const count = fc.nat(1_000_000);
    fc.assert(
      fc.property(
        count,
        count,
        fc.constantFrom(...ALERT_DIRECTIONS),
        fc.option(fc.double({ min: 0.01, max: 1000, noNaN: true }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 23 }),
        (before, after, direction, percent, accounts, hoursApart) => {
          const state = followers([24, before], [24 - hoursApart - 1, after]);
          const delta = after - before;
          const way = { up: delta > 0, down: delta < 0, either: delta !== 0 }[direction];
          const byAccounts = accounts !== undefined && Math.abs(delta) >= accounts;
          const byPercent =
            percent !== undefined && before > 0 && (Math.abs(delta) / before) * 100 >= percent;
          const kind = change(direction, { percent, accounts });
          expect(met(kind, state)).toBe(way && (byAccounts || byPercent));
          // Either direction is up or down; a stricter limit never fires where a looser did not.
          const either = met({ ...kind, direction: 'either' }, state);
          expect(either).toBe(
            met({ ...kind, direction: 'up' }, state) || met({ ...kind, direction: 'down' }, state),
          );
          if (accounts !== undefined && !met(kind, state)) {
            expect(met({ ...kind, accounts: accounts + 1 }, state)).toBe(false);
          }
        },
      ),
    );
  });
});

describe('silence', () => {
  const silence = (days: number): HandleAlertKind => ({ type: 'silence', days });
  const lastPost = (lastPostAt: number | null): HandleState => ({
    profileSnapshots: [],
    lastPostAt,
  });

  it('holds from exactly D days after the last post, with its numbers', () => {
    expect(handleCondition(silence(3), lastPost(NOW - 3 * DAY), NOW)).toEqual({
      met: true,
      numbers: { days: 3, days_silent: 3, last_post_at: NOW - 3 * DAY },
    });
    expect(met(silence(3), lastPost(NOW - 3 * DAY + 1))).toBe(false);
    expect(met(silence(3), lastPost(null))).toBe(null);
  });

  it('holds iff now - last post >= D days', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 90 }), fc.nat(100 * DAY), (days, silentMs) => {
        expect(met(silence(days), lastPost(NOW - silentMs))).toBe(silentMs >= days * DAY);
      }),
    );
  });
});

describe('evaluateHandleRule', () => {
  const silentFor3Days = { type: 'silence', days: 3 } as const;

  it('fires once per crossing, then after a post and a new silence, past the cooldown', () => {
    const silentSince = (lastPostAt: number) => ({ profileSnapshots: [], lastPostAt });
    let memory = INITIAL_HANDLE_MEMORY;
    const evaluate = (state: HandleState, now: number) => {
      const step = evaluateHandleRule(rule(silentFor3Days), state, memory, now);
      // Stored and read back between evaluations, as a restart would.
      memory = parseHandleMemory(serializeHandleMemory(step.memory));
      return step.firing;
    };
    const start = NOW - 10 * DAY;
    expect(evaluate(silentSince(start), start + 2 * DAY)).toBe(null);
    expect(evaluate(silentSince(start), start + 3 * DAY)).toEqual({
      ruleId: 3,
      at: start + 3 * DAY,
      numbers: { days: 3, days_silent: 3, last_post_at: start },
    });
    expect(evaluate(silentSince(start), start + 5 * DAY)).toBe(null);
    // A post ends the silence and re-arms the rule; the next silence fires again.
    const posted = start + 5 * DAY;
    expect(evaluate(silentSince(posted), posted + HOUR)).toBe(null);
    expect(evaluate(silentSince(posted), posted + 3 * DAY)?.at).toBe(posted + 3 * DAY);
  });

  it('holds a crossing inside the cooldown until the cooldown ends', () => {
    const kind = change('either', { accounts: 10 });
    const fired = evaluateHandleRule(
      rule(kind),
      followers([5, 100], [0, 120]),
      INITIAL_HANDLE_MEMORY,
      NOW,
    );
    expect(fired.firing?.numbers.change).toBe(20);
    const calm = evaluateHandleRule(
      rule(kind),
      followers([1, 120], [0, 121]),
      fired.memory,
      NOW + HOUR,
    );
    expect(calm).toEqual({ firing: null, memory: { armed: true, lastFiredAt: NOW } });
    const later = (hours: number) =>
      evaluateHandleRule(
        rule(kind),
        followers([5 - hours, 121], [-hours, 90]),
        calm.memory,
        NOW + hours * HOUR,
      );
    expect(later(2).firing).toBe(null);
    expect(later(24).firing?.numbers.change).toBe(-31);
    expect(
      evaluateHandleRule(
        rule(kind),
        followers([5 - 2, 121], [-2, 90]),
        calm.memory,
        NOW + 2 * HOUR,
        { cooldownHours: 1 },
      ).firing,
    ).not.toBe(null);
  });

  it('neither fires nor changes its memory when switched off', () => {
    const state = { profileSnapshots: [], lastPostAt: NOW - 10 * DAY };
    expect(
      evaluateHandleRule(rule(silentFor3Days, false), state, INITIAL_HANDLE_MEMORY, NOW),
    ).toEqual({
      firing: null,
      memory: INITIAL_HANDLE_MEMORY,
    });
  });
});
