/**
 * Builders of hand-made engine input for the tests beside this file: every field gets a plain
 * default, so a test spells out only what it checks.
 */
import type { ContentTypes } from '@perch/shared';
import type { AnalyticsInput, AnalyticsTweet, MetricSnapshot, ProfileSnapshot } from './types.js';
import { prepareWindow, type PreparedWindow } from './window.js';

export const HANDLE = 'perch_dev';
export const X_USER_ID = '1001';

/** Epoch ms of an ISO-8601 instant. */
export const at = (iso: string): number => Date.parse(iso);

/** The dates `YYYY-MM-DD` of March 2026 from day `first` to day `last`, both included. */
export function marchDays(first: number, last: number): string[] {
  return Array.from(
    { length: last - first + 1 },
    (_, index) => `2026-03-${String(first + index).padStart(2, '0')}`,
  );
}

/** The content types of a window whose only tweets are `retweets` retweets: no posts. */
export function retweetsOnlyTypes(retweets: number): ContentTypes {
  return { text: 0, image: 0, video: 0, link: 0, retweets, replies: 0, quotes: 0 };
}

/** A plain text post with no engagement; override what the test is about. */
export function makeTweet(overrides: Partial<AnalyticsTweet> & { id: string }): AnalyticsTweet {
  return {
    text: 'plain text',
    createdAt: at('2026-03-10T12:00:00.000Z'),
    lang: 'en',
    likes: 0,
    retweets: 0,
    replies: 0,
    quotes: 0,
    impressions: null,
    conversationId: overrides.id,
    inReplyToUserId: null,
    isRetweet: false,
    isQuote: false,
    isReply: false,
    hashtags: [],
    urls: [],
    media: [],
    ...overrides,
  };
}

export function makeProfileSnapshot(
  takenAt: string,
  followers: number,
  following = 100,
): ProfileSnapshot {
  return { takenAt: at(takenAt), followers, following, tweetCount: 500, likeCount: null };
}

export function makeMetricSnapshot(
  tweetId: string,
  takenAt: number,
  counts: Partial<Pick<MetricSnapshot, 'likes' | 'retweets' | 'replies' | 'quotes'>>,
): MetricSnapshot {
  return { tweetId, takenAt, likes: 0, retweets: 0, replies: 0, quotes: 0, ...counts };
}

/** The window of March 2026 (2026-03-01 00:00 to 2026-03-31 00:00 UTC), in UTC, no data. */
export function makeInput(overrides: Partial<AnalyticsInput> = {}): AnalyticsInput {
  return {
    handle: HANDLE,
    xUserId: X_USER_ID,
    tweets: [],
    profileSnapshots: [],
    metricSnapshots: [],
    window: { start: at('2026-03-01T00:00:00.000Z'), end: at('2026-03-31T00:00:00.000Z') },
    timezone: 'UTC',
    ...overrides,
  };
}

/** `prepareWindow(makeInput(overrides))`. */
export function prepare(overrides: Partial<AnalyticsInput> = {}): PreparedWindow {
  return prepareWindow(makeInput(overrides));
}
