/** Business constants (docs/spec-notes.md, Limits and Timings), shared by server and web. */

/** Most handles one user may follow. */
export const MAX_HANDLES_PER_USER = 10;
/** Shortest password accepted at registration. */
export const PASSWORD_MIN_LENGTH = 8;
/** Username rule: 3-32 letters, digits, `_`, `.` or `-`. */
export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{3,32}$/;
/** The login user agent is cut to this many characters. */
export const DEVICE_INFO_MAX_LENGTH = 100;

/** Failed sign-ins allowed per (username, ip) inside the window before 429. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;

/**
 * Session lifetimes (OWASP ASVS 4.0 3.3, docs/decisions.md): a remember-me session ends 30 days
 * after sign-in; any other ends 7 days after sign-in, or after 12 h without the person's own
 * activity (background requests and the heartbeat do not count), whichever comes first.
 */
export const REMEMBER_ME_MS = 30 * 24 * 60 * 60 * 1000;
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/**
 * Sensitive changes (two-factor sign-in, notification channels) want the password or a
 * two-factor code given within this long: at sign-in or with POST /auth/reauthenticate.
 */
export const REAUTH_WINDOW_MS = 5 * 60 * 1000;
/**
 * Header the web app sends on requests made without the person (polls while nobody used the page
 * for a minute): they do not extend the session's idle timeout.
 */
export const BACKGROUND_REQUEST_HEADER = 'x-perch-background';

/** Client timings (docs/spec-notes.md, Timings). */
export const REQUEST_TIMEOUT_MS = 15_000;
export const REDIRECT_GUARD_MS = 5_000;
export const SESSION_REVALIDATION_MS = 30 * 60 * 1000;
export const LOGIN_REDIRECT_DELAY_MS = 300;
export const REGISTER_REDIRECT_DELAY_MS = 1_500;
export const LOGIN_ERROR_CLEAR_MS = 10_000;
export const HEARTBEAT_INTERVAL_MS = 15_000;

/**
 * How old computed analytics may be and still count as fresh, then recent (docs/spec-notes.md,
 * Timings: fresh under 1 h, recent under 24 h, else stale).
 */
export const ANALYTICS_FRESH_UNDER_MS = 60 * 60 * 1000;
export const ANALYTICS_RECENT_UNDER_MS = 24 * 60 * 60 * 1000;

/** Names of the cookies and the CSRF header (docs/spec-notes.md, API conventions). */
export const SESSION_COOKIE = 'perch_session';
export const CSRF_COOKIE = 'perch_csrf';
export const CSRF_HEADER = 'x-csrf-token';
/**
 * With COOKIE_SECURE=true the session and CSRF cookies carry this prefix: the browser then keeps
 * them only if Secure, Path=/ and without Domain, so no other host (a sibling subdomain) can set
 * or replace them.
 */
export const HOST_COOKIE_PREFIX = '__Host-';

/** The session and CSRF cookie names of a server with or without COOKIE_SECURE. */
export function authCookieNames(secure: boolean): { session: string; csrf: string } {
  const prefix = secure ? HOST_COOKIE_PREFIX : '';
  return { session: `${prefix}${SESSION_COOKIE}`, csrf: `${prefix}${CSRF_COOKIE}` };
}

/** Where a page finds the CSRF token, whichever way the server runs: the prefixed name first. */
export const CSRF_COOKIE_NAMES = [`${HOST_COOKIE_PREFIX}${CSRF_COOKIE}`, CSRF_COOKIE] as const;

/** Roles an invitation can grant. */
export const ROLES = ['user', 'admin', 'superadmin'] as const;
export type Role = (typeof ROLES)[number];

/** Most alert rules one user may keep (all handles together). */
export const ALERT_RULES_PER_USER = 50;
/**
 * A handle rule (follower change, silence) that fired stays quiet this long, even when its
 * condition clears and comes back in between.
 */
export const ALERT_HANDLE_COOLDOWN_HOURS = 24;
