/**
 * How long a session lives, and what keeps it alive (OWASP ASVS 4.0 3.3; docs/decisions.md):
 *
 * 1. Absolute lifetime from sign-in: REMEMBER_ME_MS (30 days) with remember-me, else
 *    SESSION_MAX_AGE_MS (7 days). Nothing extends it; a new sign-in is a new session.
 * 2. Idle timeout, without remember-me only: SESSION_IDLE_MS (12 h) after the person's last own
 *    request. Remember-me asked to stay signed in on this device, so only rule 1 ends it.
 * 3. The person's own requests are the ones that extend rule 2. The heartbeat of an open tab, the
 *    live stream a browser reopens by itself and requests the web app marks as background (sent
 *    while nobody used the page) do not: a tab left open ends like a closed one.
 * 4. `expires_at` holds the end under rules 1 and 2, so every query of live sessions reads one
 *    column. It is written at most about once a minute (ACTIVITY_WRITE_MS), not on every request.
 * 5. Step-up: a sensitive change wants the password or a two-factor code given within
 *    REAUTH_WINDOW_MS (5 min), at sign-in or with POST /auth/reauthenticate.
 */
import {
  REAUTH_WINDOW_MS,
  REMEMBER_ME_MS,
  SESSION_IDLE_MS,
  SESSION_MAX_AGE_MS,
} from '@perch/shared';

/** A write of `expires_at`/`last_seen_at` per minute at most: reads stay reads. */
export const ACTIVITY_WRITE_MS = 60_000;

/** What the rules read of a session; times in ms since the epoch. */
export interface SessionClock {
  createdAt: number;
  rememberMe: boolean;
}

/** The moment rule 1 ends the session, whatever happens. */
export function absoluteEnd(session: SessionClock): number {
  return session.createdAt + (session.rememberMe ? REMEMBER_ME_MS : SESSION_MAX_AGE_MS);
}

/** `expires_at` of a session opened (or given a new id) at `now` (rules 1 and 2). */
export function expiryAt(session: SessionClock, now: number): number {
  const end = absoluteEnd(session);
  return session.rememberMe ? end : Math.min(now + SESSION_IDLE_MS, end);
}

/**
 * `expires_at` after the person's own request at `now`: moved by rule 2, never past rule 1. A
 * remember-me session keeps the end it has.
 */
export function expiryAfterActivity(
  session: SessionClock & { expiresAt: number },
  now: number,
): number {
  return session.rememberMe
    ? Math.min(session.expiresAt, absoluteEnd(session))
    : expiryAt(session, now);
}

/**
 * Whether a request at `now` should write the session: only the person's own (`activity`), and
 * only when that moves its end or its last-seen time by more than ACTIVITY_WRITE_MS. The
 * heartbeat writes `last_seen_at` on its own (recordHeartbeat), which is why the end is compared
 * too: a session the heartbeat kept seen still gets its idle timeout moved.
 */
export function activityWriteDue(
  session: SessionClock & { expiresAt: number; lastSeenAt: number },
  now: number,
  activity: boolean,
): boolean {
  if (!activity) return false;
  return (
    expiryAfterActivity(session, now) - session.expiresAt > ACTIVITY_WRITE_MS ||
    now - session.lastSeenAt > ACTIVITY_WRITE_MS
  );
}

/** Rule 5: whether a proof given at `authenticatedAt` (ISO, or none) still covers `now`. */
export function recentlyAuthenticated(authenticatedAt: string | null, now: number): boolean {
  if (authenticatedAt === null) return false;
  const at = Date.parse(authenticatedAt);
  return Number.isFinite(at) && now - at <= REAUTH_WINDOW_MS;
}
