import {
  X_BUDGET_CUT_PERCENT,
  X_BUDGET_KINDS,
  estimateHandleMonth,
  type XBudgetKind,
  type XMetricRefreshPreset as MetricRefreshPreset,
  type XRateStatus,
  type XReadTotals,
  type XUsageHandle,
  type XUsageSummary,
} from '@perch/shared';
import type { BilledRead, RateStatus } from '../../domain/tweet-source.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { readXApiStatus } from './x-api-status.repository.js';
import {
  countBilledReads,
  countBilledReadsByHandle,
  insertBilledReads,
  type DayRange,
  type HandleKindCountRow,
  type KindCounts,
} from './x-usage.repository.js';

/** USD per billed read of each kind. */
export interface XReadPrices {
  postReadUsd: number;
  userReadUsd: number;
}

export interface XUsageLogger {
  warn(obj: object, msg: string): void;
}

export interface XUsageMeterOptions {
  db: Db;
  prices: XReadPrices;
  /** X_DAILY_SPEND_LIMIT_USD; undefined: no limit. */
  dailyLimitUsd?: number;
  /** X_METRIC_REFRESH, for the summary's cost estimate (default standard). */
  metricRefresh?: MetricRefreshPreset;
  /** Clock (tests pin it). */
  now?: () => Date;
  log?: XUsageLogger;
}

export interface XUsageSummaryExtra {
  /** The source's rate limits; null when no collector runs here. */
  rateStatus: RateStatus | null;
  source: 'demo' | 'x-api' | 'x-web';
}

/** Today's spend read from the database is trusted this long: other processes record too. */
const SPENT_CACHE_MS = 5_000;
/** Projections need this much of the month behind them; earlier ones would be absurd. */
const MIN_PROJECTION_ELAPSED_MS = 60 * 60_000;
const MICROS_PER_USD = 1_000_000;

// Money is counted in whole micro-dollars, so sums and comparisons are exact; USD is made only
// for the answer.
const toMicros = (usd: number) => Math.round(usd * MICROS_PER_USD);
const toUsd = (micros: number) => micros / MICROS_PER_USD;

/** The UTC day of an instant, YYYY-MM-DD. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The next 00:00 UTC after `at`, ISO-8601. */
export function nextUtcMidnight(at: Date): string {
  return new Date(
    Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1),
  ).toISOString();
}

/**
 * This month's cost carried on at the pace so far: the month's micro-dollars divided by the share
 * of the month gone, the share measured in ms from 00:00 UTC on the 1st to `at`, and counted as
 * at least one hour so the first minutes of a month do not project absurd sums.
 */
export function projectMonthMicros(monthMicros: number, at: Date): number {
  const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
  const end = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  const elapsed = Math.min(end - start, Math.max(MIN_PROJECTION_ELAPSED_MS, at.getTime() - start));
  return Math.round((monthMicros * (end - start)) / elapsed);
}

/** Whether a kind of work may run after `spentMicros` today under `limitMicros` (null: none). */
function allowedAt(kind: XBudgetKind, spentMicros: number, limitMicros: number | null): boolean {
  if (limitMicros === null) return true;
  return spentMicros * 100 < limitMicros * X_BUDGET_CUT_PERCENT[kind];
}

function cutKinds(spentMicros: number, limitMicros: number | null): XBudgetKind[] {
  return X_BUDGET_KINDS.filter((kind) => !allowedAt(kind, spentMicros, limitMicros));
}

/**
 * The preset and what a typical handle (10 posts a day) costs a month under it: the schedule's
 * model (estimateHandleMonth), at the micro-dollar prices the meter bills with.
 */
