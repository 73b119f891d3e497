import { z } from 'zod';
import { rateBudgetSchema } from './admin.js';

/**
 * What the X API costs (ours; X bills pay-per-use since 2026): every post and user a response
 * carries is billed once per UTC day. GET /admin/x-usage answers today's and this month's reads
 * and their cost, per handle too, the daily budget and what it cuts, the state of the X
 * credentials and the rate limits left per endpoint.
 */

/** The kinds of collection work the daily budget cuts, in the order they are cut. */
export const X_BUDGET_KINDS = ['metrics', 'backfill', 'poll'] as const;
export type XBudgetKind = (typeof X_BUDGET_KINDS)[number];

/**
 * Each kind runs while today's spend is below this percent of X_DAILY_SPEND_LIMIT_USD: metric
 * refreshes stop first, then backfills, and new tweets last.
 */
export const X_BUDGET_CUT_PERCENT: Readonly<Record<XBudgetKind, number>> = {
  metrics: 80,
  backfill: 90,
  poll: 100,
};

/** How each kind of work reads in the usage card. */
export const X_BUDGET_KIND_LABELS: Readonly<Record<XBudgetKind, string>> = {
  metrics: 'Metric refresh',
  backfill: 'Backfill',
  poll: 'New tweets',
};

/**
 * X_METRIC_REFRESH: when posts' metrics are read again. `standard` re-reads at 1, 3, 6, 24 and
 * 72 h after posting (each post billed on three UTC days); `economy` keeps only the readings on
 * the post's creation UTC day (each post billed once; velocity keeps its 1, 3 and 6 h readings
 * whenever they fall before 00:00 UTC).
 */
export const X_METRIC_REFRESH_PRESETS = ['standard', 'economy'] as const;
export type XMetricRefreshPreset = (typeof X_METRIC_REFRESH_PRESETS)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Ages (ms after posting) at which metrics are read: 1 h, 3 h, 6 h, 24 h and 72 h. */
export const METRIC_READ_AGES_MS: readonly number[] = [1, 3, 6, 24, 72].map((h) => h * HOUR_MS);

/** The first instant (epoch ms) of the UTC day after the one holding `ms`. */
const nextUtcMidnightMs = (ms: number) => (Math.floor(ms / DAY_MS) + 1) * DAY_MS;

/**
 * The ages (ms after posting) at which a post created at `createdMs` is read under `preset`:
 * all of METRIC_READ_AGES_MS, or for `economy` those before the end of its creation UTC day.
 */
export function metricReadAgesMs(preset: XMetricRefreshPreset, createdMs: number): number[] {
  if (preset === 'standard') return [...METRIC_READ_AGES_MS];
  const dayEnd = nextUtcMidnightMs(createdMs);
  return METRIC_READ_AGES_MS.filter((age) => createdMs + age < dayEnd);
}

/** How many posts a typical handle publishes a day (the bench's and the Admin card's model). */
export const TYPICAL_POSTS_PER_DAY = 10;
/** Days of a month in the cost estimates (as bench:x-budget counts them). */
export const MONTH_DAYS = 30;

/**
 * The mean number of UTC days on which X bills a post under `preset`: the day it is first seen
 * (taken as its creation instant, which a poll every minute comes close to) and every other day
 * one of its readings falls on, averaged over creation instants spread evenly over a UTC day
 * (`samples` of them). 3 for `standard` (days 0, 1 and 3 of its life), 1 for `economy`.
 */
export function billedDaysPerPost(preset: XMetricRefreshPreset, samples = 1_440): number {
  let total = 0;
  for (let i = 0; i < samples; i += 1) {
    const created = Math.floor((i * DAY_MS) / samples);
    const days = new Set([Math.floor(created / DAY_MS)]);
    for (const age of metricReadAgesMs(preset, created)) {
      days.add(Math.floor((created + age) / DAY_MS));
    }
    total += days.size;
  }
  return total / samples;
}

export interface HandleMonthEstimate {
  /** Posts the modelled handle publishes a day. */
  postsPerDay: number;
  /** Billed post reads a day: postsPerDay x billedDaysPerPost(preset). */
  postReadsPerDay: number;
  /** Billed user reads a day: the profile, billed once per UTC day however often it is read. */
  userReadsPerDay: number;
  /** MONTH_DAYS x (post reads x post price + user reads x user price). */
  usd: number;
}

/**
 * What one handle posting `postsPerDay` a day (original posts, evenly spread) costs in X reads
 * for a month of MONTH_DAYS under `preset` at the given prices. A model, not a measurement:
 * bench:x-budget checks it against what the fake X bills the real collector.
 */
export function estimateHandleMonth(
  preset: XMetricRefreshPreset,
  prices: { postReadUsd: number; userReadUsd: number },
  postsPerDay = TYPICAL_POSTS_PER_DAY,
): HandleMonthEstimate {
  const postReadsPerDay = postsPerDay * billedDaysPerPost(preset);
  const userReadsPerDay = 1;
  const perDay = postReadsPerDay * prices.postReadUsd + userReadsPerDay * prices.userReadUsd;
  return {
    postsPerDay,
    postReadsPerDay,
    userReadsPerDay,
    usd: Math.round(MONTH_DAYS * perDay * 1_000_000) / 1_000_000,
  };
}

/** How each preset reads in the usage card. */
export const X_METRIC_REFRESH_LABELS: Readonly<Record<XMetricRefreshPreset, string>> = {
  standard: 'Standard (re-reads at 1, 3, 6, 24 and 72 h)',
  economy: 'Economy (re-reads on the posting day only)',
};

