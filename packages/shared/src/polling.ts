/**
 * Client polling and resilience numbers (docs/spec-notes.md, Retries to Resilience, Health
 * checking): polling modes, adaptive growth, network quality, visibility and the health monitor.
 */

/** Polling modes (docs/spec-notes.md, Polling modes). */
export const POLLING_MODES = ['active', 'background', 'slow', 'minimal', 'offline'] as const;
export type PollingMode = (typeof POLLING_MODES)[number];

/** Speeds inside a mode, picked by how recent the user's last activity is. */
export const POLLING_SPEEDS = ['fast', 'normal', 'slow', 'idle'] as const;
export type PollingSpeed = (typeof POLLING_SPEEDS)[number];

/** Interval of each speed inside one polling mode. */
export type PollingIntervals = Readonly<Record<PollingSpeed, number>>;

/** Intervals per mode; offline does not poll. */
export const POLLING_INTERVALS_MS: Readonly<Record<PollingMode, PollingIntervals | null>> = {
  active: { fast: 2_000, normal: 5_000, slow: 15_000, idle: 30_000 },
  background: { fast: 10_000, normal: 30_000, slow: 60_000, idle: 120_000 },
  slow: { fast: 15_000, normal: 45_000, slow: 90_000, idle: 180_000 },
  minimal: { fast: 30_000, normal: 120_000, slow: 300_000, idle: 600_000 },
  offline: null,
};

/** Activity more recent than this polls fast. */
export const POLL_ACTIVITY_FAST_WITHIN_MS = 10_000;
/** Activity more recent than this polls at normal speed. */
export const POLL_ACTIVITY_NORMAL_WITHIN_MS = 60_000;
/** Activity more recent than this polls slowly; older activity is idle. */
export const POLL_ACTIVITY_SLOW_WITHIN_MS = 5 * 60_000;

/** Network quality ratings. */
export const NETWORK_QUALITIES = ['poor', 'slow', 'moderate', 'good'] as const;
export type NetworkQuality = (typeof NETWORK_QUALITIES)[number];

/** Interval multiplier per network quality. */
export const NETWORK_QUALITY_MULTIPLIERS: Readonly<Record<NetworkQuality, number>> = {
  poor: 3,
  slow: 2,
  moderate: 1,
  good: 0.8,
};

/** Poll priorities; a hidden page triples the interval from `normal` up. */
export const POLL_PRIORITIES = ['low', 'normal', 'high'] as const;
export type PollPriority = (typeof POLL_PRIORITIES)[number];

/**
 * Adaptive growth after unchanged polls, largest threshold first: 12x after 6,
 * 4x after 3, 2x after 1.
 */
export const POLL_UNCHANGED_GROWTH: readonly {
  readonly afterUnchanged: number;
  readonly factor: number;
}[] = [
  { afterUnchanged: 6, factor: 12 },
  { afterUnchanged: 3, factor: 4 },
  { afterUnchanged: 1, factor: 2 },
];
/** Adaptive growth never stretches an interval beyond this (the longest interval of the table). */
export const POLL_GROWTH_CAP_MS = 10 * 60_000;
/** A hidden page multiplies the interval of normal and high priority polls by this. */
export const POLL_HIDDEN_PAGE_FACTOR = 3;

/** Connectivity probe: HEAD /health every 30 s with a 5 s timeout. */
export const NETWORK_PROBE_INTERVAL_MS = 30_000;
export const NETWORK_PROBE_TIMEOUT_MS = 5_000;
/** Probe results kept for the quality rating. */
export const NETWORK_PROBE_HISTORY = 10;
/** Reliability below this share of successful probes is poor. */
export const NETWORK_POOR_RELIABILITY_BELOW = 0.5;
/** Average latency above this is poor. */
export const NETWORK_POOR_LATENCY_ABOVE_MS = 5_000;
/** Reliability below this share of successful probes is slow. */
export const NETWORK_SLOW_RELIABILITY_BELOW = 0.8;
/** Average latency above this is slow. */
export const NETWORK_SLOW_LATENCY_ABOVE_MS = 2_000;
/** Average latency above this is moderate; anything better is good. */
export const NETWORK_MODERATE_LATENCY_ABOVE_MS = 1_000;

/** Hidden longer than this is hibernation: every query is invalidated on return. */
export const VISIBILITY_HIBERNATION_AFTER_MS = 30_000;
/** Hidden longer than this refreshes the stale active queries on return. */
export const VISIBILITY_REFRESH_STALE_AFTER_MS = 5_000;
/** Background longer than this is logged. */
export const VISIBILITY_BACKGROUND_LOG_AFTER_MS = 5 * 60_000;
/** Background longer than this cancels every query. */
export const VISIBILITY_BACKGROUND_CANCEL_AFTER_MS = 10 * 60_000;
/** How often a hidden page's background time is checked. */
export const VISIBILITY_CHECK_INTERVAL_MS = 60_000;
/** After a reconnect, failed queries with fewer errors than this are fetched again. */
export const RECONNECT_REFETCH_MAX_FAILURES = 3;
/** The refetch after a reconnect waits a random delay between these bounds. */
export const RECONNECT_REFETCH_MIN_DELAY_MS = 1_000;
export const RECONNECT_REFETCH_MAX_DELAY_MS = 3_000;

/**
 * Health checking (docs/spec-notes.md): checked at once and then every 30 s; a check within 5 s
 * of the last answer gets that answer unless forced; a caller waiting for a running check gives up
 * after 10 s. The check runs at once when the app starts rather than the 1 s after of one old
 * client: nothing is gained by the wait.
 */
export const HEALTH_MONITOR_COOLDOWN_MS = 5_000;
export const HEALTH_MONITOR_INTERVAL_MS = 30_000;
export const HEALTH_MONITOR_WAIT_TIMEOUT_MS = 10_000;
/** Texts of health checking. */
export const HEALTH_MONITOR_MESSAGES = {
  waitTimeout: 'Health check timeout',
  unreachable: 'Could not connect to API',
} as const;