function metricRefreshSummary(
  preset: MetricRefreshPreset,
  postMicros: number,
  userMicros: number,
): XUsageSummary['metric_refresh'] {
  const estimate = estimateHandleMonth(preset, {
    postReadUsd: toUsd(postMicros),
    userReadUsd: toUsd(userMicros),
  });
  return {
    preset,
    typical_handle: {
      posts_per_day: estimate.postsPerDay,
      post_reads_per_day: estimate.postReadsPerDay,
      user_reads_per_day: estimate.userReadsPerDay,
      month_usd: toUsd(toMicros(estimate.usd)),
    },
  };
}

function emptyTotals(): XReadTotals {
  return { post_reads: 0, user_reads: 0, usd: 0 };
}

function toRateStatus(status: RateStatus): XRateStatus {
  return {
    endpoints: status.endpoints.map(({ endpoint, limit, remaining, resetAt }) => ({
      endpoint,
      limit,
      remaining,
      resetAt,
    })),
    app_day: status.appDay,
  };
}

/**
 * The cost meter of the X API (pay-per-use: each post and user billed once per UTC day). Records
 * what the source's responses carried, knows today's spend, and says which work the daily limit
 * still allows: metric refreshes stop at 80% of it, backfills at 90%, new tweets at 100%, until
 * 00:00 UTC. Several processes may record into the same table; each reads the others' reads
 * back within 5 s.
 */
export class XUsageMeter {
  private readonly db: Db;
  private readonly postMicros: number;
  private readonly userMicros: number;
  private readonly limitMicros: number | null;
  private readonly metricRefresh: MetricRefreshPreset;
  private readonly now: () => Date;
  private log: XUsageLogger | undefined;
  /** Today's spend as last read from the database; dropped by every record. */
  private spent: { day: string; micros: number; readAt: number } | null = null;
  /** Bumped by every record, so a read racing a record does not become the cache. */
  private recordings = 0;

  constructor(options: XUsageMeterOptions) {
    this.db = options.db;
    this.postMicros = toMicros(options.prices.postReadUsd);
    this.userMicros = toMicros(options.prices.userReadUsd);
    this.limitMicros = options.dailyLimitUsd === undefined ? null : toMicros(options.dailyLimitUsd);
    this.metricRefresh = options.metricRefresh ?? 'standard';
    this.now = options.now ?? (() => new Date());
    this.log = options.log;
  }

  /** Logs through `log` from now on (the app's logger exists only after the meter). */
  useLogger(log: XUsageLogger): void {
    this.log = log;
  }

  /**
   * Records the billed reads of a response (the source's BilledReadsListener). Never throws: a
   * meter that cannot write must not stop collection, so failures are logged.
   */
  async record(reads: BilledRead[]): Promise<void> {
    if (reads.length === 0) return;
    const at = this.now();
    try {
      await insertBilledReads(this.db.db, {
        day: utcDay(at),
        readAt: at.toISOString(),
        reads: reads.map((read) => ({
          kind: read.kind,
          resourceId: read.id,
          ownerXUserId: read.ownerXUserId,
        })),
      });
    } catch (error) {
      this.log?.warn({ err: error, reads: reads.length }, 'could not record billed X reads');
    } finally {
      // Even a failed batch may have written some rows: today's spend is read again.
      this.recordings += 1;
      this.spent = null;
    }
  }

  /**
   * Today's (UTC) spend in USD, from the database: an answer is reused for at most 5 s (other
   * processes record into the same table), and not at all after this meter recorded.
   */
  async spentTodayUsd(): Promise<number> {
    return toUsd(await this.spentTodayMicros());
  }

  /**
   * Whether the daily limit still allows a kind of work: always without a limit; otherwise
   * metric refreshes while today's spend is under 80% of it, backfills under 90%, new-tweet
   * polls under 100%.
   */
  async allows(kind: XBudgetKind): Promise<boolean> {
    if (this.limitMicros === null) return true;
    return allowedAt(kind, await this.spentTodayMicros(), this.limitMicros);
  }

  /** When the daily budget starts again: the next 00:00 UTC, ISO-8601. */
  resumesAt(): string {
    return nextUtcMidnight(this.now());
  }

