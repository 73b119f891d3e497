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

/** Remember-me sessions live this long; others expire after the idle timeout. */
export const REMEMBER_ME_MS = 30 * 24 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

/** Client timings (docs/spec-notes.md, Timings). */
export const REQUEST_TIMEOUT_MS = 15_000;
export const REDIRECT_GUARD_MS = 5_000;
export const SESSION_REVALIDATION_MS = 30 * 60 * 1000;
export const LOGIN_REDIRECT_DELAY_MS = 300;
export const REGISTER_REDIRECT_DELAY_MS = 1_500;
export const LOGIN_ERROR_CLEAR_MS = 10_000;
export const HEARTBEAT_INTERVAL_MS = 15_000;

/** Names of the cookies and the CSRF header (docs/spec-notes.md, API conventions). */
export const SESSION_COOKIE = 'perch_session';
export const CSRF_COOKIE = 'perch_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** Roles an invitation can grant. */
export const ROLES = ['user', 'admin', 'superadmin'] as const;
export type Role = (typeof ROLES)[number];
