import type { ContentType } from '@perch/shared';
import { dayNumber, hourOf, localDay, weekdayOf, zoneCalendar } from './timezone.js';
import type { AnalyticsInput, AnalyticsTweet, MetricSnapshot, WordDays } from './types.js';

/** A post of the window with everything the blocks bucket it by, computed once. */
export interface PreparedPost {
  tweet: AnalyticsTweet;
  /** Local weekday in the window's zone, 0 = Monday ... 6 = Sunday. */
  weekday: number;
  /** Local hour 0-23. */
  hour: number;
  /** Local date as days since 1970-01-01 (see `formatDay`). */
  day: number;
  /** likes + retweets + replies + quotes. */
  engagement: number;
  contentType: ContentType;
}

/**
 * Posts are made by a constructor rather than as object literals: V8 moves the objects of a
 * literal that mostly survive straight to the old generation, where 10,000 posts cost about twice
 * as much to make (and more to collect later) as in the young one.
 */
class Post implements PreparedPost {
  constructor(
    public tweet: AnalyticsTweet,
    public weekday: number,
    public hour: number,
    public day: number,
    public engagement: number,
    public contentType: ContentType,
  ) {}
}

/** A profile snapshot taken inside the window, with its local date. */
export interface PreparedProfileSnapshot {
  takenAt: number;
  followers: number;
  day: number;
}

/** Sums over the posts of a window. */
export interface PostTotals {
  likes: number;
  retweets: number;
  replies: number;
  quotes: number;
  engagement: number;
}

/** One (handle, window, timezone) ready for the block functions. */
export interface PreparedWindow {
  handle: string;
  xUserId: string | null;
  timezone: string;
  window: { start: number; end: number };
  /** Local dates of the window's start and end (the time series spans them inclusively). */
  firstDay: number;
  lastDay: number;
  /** Tweets in the window that are not retweets, in input order. */
  posts: PreparedPost[];
  /** Retweets in the window. */
  retweetCount: number;
  totals: PostTotals;
  /** From the latest profile snapshot overall; null without one. */
  followers: number | null;
  following: number | null;
  /** Profile snapshots inside the window, oldest first. */
  profileSnapshots: PreparedProfileSnapshot[];
  /** Every metric snapshot of the input (velocity picks those of the window's posts). */
  metricSnapshots: readonly MetricSnapshot[];
  /** Word counts kept for a span of the window (AnalyticsInput.wordDays). */
  wordDays?: WordDays;
}

/** Links to x.com / twitter.com statuses are quotes or references, not outside links. */
const STATUS_URL = /^https?:\/\/(?:www\.|mobile\.)?(?:x|twitter)\.com\/[^/]+\/status(?:es)?\/\d+/i;

/** likes + retweets + replies + quotes of a tweet or a metric snapshot. */
export function engagementOf(counts: {
  likes: number;
  retweets: number;
  replies: number;
  quotes: number;
}): number {
  return counts.likes + counts.retweets + counts.replies + counts.quotes;
}

/** The one content type of a post: video > image > link > text. */
export function contentTypeOf(tweet: AnalyticsTweet): ContentType {
  let hasPhoto = false;
  for (const item of tweet.media) {
    if (item.type === 'video' || item.type === 'animated_gif') return 'video';
    if (item.type === 'photo') hasPhoto = true;
  }
  if (hasPhoto) return 'image';
  for (const url of tweet.urls) if (!STATUS_URL.test(url)) return 'link';
  return 'text';
}

/** The latest profile snapshot's counts; on equal times the one listed last wins. */
function latestProfile(input: AnalyticsInput): { followers: number; following: number } | null {
  let latest: { takenAt: number; followers: number; following: number } | null = null;
  for (const snapshot of input.profileSnapshots) {
    if (latest === null || snapshot.takenAt >= latest.takenAt) latest = snapshot;
  }
  return latest && { followers: latest.followers, following: latest.following };
}

function isInWindow(ms: number, window: { start: number; end: number }): boolean {
  return ms >= window.start && ms <= window.end;
}

/**
 * Filters a handle's data to its window (both ends inclusive) and derives, once per post, the
 * local buckets, engagement and content type every block needs.
 */
export function prepareWindow(input: AnalyticsInput): PreparedWindow {
  const { window } = input;
  const calendar = zoneCalendar(input.timezone);
  const posts: PreparedPost[] = [];
  const totals: PostTotals = { likes: 0, retweets: 0, replies: 0, quotes: 0, engagement: 0 };
  let retweetCount = 0;

  for (const tweet of input.tweets) {
    if (!isInWindow(tweet.createdAt, window)) continue;
    if (tweet.isRetweet) {
      retweetCount += 1;
      continue;
    }
    const local = tweet.createdAt + calendar.offsetAt(tweet.createdAt);
    const day = dayNumber(local);
    const engagement = engagementOf(tweet);
    posts.push(
      new Post(tweet, weekdayOf(day), hourOf(local), day, engagement, contentTypeOf(tweet)),
    );
    totals.likes += tweet.likes;
    totals.retweets += tweet.retweets;
    totals.replies += tweet.replies;
    totals.quotes += tweet.quotes;
    totals.engagement += engagement;
  }

  const profileSnapshots = input.profileSnapshots
    .filter((snapshot) => isInWindow(snapshot.takenAt, window))
    .sort((a, b) => a.takenAt - b.takenAt)
    .map((snapshot) => ({
      takenAt: snapshot.takenAt,
      followers: snapshot.followers,
      day: localDay(calendar, snapshot.takenAt),
    }));
  const profile = latestProfile(input);

  return {
    handle: input.handle,
    xUserId: input.xUserId,
    timezone: input.timezone,
    window: { start: window.start, end: window.end },
    firstDay: localDay(calendar, window.start),
    lastDay: localDay(calendar, window.end),
    posts,
    retweetCount,
    totals,
    followers: profile?.followers ?? null,
    following: profile?.following ?? null,
    profileSnapshots,
    metricSnapshots: input.metricSnapshots,
    ...(input.wordDays ? { wordDays: input.wordDays } : {}),
  };
}