  /** Everything the admin usage card shows, read from the database now. */
  async summary(extra: XUsageSummaryExtra): Promise<XUsageSummary> {
    const at = this.now();
    const day = utcDay(at);
    const today: DayRange = { from: day, to: day };
    const month: DayRange = { from: `${day.slice(0, 7)}-01`, to: day };
    const [todayCounts, monthCounts, todayByHandle, monthByHandle, credentials] = await Promise.all(
      [
        countBilledReads(this.db.db, today),
        countBilledReads(this.db.db, month),
        countBilledReadsByHandle(this.db.db, today),
        countBilledReadsByHandle(this.db.db, month),
        readXApiStatus(this.db.db),
      ],
    );
    const todayMicros = this.costOf(todayCounts);
    const monthMicros = this.costOf(monthCounts);
    const cut = cutKinds(todayMicros, this.limitMicros);
    return {
      source: extra.source,
      generated_at: at.toISOString(),
      today: { day, ...this.totals(todayCounts) },
      month: {
        month: day.slice(0, 7),
        ...this.totals(monthCounts),
        projected_usd: toUsd(projectMonthMicros(monthMicros, at)),
      },
      handles: this.byHandle(todayByHandle, monthByHandle),
      prices: { post_read_usd: toUsd(this.postMicros), user_read_usd: toUsd(this.userMicros) },
      budget: {
        daily_limit_usd: this.limitMicros === null ? null : toUsd(this.limitMicros),
        paused: cut.includes('poll'),
        cut,
        resumes_at: nextUtcMidnight(at),
      },
      credentials: {
        state: credentials.state,
        detail: credentials.detail,
        since: credentials.since,
        next_probe_at: credentials.next_probe_at,
      },
      rate_status: extra.rateStatus ? toRateStatus(extra.rateStatus) : null,
      metric_refresh: metricRefreshSummary(this.metricRefresh, this.postMicros, this.userMicros),
    };
  }

  private async spentTodayMicros(): Promise<number> {
    const at = this.now();
    const day = utcDay(at);
    const cached = this.spent;
    if (cached?.day === day && at.getTime() - cached.readAt < SPENT_CACHE_MS) return cached.micros;
    const recordingsBefore = this.recordings;
    const micros = this.costOf(await countBilledReads(this.db.db, { from: day, to: day }));
    // A record that ran meanwhile may or may not be in this read: the next call reads again.
    if (this.recordings === recordingsBefore) this.spent = { day, micros, readAt: at.getTime() };
    return micros;
  }

  private costOf(counts: KindCounts): number {
    return counts.post * this.postMicros + counts.user * this.userMicros;
  }

  private totals(counts: KindCounts): XReadTotals {
    return { post_reads: counts.post, user_reads: counts.user, usd: toUsd(this.costOf(counts)) };
  }

  /** Today's and this month's reads of each handle, the most expensive this month first. */
  private byHandle(today: HandleKindCountRow[], month: HandleKindCountRow[]): XUsageHandle[] {
    const handles = new Map<
      number | null,
      { handle: string | null; today: KindCounts; month: KindCounts }
    >();
    const add = (rows: HandleKindCountRow[], period: 'today' | 'month') => {
      for (const row of rows) {
        let entry = handles.get(row.handle_id);
        if (!entry) {
          entry = {
            handle: row.username,
            today: { post: 0, user: 0 },
            month: { post: 0, user: 0 },
          };
          handles.set(row.handle_id, entry);
        }
        entry[period][row.kind] += row.count;
      }
    };
    add(today, 'today');
    add(month, 'month');
    return [...handles]
      .map(([handleId, entry]) => ({
        handle_id: handleId,
        handle: entry.handle,
        monthMicros: this.costOf(entry.month),
        todayMicros: this.costOf(entry.today),
        today: this.totals(entry.today),
        month: this.totals(entry.month),
      }))
      .sort(
        (a, b) =>
          b.monthMicros - a.monthMicros ||
          b.todayMicros - a.todayMicros ||
          (a.handle ?? '\uffff').localeCompare(b.handle ?? '\uffff'),
      )
      .map(({ handle_id, handle, today: todayTotals, month: monthTotals }) => ({
        handle_id,
        handle,
        today: todayTotals,
        month: monthTotals,
      }));
  }
}

