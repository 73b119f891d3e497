/**
 * How long each log-like table keeps its rows (docs/decisions.md, Retention). The rules: every
 * table that only grows (security log, sign-in attempts and ended sessions, finished deliveries,
 * billed X reads) has a setting in days; 0 keeps its rows for ever; a row older than its
 * setting is deleted by the daily clean-up (retention-job.ts). Waiting deliveries and live
 * sessions are never touched, whatever their age.
 */
import type { Config } from '../../config.js';

/** The tables the clean-up deletes from, in the order it does. */
export const RETAINED_TABLES = [
  'security_events',
  'login_attempts',
  'sessions',
  'notification_outbox',
  'x_billed_reads',
] as const;
export type RetainedTable = (typeof RETAINED_TABLES)[number];

/** Days each table keeps its rows (0: for ever). */
export type RetentionPolicy = Record<RetainedTable, number>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The policy the configuration sets. */
export function retentionPolicy(
  config: Pick<
    Config,
    | 'RETENTION_SECURITY_EVENTS_DAYS'
    | 'RETENTION_LOGIN_HISTORY_DAYS'
    | 'RETENTION_DELIVERY_LOG_DAYS'
    | 'RETENTION_X_BILLED_READS_DAYS'
  >,
): RetentionPolicy {
  return {
    security_events: config.RETENTION_SECURITY_EVENTS_DAYS,
    login_attempts: config.RETENTION_LOGIN_HISTORY_DAYS,
    // An ended session is part of the sign-in record; a live one is never deleted.
    sessions: config.RETENTION_LOGIN_HISTORY_DAYS,
    notification_outbox: config.RETENTION_DELIVERY_LOG_DAYS,
    x_billed_reads: config.RETENTION_X_BILLED_READS_DAYS,
  };
}

/** A table and the instant before which its rows go. */
export interface RetentionCutoff {
  table: RetainedTable;
  /** ISO-8601 UTC; billed reads compare its UTC day (YYYY-MM-DD) with theirs. */
  before: string;
}

/** What to delete at `now`: one cut-off per table that does not keep its rows for ever. */
export function retentionCutoffs(policy: RetentionPolicy, now: Date): RetentionCutoff[] {
  return RETAINED_TABLES.filter((table) => policy[table] > 0).map((table) => ({
    table,
    before: new Date(now.getTime() - policy[table] * DAY_MS).toISOString(),
  }));
}
