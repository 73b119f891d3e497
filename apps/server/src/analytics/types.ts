import type { MediaType } from '../domain/tweet-source.js';

/**
 * What the analytics engine reads: a handle's stored tweets and snapshots, already parsed from
 * their rows. Times are epoch milliseconds (UTC) so the engine never parses dates in a loop.
 */
export interface AnalyticsTweet {
  id: string;
  /**
   * Null when it was not loaded: the tweet is a post of `AnalyticsInput.wordDays`, whose counts
   * stand in for its words, and no block shows it (the service loads the texts of the posts a
   * block shows, see `topPosts`).
   */
  text: string | null;
  createdAt: number;
  lang: string | null;
  likes: number;
  retweets: number;
  replies: number;
  quotes: number;
  impressions: number | null;
  conversationId: string | null;
  inReplyToUserId: string | null;
  isRetweet: boolean;
  isQuote: boolean;
  isReply: boolean;
  hashtags: string[];
  /** Expanded URLs of the tweet's URL entities that are not media links. */
  urls: string[];
  media: { type: MediaType; url: string | null; previewUrl: string | null }[];
}

export interface ProfileSnapshot {
  takenAt: number;
  followers: number;
  following: number;
  tweetCount: number;
  likeCount: number | null;
}

export interface MetricSnapshot {
  tweetId: string;
  takenAt: number;
  likes: number;
  retweets: number;
  replies: number;
  quotes: number;
}

/** Everything one computation needs; the engine filters by the window itself. */
export interface AnalyticsInput {
  /** The handle's name as stored (its X spelling). */
  handle: string;
  /** The handle's X user id: replies to it are the handle replying to itself (threads). */
  xUserId: string | null;
  /** The handle's tweets, retweets included, in any order (the window filter is the engine's). */
  tweets: readonly AnalyticsTweet[];
  /** Profile snapshots, in any order. */
  profileSnapshots: readonly ProfileSnapshot[];
  /** Metric snapshots of the tweets, in any order. */
  metricSnapshots: readonly MetricSnapshot[];
  /** The window: [start, end] in epoch ms (start = end - period days). */
  window: { start: number; end: number };
  /** IANA time zone of every day and hour bucket. */
  timezone: string;
  /**
   * Word counts kept for a span of the window (whole UTC days): the words block adds them
   * instead of reading the texts of the posts created in the span. Without it every post's
   * text is read.
   */
  wordDays?: WordDays;
}

/**
 * The word counts (`countWords`) of the posts created in [start, end), retweets left out: the
 * sum of the counts kept per UTC day (tweet_word_days).
 */
export interface WordDays {
  start: number;
  end: number;
  counts: ReadonlyMap<string, number>;
}