/**
 * A meter with the prices, daily limit and metric preset of the config (X_PRICE_*,
 * X_DAILY_SPEND_LIMIT_USD, X_METRIC_REFRESH).
 */
export function createXUsageMeter(
  db: Db,
  config: Pick<
    Config,
    | 'X_PRICE_POST_READ_USD'
    | 'X_PRICE_USER_READ_USD'
    | 'X_DAILY_SPEND_LIMIT_USD'
    | 'X_METRIC_REFRESH'
  >,
  options: Pick<XUsageMeterOptions, 'now' | 'log'> = {},
): XUsageMeter {
  return new XUsageMeter({
    db,
    prices: {
      postReadUsd: config.X_PRICE_POST_READ_USD,
      userReadUsd: config.X_PRICE_USER_READ_USD,
    },
    dailyLimitUsd: config.X_DAILY_SPEND_LIMIT_USD,
    metricRefresh: config.X_METRIC_REFRESH,
    ...options,
  });
}

/**
 * The usage of a server that does not read from X (the demo source): the same shape, with no
 * reads, the configured prices and limit, and nothing cut.
 */
export function idleXUsageSummary(
  config: Pick<
    Config,
    | 'X_PRICE_POST_READ_USD'
    | 'X_PRICE_USER_READ_USD'
    | 'X_DAILY_SPEND_LIMIT_USD'
    | 'X_METRIC_REFRESH'
  >,
  at: Date = new Date(),
): XUsageSummary {
  const day = utcDay(at);
  return {
    source: 'demo',
    generated_at: at.toISOString(),
    today: { day, ...emptyTotals() },
    month: { month: day.slice(0, 7), ...emptyTotals(), projected_usd: 0 },
    handles: [],
    prices: {
      post_read_usd: toUsd(toMicros(config.X_PRICE_POST_READ_USD)),
      user_read_usd: toUsd(toMicros(config.X_PRICE_USER_READ_USD)),
    },
    budget: {
      daily_limit_usd:
        config.X_DAILY_SPEND_LIMIT_USD === undefined
          ? null
          : toUsd(toMicros(config.X_DAILY_SPEND_LIMIT_USD)),
      paused: false,
      cut: [],
      resumes_at: nextUtcMidnight(at),
    },
    credentials: { state: 'ok', detail: null, since: null, next_probe_at: null },
    rate_status: null,
    metric_refresh: metricRefreshSummary(
      config.X_METRIC_REFRESH,
      toMicros(config.X_PRICE_POST_READ_USD),
      toMicros(config.X_PRICE_USER_READ_USD),
    ),
  };
}

/**
 * The usage of a server on the x-web source: nothing is billed, so the reads are zeros; the
 * pool's limits (summed over its usable accounts) and whether any account can collect (the
 * credentials state the collector records) are what the Admin page shows.
 */
export async function xWebUsageSummary(
  config: Parameters<typeof idleXUsageSummary>[0],
  db: Db,
  rateStatus: RateStatus | null,
  at: Date = new Date(),
): Promise<XUsageSummary> {
  const credentials = await readXApiStatus(db.db);
  return {
    ...idleXUsageSummary(config, at),
    source: 'x-web',
    credentials: {
      state: credentials.state,
      detail: credentials.detail,
      since: credentials.since,
      next_probe_at: credentials.next_probe_at,
    },
    rate_status: rateStatus ? toRateStatus(rateStatus) : null,
  };
}
