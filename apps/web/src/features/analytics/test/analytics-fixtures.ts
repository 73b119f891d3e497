import {
  COMPARED_SUMMARY_FIELDS,
  completeAnalyticsSchema,
  emptyTimeseriesPoint,
  percentChange,
  type CompleteAnalytics,
  type Handle,
  type Summary,
  type TimeseriesPoint,
  type TopTweet,
} from '@perch/shared';
import { makeHandle, makeTweet } from '@/test/api-records';
import type { ProgressReading } from '../utils/collecting-overlay';

/** A server handle record of a busy account (a finished backfill); overrides say what differs. */
export function makeHandleRecord(overrides: Partial<Handle> & { handle: string }): Handle {
  return makeHandle({
    id: 1,
    total_tweets_collected: 1300,
    tweets_count: 1300,
    followers_count: 56_789,
    following_count: 321,
    tweet_count: 9000,
    ...overrides,
  });
}

/** A top tweet with sensible defaults. */
export function makeTopTweet(overrides: Partial<TopTweet> & { id: string }): TopTweet {
  const { engagement = 116, ...tweet } = overrides;
  return {
    ...makeTweet({
      created_at: '2025-03-09T11:00:00.000Z',
      like_count: 100,
      retweet_count: 10,
      reply_count: 5,
      quote_count: 1,
      ...tweet,
    }),
    engagement,
  };
}

/** A backfill reading in progress, no posts yet; overrides say what differs. */
export function makeReading(
  progress: number,
  overrides: Partial<ProgressReading> = {},
): ProgressReading {
  return {
    progress,
    status: 'in_progress',
    totalTweets: 0,
    hasData: false,
    isComplete: false,
    ...overrides,
  };
}

function emptyHeatmap(): number[][] {
  return Array.from({ length: 7 }, () => Array.from({ length: 24 }, () => 0));
}

/** Nested parts of a payload to replace, block by block. */
export type AnalyticsOverrides = {
  [K in keyof CompleteAnalytics]?: CompleteAnalytics[K] extends unknown[]
    ? CompleteAnalytics[K]
    : CompleteAnalytics[K] extends object
      ? Partial<CompleteAnalytics[K]>
      : CompleteAnalytics[K];
};

/**
 * A complete analytics payload of a busy handle (1,234 posts, 3.4M likes, 3.4 % engagement
 * rate), checked against the shared contract so that it stays what the API sends.
 */
