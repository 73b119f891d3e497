import { z } from 'zod';

/** The analytics' numbers and names, and the query strings of its routes (docs/analytics.md). */

/** Days of the two periods the dashboard offers: week 7, month 30. */
export const PERIOD_WEEK = 7;
export const PERIOD_MONTH = 30;
export const DEFAULT_PERIOD = PERIOD_MONTH;
export const MIN_PERIOD = 1;
export const MAX_PERIOD = 90;
export const DEFAULT_TIMEZONE = 'UTC';
/** Top tweets and hashtags shown by default. */
export const TOP_TWEETS_LIMIT = 10;
export const MAX_TOP_TWEETS_LIMIT = 100;
export const HASHTAGS_LIMIT = 20;
export const MAX_HASHTAGS_LIMIT = 100;
export const WORDS_LIMIT = 30;
/** Least time between two refreshes of one handle. */
export const REFRESH_MIN_GAP_MS = 5_000;
/**
 * Least time between two manual polls of one handle, whoever asks (every user and process
 * shares the X budget): a Refresh within it is refused with 429 and Retry-After.
 */
export const MANUAL_POLL_MIN_GAP_MS = 60_000;

/** Weekday names, index 0 = Monday ... 6 = Sunday (analytics.md, Window). */
export const WEEKDAYS = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const weekdaySchema = z.enum(WEEKDAYS);

export const ANALYTICS_STATUSES = ['not_available', 'collecting', 'data_ready'] as const;
export type AnalyticsStatus = (typeof ANALYTICS_STATUSES)[number];

export const TOP_TWEET_SORTS = [
  'like_count',
  'retweet_count',
  'reply_count',
  'quote_count',
  'engagement',
] as const;
export type TopTweetSort = (typeof TOP_TWEET_SORTS)[number];

export const TIMESERIES_METRICS = [
  'all',
  'tweets',
  'likes',
  'retweets',
  'replies',
  'quotes',
  'engagement',
  'engagement_rate',
] as const;
export type TimeseriesMetric = (typeof TIMESERIES_METRICS)[number];

/** Engagement buckets of engagement-distribution, in display order. */
export const ENGAGEMENT_BUCKETS = ['0', '1-9', '10-99', '100-999', '1k-9.9k', '10k+'] as const;
export type EngagementBucket = (typeof ENGAGEMENT_BUCKETS)[number];

export const CONTENT_TYPES = ['text', 'image', 'video', 'link'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// Query strings
// ---------------------------------------------------------------------------------------------

export const INVALID_PERIOD_MESSAGE = `Period must be a whole number of days from ${MIN_PERIOD} to ${MAX_PERIOD} (7 = week, 30 = month).`;
export const INVALID_TIMEZONE_MESSAGE = 'Unknown timezone: use an IANA name such as Europe/Berlin.';

/** `period`: days 1-90, or `week` / `month`; default month. */
export const periodSchema = z.preprocess(
  (value) => (value === 'week' ? PERIOD_WEEK : value === 'month' ? PERIOD_MONTH : value),
  z.coerce
    .number({ error: INVALID_PERIOD_MESSAGE })
    .int({ error: INVALID_PERIOD_MESSAGE })
    .min(MIN_PERIOD, { error: INVALID_PERIOD_MESSAGE })
    .max(MAX_PERIOD, { error: INVALID_PERIOD_MESSAGE })
    .default(DEFAULT_PERIOD),
);

/** True for a time zone this runtime knows (IANA names and their aliases). */
export function isKnownTimeZone(name: string): boolean {
  if (name.trim() === '' || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** `timezone`: an IANA name, default UTC. */
export const timezoneSchema = z
  .string({ error: INVALID_TIMEZONE_MESSAGE })
  .max(64, { error: INVALID_TIMEZONE_MESSAGE })
  .refine(isKnownTimeZone, { error: INVALID_TIMEZONE_MESSAGE })
  .default(DEFAULT_TIMEZONE);

export const analyticsQuerySchema = z.object({
  period: periodSchema,
  timezone: timezoneSchema,
});
export type AnalyticsQuery = z.input<typeof analyticsQuerySchema>;

/** What `compare` may ask for: the period of the same length just before the window. */
export const COMPARE_MODES = ['previous'] as const;
export type CompareMode = (typeof COMPARE_MODES)[number];
export const INVALID_COMPARE_MESSAGE =
  "compare must be 'previous' (the period of the same length just before the window), or left out.";

/** `compare`: `previous` adds the previous period's summary and daily series; absent, nothing. */
export const compareSchema = z.enum(COMPARE_MODES, { error: INVALID_COMPARE_MESSAGE }).optional();

/** complete and refresh: the window, and optionally the comparison with the previous period. */
export const completeQuerySchema = analyticsQuerySchema.extend({ compare: compareSchema });
export type CompleteQuery = z.input<typeof completeQuerySchema>;

export const topTweetsQuerySchema = analyticsQuerySchema.extend({
  sortBy: z.enum(TOP_TWEET_SORTS).default('like_count'),
  limit: z.coerce.number().int().min(1).max(MAX_TOP_TWEETS_LIMIT).default(TOP_TWEETS_LIMIT),
});

export const hashtagsQuerySchema = analyticsQuerySchema.extend({
  limit: z.coerce.number().int().min(1).max(MAX_HASHTAGS_LIMIT).default(HASHTAGS_LIMIT),
});

export const timeseriesQuerySchema = analyticsQuerySchema.extend({
  metric: z.enum(TIMESERIES_METRICS).default('all'),
});