/** 'ok'; 'auth': X refused the credentials (401/403); 'credits': the balance is gone (402). */
export const X_API_STATES = ['ok', 'auth', 'credits'] as const;
export type XCredentialsState = (typeof X_API_STATES)[number];

/** The usage card is fetched again this often while the admin page is visible. */
export const X_USAGE_POLL_MS = 30_000;

/** Every human text of X usage; server and web show the same words. */
export const X_USAGE_MESSAGES = {
  budgetPaused: 'Paused: daily X API budget reached (resumes 00:00 UTC)',
  credentialsWaiting: 'Waiting for X credentials',
  credentialsRefused:
    'X refused the API credentials (X_BEARER_TOKEN). Collection waits meanwhile; Perch checks again every 5 minutes and resumes by itself once they work.',
  creditsDepleted: 'X API credits are depleted: add credits in the X Developer Console',
  creditsDepletedDetail:
    'Collection waits meanwhile; Perch checks again every 5 minutes and resumes by itself once credits are there.',
  budgetCutting: (labels: string) =>
    `${labels} paused: the daily X API budget is nearly used (resumes 00:00 UTC)`,
  demoSource: 'The demo source does not use the X API',
  noReads: 'No X API reads yet today or this month.',
  noLimit: 'No daily limit (set X_DAILY_SPEND_LIMIT_USD to cap the spend).',
  noRateStatus: 'No rate limits reported yet: they show after the first requests to X.',
  unknownHandle: 'Deleted or unknown handles',
  metricRefresh: (label: string) => `Metric refresh: ${label}`,
  typicalHandleCost: (usd: string, postsPerDay: number) =>
    `About ${usd} a month per handle posting ${postsPerDay} a day (estimate from the schedule and the prices, not from the reads above)`,

  // Client fallback and UI text.
  fetchUsageFailed: 'Failed to fetch X API usage',
  loadUsageFailed: 'Failed to load X API usage.',
} as const;

const usd = z.number().nonnegative();
const count = z.number().int().nonnegative();

/** Billed reads of a period and what they cost. */
export const xReadTotalsSchema = z.object({
  /** Distinct posts billed (each once per UTC day). */
  post_reads: count,
  /** Distinct users billed (each once per UTC day). */
  user_reads: count,
  usd,
});
export type XReadTotals = z.infer<typeof xReadTotalsSchema>;

/** The reads put on one handle (the user the read was for). */
export const xUsageHandleSchema = z.object({
  /** Null for reads of handles since deleted, or that could not be put on a handle. */
  handle_id: z.number().int().nullable(),
  handle: z.string().nullable(),
  today: xReadTotalsSchema,
  month: xReadTotalsSchema,
});
export type XUsageHandle = z.infer<typeof xUsageHandleSchema>;

/** One rate-limited endpoint as its last response told (15-minute windows). */
export const xEndpointBudgetSchema = rateBudgetSchema.extend({ endpoint: z.string() });
export type XEndpointBudget = z.infer<typeof xEndpointBudgetSchema>;

export const xRateStatusSchema = z.object({
  endpoints: z.array(xEndpointBudgetSchema),
  /** The app's 24-hour budget, when X sends it (some plans). */
  app_day: rateBudgetSchema.nullable(),
});
export type XRateStatus = z.infer<typeof xRateStatusSchema>;

/** GET /admin/x-usage. */
export const xUsageSummarySchema = z.object({
  /** The tweet source in use: the demo source reads nothing from X and costs nothing. */
  source: z.enum(['demo', 'x-api', 'x-web']),
  /** When the summary was made. */
  generated_at: z.string(),
  /** The current UTC day (YYYY-MM-DD). */
  today: xReadTotalsSchema.extend({ day: z.string() }),
  /** The current UTC month (YYYY-MM) up to now. */
  month: xReadTotalsSchema.extend({
    month: z.string(),
    /** This month's cost carried on at the pace so far to the end of the month. */
    projected_usd: usd,
  }),
  /** Per handle, the most expensive this month first. */
  handles: z.array(xUsageHandleSchema),
  prices: z.object({ post_read_usd: usd, user_read_usd: usd }),
  budget: z.object({
    /** X_DAILY_SPEND_LIMIT_USD; null: no limit. */
    daily_limit_usd: usd.nullable(),
    /** New tweets are no longer collected today: the whole daily limit is spent. */
    paused: z.boolean(),
    /** The kinds of work stopped by the budget now. */
    cut: z.array(z.enum(X_BUDGET_KINDS)),
    /** The next 00:00 UTC, when a new day's budget starts. */
    resumes_at: z.string(),
  }),
  credentials: z.object({
    state: z.enum(X_API_STATES),
    /** What X said, when it refused. */
    detail: z.string().nullable(),
    /** Since when X refuses; null while ok. */
    since: z.string().nullable(),
    /** When Perch asks X again; null while ok. */
    next_probe_at: z.string().nullable(),
  }),
  /** Null when no collector runs in this process, or for the demo source. */
  rate_status: xRateStatusSchema.nullable(),
  /**
   * X_METRIC_REFRESH and what a typical handle costs under it: a model (each post billed on
   * every UTC day the schedule reads it, the profile once a day, 30 days, at these prices), the
   * same one bench:x-budget checks against the fake X's bill; not derived from the reads above.
   */
  metric_refresh: z.object({
    preset: z.enum(X_METRIC_REFRESH_PRESETS),
    typical_handle: z.object({
      posts_per_day: count,
      post_reads_per_day: z.number().nonnegative(),
      user_reads_per_day: z.number().nonnegative(),
      month_usd: usd,
    }),
  }),
});
export type XUsageSummary = z.infer<typeof xUsageSummarySchema>;
