/**
 * Every interval at which the dashboard fetches something again, in one place: what polls, how
 * often, and why that number. Queries and hooks import their interval from here.
 *
 * Numbers that are part of a contract or that the shared spec tests pin live in `@perch/shared`
 * and are re-exported here, so this file is still the one list to read. Two things stretch or
 * stop these intervals at run time and are not repeated here:
 * - the polling engine's modes, speeds, network-quality multipliers and adaptive growth
 *   (`packages/shared/src/polling.ts`, applied by `poll-gate.ts` beside this file), and
 * - the person's own refresh interval (Settings, Preferences; `backgroundRefreshMs()` of
 *   `@/lib/preferences/preferences`), which paces data that is not being collected right now.
 * docs/resilience-numbers.md has the table of the polling engine's numbers.
 */

/* Handles and collection progress (sidebar, handle panel, demo panel). */

/**
 * The handle list while any handle is collecting: 3 s, so a new handle's status and tweet count
 * move visibly while its backfill runs.
 */
export const HANDLES_POLL_COLLECTING_MS = 3_000;
/** The handle list otherwise, in the demo's simple client: 30 s, the default refresh interval. */
export const HANDLES_POLL_IDLE_MS = 30_000;
/** A collecting handle's backfill progress: 2 s, so the progress bar moves smoothly. */
export const PROGRESS_POLL_MS = 2_000;
/** The demo panel's progress poll when nothing happens: 10 s, a handle rarely starts by itself. */
export const DEMO_PROGRESS_POLL_IDLE_MS = 10_000;

/* Analytics. */

/**
 * The analytics payload while its handle is still being collected: 5 s, so the charts fill in
 * while the backfill runs without asking the server for its cached payload every second.
 */
export const ANALYTICS_COLLECTING_POLL_MS = 5_000;

/* Admin page (each only while the page is visible). */

/** The collectors table: 10 s, processes start, pause and fail while collection runs. */
export const PROCESSES_POLL_MS = 10_000;
/** The x-web account pool: 30 s, its limits and statuses change as collection runs. */
export const X_WEB_ACCOUNTS_POLL_MS = 30_000;
/**
 * X API usage card (`X_USAGE_POLL_MS`, 30 s) and the X login challenge (`CHALLENGE_POLL_MS`,
 * 30 s; `CHALLENGE_REFETCH_AFTER_SUBMIT_MS`, 5 s while a submitted code is being checked): in the
 * shared admin and x-usage contracts.
 */
export {
  CHALLENGE_POLL_MS,
  CHALLENGE_REFETCH_AFTER_SUBMIT_MS,
  X_USAGE_POLL_MS,
} from '@perch/shared';

/* Settings page. */

/** The delivery log: 10 s while the page is open, so new deliveries and retries show up. */
export const DELIVERY_LOG_POLL_MS = 10_000;
/**
 * Settings while a Telegram link waits for the person to press Start in the bot
 * (`SETTINGS_FETCH_MIN_GAP_MS`, 5 s: also the least gap between two Settings fetches).
 */
export { SETTINGS_FETCH_MIN_GAP_MS } from '@perch/shared';

/* Alerts page. */

/**
 * The alert rules and the history of what fired: 60 s while the page is open (and again when
 * the window gets focus, as every query). The server sends no live event when an alert fires;
 * the alert itself goes out to Telegram, Discord or the webhooks at once, so the page only has
 * to catch up within a minute.
 */
export const ALERTS_POLL_MS = 60_000;

/* Security page and alerts. */

/** Sessions, login history, events, stats and the suspicious-activity alerts: 60 s. */
export { SECURITY_REFRESH_MS } from '@perch/shared';

/* The whole app. */

/**
 * The session check (`SESSION_REVALIDATION_MS`, 30 min: a revoked or expired session is noticed
 * without a request failing first), the health monitor (`HEALTH_MONITOR_INTERVAL_MS`, 30 s), the
 * connectivity probe (`NETWORK_PROBE_INTERVAL_MS`, 30 s), the hidden page's background check
 * (`VISIBILITY_CHECK_INTERVAL_MS`, 60 s) and the leader tab's heartbeat
 * (`HEARTBEAT_INTERVAL_MS`, 15 s).
 */
export {
  HEALTH_MONITOR_INTERVAL_MS,
  HEARTBEAT_INTERVAL_MS,
  NETWORK_PROBE_INTERVAL_MS,
  SESSION_REVALIDATION_MS,
  VISIBILITY_CHECK_INTERVAL_MS,
} from '@perch/shared';
