import type { LogLevel } from '@perch/shared';
import { preferencesStore } from './preferences/preferences';

/** Levels by rank: a message is written when its rank reaches the chosen level's. */
const LEVEL_RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Every line of the client's console output starts with this. */
export const LOG_PREFIX = '[perch]';

export type LogMethod = (message: string, ...details: unknown[]) => void;

export type Logger = Readonly<Record<LogLevel, LogMethod>>;

/** True when a message at `level` passes the log level chosen in the preferences. */
export function isLogLevelEnabled(level: LogLevel): boolean {
  return LEVEL_RANK[level] >= LEVEL_RANK[preferencesStore.getSnapshot().logLevel];
}

function write(level: LogLevel, message: string, details: unknown[]): void {
  if (!isLogLevelEnabled(level)) return;
  console[level](`${LOG_PREFIX} ${message}`, ...details);
}

/**
 * The client logger: writes to the browser console, prefixed `[perch]`, dropping
 * messages below the log level of this browser's preferences (info by default, so debug is quiet).
 * The level is read at each call, so a change in Settings applies at once.
 */
export const logger: Logger = {
  debug: (message, ...details) => write('debug', message, details),
  info: (message, ...details) => write('info', message, details),
  warn: (message, ...details) => write('warn', message, details),
  error: (message, ...details) => write('error', message, details),
};
