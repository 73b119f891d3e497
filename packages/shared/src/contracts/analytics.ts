import { z } from 'zod';
import {
  ANALYTICS_STATUSES,
  ENGAGEMENT_BUCKETS,
  TIMESERIES_METRICS,
  TOP_TWEET_SORTS,
  weekdaySchema,
} from './analytics-query.js';
import { backfillProgressSchema, tweetSchema } from './handles.js';

/**
 * Analytics payloads (docs/analytics.md). Every number is a plain, unrounded JSON number;
 * the web rounds for display. Rates that need followers or snapshots are `null` when those are
 * missing; averages and shares over nothing are 0.
 */

export * from './analytics-query.js';

// ---------------------------------------------------------------------------------------------
// Blocks (docs/analytics.md, Blocks)
// ---------------------------------------------------------------------------------------------

const rate = z.number().nullable();

export const peakTimeSchema = z.object({
  day: weekdaySchema,
  hour: z.number().int(),
  count: z.number().int(),
});

export const summarySchema = z.object({
  handle: z.string(),
  twitter_username: z.string(),
  total_tweets: z.number().int(),
  total_likes: z.number().int(),
  total_retweets: z.number().int(),
  total_replies: z.number().int(),
  total_quotes: z.number().int(),
  avg_likes_per_tweet: z.number(),
  avg_retweets_per_tweet: z.number(),
  avg_replies_per_tweet: z.number(),
  avg_engagement: z.number(),
  /** avg_engagement / followers x 100; null without followers. */
  engagement_rate: rate,
  /** As in growth; null with fewer than 2 snapshots. */
  growth_rate: rate,
  /** Weekday with most posts (ties: earliest weekday); null without posts. */
  peak_day: weekdaySchema.nullable(),
  /** 0-23 with most posts (ties: smallest); null without posts. */
  peak_hour: z.number().int().nullable(),
  /** Top 3 heatmap cells with posts, by count, ties by weekday then hour. */
  peak_times: z.array(peakTimeSchema),
  followers: z.number().int().nullable(),
  following: z.number().int().nullable(),
});
export type Summary = z.infer<typeof summarySchema>;

/** A post as the top tweets list shows it: the tweet plus its engagement. */
export const topTweetSchema = tweetSchema.extend({ engagement: z.number().int() });
export type TopTweet = z.infer<typeof topTweetSchema>;

export const topTweetsSchema = z.object({
  sort_by: z.enum(TOP_TWEET_SORTS),
  tweets: z.array(topTweetSchema),
});
export type TopTweets = z.infer<typeof topTweetsSchema>;

export const timeseriesPointSchema = z.object({
  /** YYYY-MM-DD in the requested timezone. */
  date: z.string(),
  tweets: z.number().int(),
  likes: z.number().int(),
  retweets: z.number().int(),
  replies: z.number().int(),
  quotes: z.number().int(),
  engagement: z.number().int(),
  /** That day's engagement / posts / followers x 100; 0 without posts, null without followers. */
  engagement_rate: rate,
});
export type TimeseriesPoint = z.infer<typeof timeseriesPointSchema>;

/** A day of the series without posts: every count 0, with the given rate. */
export function emptyTimeseriesPoint(
  date: string,
  engagementRate: number | null = null,
): TimeseriesPoint {
  return {
    date,
    tweets: 0,
    likes: 0,
    retweets: 0,
    replies: 0,
    quotes: 0,
    engagement: 0,
    engagement_rate: engagementRate,
  };
}

export const timeseriesSchema = z.object({ series: z.array(timeseriesPointSchema) });
export type Timeseries = z.infer<typeof timeseriesSchema>;

/** GET timeseries with `metric` other than `all`: one value per day. */
export const timeseriesMetricSchema = z.object({
  metric: z.enum(TIMESERIES_METRICS),
  series: z.array(z.object({ date: z.string(), value: z.number().nullable() })),
});

export const contentTypesSchema = z.object({
  text: z.number().int(),
  image: z.number().int(),
  video: z.number().int(),
  link: z.number().int(),
  /** Retweets of the handle in the window (not posts). */
  retweets: z.number().int(),
  replies: z.number().int(),
  quotes: z.number().int(),
});
export type ContentTypes = z.infer<typeof contentTypesSchema>;

const byContentType = z.object({
  text: z.number(),
  image: z.number(),
  video: z.number(),
  link: z.number(),
});

export const engagementSchema = z.object({
  engagementRate: rate,
  averages: z.object({
    likes: z.number(),
    retweets: z.number(),
    replies: z.number(),
    quote_count: z.number(),
    engagement_rate: rate,
  }),
  /** Average engagement of the posts of each content type. */
  engagementByType: byContentType,
});
export type Engagement = z.infer<typeof engagementSchema>;

