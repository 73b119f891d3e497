import { describe, expect, it } from 'vitest';
import {
  REAUTH_WINDOW_MS,
  REMEMBER_ME_MS,
  SESSION_IDLE_MS,
  SESSION_MAX_AGE_MS,
} from '@perch/shared';
import {
  ACTIVITY_WRITE_MS,
  absoluteEnd,
  activityWriteDue,
  expiryAfterActivity,
  expiryAt,
  recentlyAuthenticated,
} from './session-lifetime.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T = Date.parse('2026-03-01T00:00:00.000Z');
const normal = { createdAt: T, rememberMe: false };
const remembered = { createdAt: T, rememberMe: true };

describe('session lifetimes', () => {
  it('keeps the ASVS L2 numbers: 7 days, 30 days with remember-me, 12 h idle, 5 min step-up', () => {
    expect(SESSION_MAX_AGE_MS).toBe(7 * DAY);
    expect(REMEMBER_ME_MS).toBe(30 * DAY);
    expect(SESSION_IDLE_MS).toBe(12 * HOUR);
    expect(REAUTH_WINDOW_MS).toBe(5 * 60_000);
  });

  it.each([
    ['a new session', normal, T, T + 12 * HOUR],
    ['a new remember-me session', remembered, T, T + 30 * DAY],
    ['activity on day 3', normal, T + 3 * DAY, T + 3 * DAY + 12 * HOUR],
    ['activity 2 h before the absolute end', normal, T + 7 * DAY - 2 * HOUR, T + 7 * DAY],
  ])('%s ends at the earlier of the idle timeout and the absolute end', (_, session, now, end) => {
    expect(expiryAt(session, now)).toBe(end);
    expect(expiryAt(session, now)).toBeLessThanOrEqual(absoluteEnd(session));
  });

  it('never moves a remember-me session’s end, not even back up to its absolute end', () => {
    expect(expiryAfterActivity({ ...remembered, expiresAt: T + DAY }, T + HOUR)).toBe(T + DAY);
    expect(expiryAfterActivity({ ...remembered, expiresAt: T + 40 * DAY }, T)).toBe(T + 30 * DAY);
  });

  it.each([
    // [what, session, now, activity, due]
    ['a background request', { expiresAt: T, lastSeenAt: T - HOUR }, T + HOUR, false, false],
    [
      'activity within a minute',
      { expiresAt: T + 12 * HOUR, lastSeenAt: T },
      T + 59_000,
      true,
      false,
    ],
    [
      'activity after a minute',
      { expiresAt: T + 12 * HOUR, lastSeenAt: T },
      T + 61_000,
      true,
      true,
    ],
    [
      'activity after heartbeats kept it seen',
      { expiresAt: T + 12 * HOUR, lastSeenAt: T + 2 * HOUR },
      T + 2 * HOUR,
      true,
      true,
    ],
    [
      'activity at the absolute end, just seen',
      { expiresAt: T + 7 * DAY, lastSeenAt: T + 7 * DAY - 1_000 },
      T + 7 * DAY - 500,
      true,
      false,
    ],
  ])('%s: write due %#', (_, times, now, activity, due) => {
    expect(activityWriteDue({ ...normal, ...times }, now, activity)).toBe(due);
  });

  it('writes a remember-me session for its last-seen time only', () => {
    const session = { ...remembered, expiresAt: T + 30 * DAY, lastSeenAt: T };
    expect(activityWriteDue(session, T + ACTIVITY_WRITE_MS, true)).toBe(false);
    expect(activityWriteDue(session, T + ACTIVITY_WRITE_MS + 1, true)).toBe(true);
  });

  it.each([
    [null, T, false],
    ['not a date', T, false],
    [new Date(T).toISOString(), T, true],
    [new Date(T).toISOString(), T + REAUTH_WINDOW_MS, true],
    [new Date(T).toISOString(), T + REAUTH_WINDOW_MS + 1, false],
    // Another node's clock a moment ahead is no reason to ask again.
    [new Date(T + 500).toISOString(), T, true],
  ])('a proof given at %s covers %s: %s', (at, now, covered) => {
    expect(recentlyAuthenticated(at, now)).toBe(covered);
  });
});