export function makeCompleteAnalytics(
  handle = 'nasa',
  overrides: AnalyticsOverrides = {},
): CompleteAnalytics {
  const heatmap = emptyHeatmap();
  heatmap[1]![14] = 9;
  heatmap[4]![9] = 4;
  const contentTypes = {
    text: 800,
    image: 300,
    video: 100,
    link: 34,
    retweets: 50,
    replies: 200,
    quotes: 20,
  };
  const threadPerformance = {
    thread_count: 3,
    avg_thread_length: 4.33,
    avg_thread_engagement: 9000,
    avg_standalone_engagement: 1800,
    best_thread: { conversation_id: '555', length: 6, engagement: 20_000 },
  };
  const mediaBreakdown = { photos: 320, videos: 90, gifs: 10, posts_with_media: 400 };
  const base: CompleteAnalytics = {
    handle,
    analytics_status: 'data_ready',
    backfillProgress: {
      progress: 100,
      status: 'completed',
      totalTweets: 1300,
      message: 'Backfill complete',
      estimatedCompletion: null,
      hasData: true,
      lastUpdated: '2025-03-10T12:00:00.000Z',
      isComplete: true,
    },
    period: 30,
    timezone: 'UTC',
    window: { start: '2025-02-08T12:00:00.000Z', end: '2025-03-10T12:00:00.000Z' },
    collected_since: '2025-02-23T12:00:00.000Z',
    computed_at: '2025-03-10T12:00:00.000Z',
    profile: {
      followersCount: 56_789,
      followingCount: 321,
      tweetsCount: 9000,
      likesCount: null,
      username: handle,
    },
    summary: {
      handle,
      twitter_username: handle,
      total_tweets: 1234,
      total_likes: 3_400_000,
      total_retweets: 45_600,
      total_replies: 789,
      total_quotes: 12,
      avg_likes_per_tweet: 2755.3,
      avg_retweets_per_tweet: 36.95,
      avg_replies_per_tweet: 0.64,
      avg_engagement: 1930.87,
      engagement_rate: 3.4,
      growth_rate: 1.25,
      peak_day: 'Tuesday',
      peak_hour: 14,
      peak_times: [
        { day: 'Tuesday', hour: 14, count: 9 },
        { day: 'Friday', hour: 9, count: 4 },
      ],
      followers: 56_789,
      following: 321,
    },
    topTweets: {
      sort_by: 'like_count',
      tweets: [
        makeTopTweet({
          id: '101',
          text: 'Liftoff! "Artemis", tonight',
          like_count: 250_000,
          engagement: 270_000,
        }),
        makeTopTweet({ id: '102', text: 'Second best', like_count: 1200, engagement: 1500 }),
      ],
    },
    timeSeries: {
      series: [
        {
          date: '2025-03-09',
          tweets: 40,
          likes: 120_000,
          retweets: 1500,
          replies: 30,
          quotes: 1,
          engagement: 121_531,
          engagement_rate: 5.35,
        },
        emptyTimeseriesPoint('2025-03-10', 0),
      ],
    },
    contentTypes,
    engagement: {
      engagementRate: 3.4,
      averages: {
        likes: 2755.3,
        retweets: 36.95,
        replies: 0.64,
        quote_count: 0.01,
        engagement_rate: 3.4,
      },
      engagementByType: { text: 1500, image: 2500, video: 4000, link: 900 },
    },
    postingPatterns: {
      heatmap,
      hourly: Array.from({ length: 24 }, (_, hour) => (hour === 14 ? 9 : hour === 9 ? 4 : 0)),
      peak_hours: [14, 9],
      peak_days: [
        { day: 'Tuesday', count: 9 },
        { day: 'Friday', count: 4 },
        { day: 'Monday', count: 0 },
        { day: 'Wednesday', count: 0 },
        { day: 'Thursday', count: 0 },
        { day: 'Saturday', count: 0 },
        { day: 'Sunday', count: 0 },
      ],
    },
    hashtags: {
      hashtags: [
        { tag: 'Artemis', count: 42 },
        { tag: 'Moon', count: 7 },
      ],
    },
    words: { words: [] },
    languages: {
      languages: [
        { lang: 'en', count: 1200, percentage: 97.24 },
        { lang: 'und', count: 34, percentage: 2.76 },
      ],
    },
    viral: {
      threshold: 5000,
      viral_tweet_count: 12,
      score: 0.97,
      amplification_factor: 36.96,
      coefficient: 0.013,
      network_amplification: 80.3,
    },
    velocity: {
      avg_1h: 120.5,
      avg_3h: 80,
      avg_6h: 50,
      posts_measured_1h: 10,
      posts_measured_3h: 8,
      posts_measured_6h: 6,
      peak: 4000,
    },
    threadPerformance,
    engagementDistribution: {
      buckets: [
        { bucket: '0', count: 4 },
        { bucket: '1-9', count: 30 },
        { bucket: '10-99', count: 200 },
        { bucket: '100-999', count: 600 },
        { bucket: '1k-9.9k', count: 380 },
        { bucket: '10k+', count: 20 },
      ],
    },
    interactionBreakdown: { likes: 98.3, retweets: 1.3, replies: 0.35, quotes: 0.05 },
    mediaStats: {
      ...mediaBreakdown,
      avg_engagement_with_media: 3000,
      avg_engagement_without_media: 1400,
    },
    // The server repeats these blocks here; the fixture does the same.
    enhancedContent: { mediaBreakdown, contentTypes, threadAnalysis: threadPerformance },
    growth: {
      series: [
        { date: '2025-03-01', followers: 56_088 },
        { date: '2025-03-10', followers: 56_789 },
      ],
      net_change: 701,
      growth_rate: 1.25,
    },
  };
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const current = merged[key];
    merged[key] =
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      current &&
      typeof current === 'object'
        ? { ...current, ...value }
        : value;
  }
  return completeAnalyticsSchema.parse(merged);
}

/** The summary fields that are zero or unknown for a window without posts. */
export const NO_POSTS_SUMMARY = {
  total_tweets: 0,
  total_likes: 0,
  total_retweets: 0,
  total_replies: 0,
  total_quotes: 0,
  avg_engagement: 0,
  peak_day: null,
  peak_hour: null,
  peak_times: [],
} satisfies Partial<Summary>;

/** The same payload with no posts in the window (a quiet or brand-new handle). */
export function makeEmptyAnalytics(handle = 'nasa'): CompleteAnalytics {
  return makeCompleteAnalytics(handle, {
    summary: { ...NO_POSTS_SUMMARY, engagement_rate: 0 },
    topTweets: { tweets: [] },
    timeSeries: { series: [] },
  });
}

const DAY_MS = 86_400_000;

/**
 * The payload with the previous period added as `compare=previous` gives it: the period of the
 * same length ending 1 ms before the window, with the window's summary and days unless
 * overridden (days shifted back by the period), and the changes worked out from both summaries.
 */
export function withPrevious(
  data: CompleteAnalytics,
  overrides: { summary?: Partial<Summary>; series?: TimeseriesPoint[] } = {},
): CompleteAnalytics {
  const start = Date.parse(data.window.start);
  const summary: Summary = { ...data.summary, ...overrides.summary };
  const shift = (date: string) =>
    new Date(Date.parse(`${date}T00:00:00.000Z`) - data.period * DAY_MS).toISOString().slice(0, 10);
  const previous = {
    window: {
      start: new Date(start - data.period * DAY_MS).toISOString(),
      end: new Date(start - 1).toISOString(),
    },
    summary,
    timeSeries: {
      series:
        overrides.series ??
        data.timeSeries.series.map((point) => ({ ...point, date: shift(point.date) })),
    },
    change: Object.fromEntries(
      COMPARED_SUMMARY_FIELDS.map((field) => [
        field,
        percentChange(data.summary[field], summary[field]),
      ]),
    ),
  };
  return completeAnalyticsSchema.parse({ ...data, previous });
}