export const postingPatternsSchema = z.object({
  /** [weekday 0 = Monday][hour 0-23] post counts. */
  heatmap: z.array(z.array(z.number().int())),
  hourly: z.array(z.number().int()),
  /** Up to 3 hours with posts, most first (ties: smaller hour). */
  peak_hours: z.array(z.number().int()),
  /** All 7 weekdays by post count, most first (ties: earlier weekday). */
  peak_days: z.array(z.object({ day: weekdaySchema, count: z.number().int() })),
});
export type PostingPatterns = z.infer<typeof postingPatternsSchema>;

export const hashtagsSchema = z.object({
  hashtags: z.array(z.object({ tag: z.string(), count: z.number().int() })),
});
export type Hashtags = z.infer<typeof hashtagsSchema>;

export const wordsSchema = z.object({
  words: z.array(z.object({ word: z.string(), count: z.number().int() })),
});
export type Words = z.infer<typeof wordsSchema>;

export const languagesSchema = z.object({
  languages: z.array(
    z.object({ lang: z.string(), count: z.number().int(), percentage: z.number() }),
  ),
});
export type Languages = z.infer<typeof languagesSchema>;

export const viralSchema = z.object({
  /** max(10, 3 x median engagement): a post at or above it is viral. */
  threshold: z.number(),
  viral_tweet_count: z.number().int(),
  score: z.number(),
  amplification_factor: z.number(),
  coefficient: z.number(),
  network_amplification: rate,
});
export type Viral = z.infer<typeof viralSchema>;

export const velocitySchema = z.object({
  avg_1h: rate,
  avg_3h: rate,
  avg_6h: rate,
  posts_measured_1h: z.number().int(),
  posts_measured_3h: z.number().int(),
  posts_measured_6h: z.number().int(),
  peak: rate,
});
export type Velocity = z.infer<typeof velocitySchema>;

export const threadPerformanceSchema = z.object({
  thread_count: z.number().int(),
  avg_thread_length: z.number(),
  avg_thread_engagement: z.number(),
  avg_standalone_engagement: z.number(),
  best_thread: z
    .object({
      conversation_id: z.string(),
      length: z.number().int(),
      engagement: z.number().int(),
    })
    .nullable(),
});
export type ThreadPerformance = z.infer<typeof threadPerformanceSchema>;

export const engagementDistributionSchema = z.object({
  buckets: z.array(z.object({ bucket: z.enum(ENGAGEMENT_BUCKETS), count: z.number().int() })),
});
export type EngagementDistribution = z.infer<typeof engagementDistributionSchema>;

export const interactionBreakdownSchema = z.object({
  likes: z.number(),
  retweets: z.number(),
  replies: z.number(),
  quotes: z.number(),
});
export type InteractionBreakdown = z.infer<typeof interactionBreakdownSchema>;

export const mediaStatsSchema = z.object({
  photos: z.number().int(),
  videos: z.number().int(),
  gifs: z.number().int(),
  posts_with_media: z.number().int(),
  avg_engagement_with_media: z.number(),
  avg_engagement_without_media: z.number(),
});
export type MediaStats = z.infer<typeof mediaStatsSchema>;

export const enhancedContentSchema = z.object({
  mediaBreakdown: mediaStatsSchema.pick({
    photos: true,
    videos: true,
    gifs: true,
    posts_with_media: true,
  }),
  contentTypes: contentTypesSchema,
  threadAnalysis: threadPerformanceSchema,
});
export type EnhancedContent = z.infer<typeof enhancedContentSchema>;

export const growthSchema = z.object({
  /** One point per day with a snapshot: that day's last follower count. */
  series: z.array(z.object({ date: z.string(), followers: z.number().int() })),
  /** Last - first snapshot in the window; null without snapshots. */
  net_change: z.number().int().nullable(),
  growth_rate: rate,
});
export type Growth = z.infer<typeof growthSchema>;

/** Every block, as the engine computes them for one (handle, window, timezone). */
export const analyticsBlocksSchema = z.object({
  summary: summarySchema,
  topTweets: topTweetsSchema,
  timeSeries: timeseriesSchema,
  contentTypes: contentTypesSchema,
  engagement: engagementSchema,
  postingPatterns: postingPatternsSchema,
  hashtags: hashtagsSchema,
  words: wordsSchema,
  languages: languagesSchema,
  viral: viralSchema,
  velocity: velocitySchema,
  threadPerformance: threadPerformanceSchema,
  engagementDistribution: engagementDistributionSchema,
  interactionBreakdown: interactionBreakdownSchema,
  mediaStats: mediaStatsSchema,
  enhancedContent: enhancedContentSchema,
  growth: growthSchema,
});
export type AnalyticsBlocks = z.infer<typeof analyticsBlocksSchema>;

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

export const analyticsProfileSchema = z.object({
  followersCount: z.number().int().nullable(),
  followingCount: z.number().int().nullable(),
  tweetsCount: z.number().int().nullable(),
  likesCount: z.number().int().nullable(),
  username: z.string(),
});
export type AnalyticsProfile = z.infer<typeof analyticsProfileSchema>;

