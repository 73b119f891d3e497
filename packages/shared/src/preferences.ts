/**
 * Client preferences (docs/spec-notes.md, Entities): the per-browser settings of the
 * web app and the numbers behind them. Dark mode is persisted by the theme, not here.
 */

/** Client log levels, quietest last. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The background refresh intervals a person can pick: 15 s, 30 s, 1 min, 2 min and 5 min. */
export const REFRESH_INTERVAL_CHOICES_MS = [15_000, 30_000, 60_000, 120_000, 300_000] as const;
export type RefreshIntervalMs = (typeof REFRESH_INTERVAL_CHOICES_MS)[number];

/** Defaults of the client preferences. */
export const PREFERENCE_DEFAULTS = {
  autoRefresh: true,
  refreshInterval: 30_000,
  showNotifications: true,
  soundEnabled: false,
  compactMode: false,
  logLevel: 'info',
  performanceMonitoring: false,
} as const satisfies {
  autoRefresh: boolean;
  refreshInterval: RefreshIntervalMs;
  showNotifications: boolean;
  soundEnabled: boolean;
  compactMode: boolean;
  logLevel: LogLevel;
  performanceMonitoring: boolean;
};

/** With performance monitoring on, renders slower than this are logged. */
export const SLOW_RENDER_THRESHOLD_MS = 16;

/** Alerts for the same thing inside this window collapse into one. */
export const DUPLICATE_NOTIFICATION_WINDOW_MS = 2_000;