/** What every analytics response says about the data behind it. */
export const analyticsMetaSchema = z.object({
  handle: z.string(),
  analytics_status: z.enum(ANALYTICS_STATUSES),
  backfillProgress: backfillProgressSchema,
  period: z.number().int(),
  timezone: z.string(),
  /** [start, end] of the window, ISO-8601 UTC. */
  window: z.object({ start: z.string(), end: z.string() }),
  /**
   * Oldest instant the handle's collection covers (ISO-8601), or null before it began: days of
   * the window before it have no data, rather than no activity.
   */
  collected_since: z.string().nullable(),
  computed_at: z.string(),
});
export type AnalyticsMeta = z.infer<typeof analyticsMetaSchema>;

/**
 * The summary fields a comparison gives a change for: counts, averages, the engagement rate and
 * followers. growth_rate is itself a change (compare it in points); peaks are not quantities.
 */
export const COMPARED_SUMMARY_FIELDS = [
  'total_tweets',
  'total_likes',
  'total_retweets',
  'total_replies',
  'total_quotes',
  'avg_likes_per_tweet',
  'avg_retweets_per_tweet',
  'avg_replies_per_tweet',
  'avg_engagement',
  'engagement_rate',
  'followers',
] as const satisfies readonly (keyof Summary)[];
export type ComparedSummaryField = (typeof COMPARED_SUMMARY_FIELDS)[number];

/**
 * The change from `previous` to `current` in percent of `previous`: (current - previous) /
 * previous x 100. Null when either is unknown or `previous` is 0 (a change from nothing has no
 * percentage), so the result is always a finite number or null.
 */
export function percentChange(current: number | null, previous: number | null): number | null {
  if (current === null || previous === null || previous === 0) return null;
  const change = ((current - previous) / previous) * 100;
  return Number.isFinite(change) ? change : null;
}

/** Per compared field, `percentChange(current, previous)`. */
export const summaryChangeSchema = z.object({
  total_tweets: rate,
  total_likes: rate,
  total_retweets: rate,
  total_replies: rate,
  total_quotes: rate,
  avg_likes_per_tweet: rate,
  avg_retweets_per_tweet: rate,
  avg_replies_per_tweet: rate,
  avg_engagement: rate,
  engagement_rate: rate,
  followers: rate,
}) satisfies z.ZodType<Record<ComparedSummaryField, number | null>>;
export type SummaryChange = z.infer<typeof summaryChangeSchema>;

/**
 * `previous` of complete with `compare=previous`: the period of the same length that ends where
 * the window starts, computed by the same rules (timezone, posts, followers as of its end).
 */
export const previousPeriodSchema = z.object({
  /** [start, end] of the previous period, ISO-8601 UTC; end is 1 ms before the window's start. */
  window: z.object({ start: z.string(), end: z.string() }),
  summary: summarySchema,
  /**
   * One point per local day of the previous period, oldest first; point i is drawn against
   * point i of the window's series (the same day offset).
   */
  timeSeries: timeseriesSchema,
  /** The window's summary against this one, in percent; null where there is no percentage. */
  change: summaryChangeSchema,
});
export type PreviousPeriod = z.infer<typeof previousPeriodSchema>;

/** GET /analytics/complete/{handle}: every block in one payload. */
export const completeAnalyticsSchema = analyticsBlocksSchema
  .extend(analyticsMetaSchema.shape)
  .extend({
    profile: analyticsProfileSchema,
    /** Only with `compare=previous`. */
    previous: previousPeriodSchema.optional(),
  });
export type CompleteAnalytics = z.infer<typeof completeAnalyticsSchema>;

/** A single block response: the block's fields next to the meta fields. */
export function blockResponseSchema<T extends z.ZodObject>(block: T) {
  return block.extend(analyticsMetaSchema.shape);
}

export const availabilitySchema = z.object({
  handle: z.string(),
  analytics_status: z.enum(ANALYTICS_STATUSES),
  has_meaningful_data: z.boolean(),
  backfillProgress: backfillProgressSchema,
});
export type Availability = z.infer<typeof availabilitySchema>;

/** The analytics texts of the error catalogue that both sides use. */
export const ANALYTICS_MESSAGES = {
  loadFailed: 'Failed to load analytics data',
  fetchFailed: 'Failed to fetch analytics data',
  refreshFailed: 'Failed to refresh analytics data',
  noData: 'No data available yet for this handle',
  mismatch: 'Data mismatch detected, please refresh',
  stuck: 'Collection stuck at 0% - marked as failed',
  refreshThrottled: 'Please wait a few seconds before refreshing again.',
  refreshInProgress: 'A refresh is already running.',
  manualPollThrottled:
    'This handle was refreshed less than a minute ago; new tweets keep arriving on their own.',
  refreshed: 'Analytics refreshed',
} as const;

/** The `message` of a response whose handle is still collecting: it says 'being collected'. */
export function beingCollectedMessage(handle: string, progress: number): string {
  return `Data for @${handle} is still being collected (${Math.floor(progress)}%).`;
}

/** '@x data collection completed!' (docs/spec-notes.md, Collecting overlay). */
export function collectionCompletedMessage(handle: string): string {
  return `@${handle} data collection completed!`;
}
