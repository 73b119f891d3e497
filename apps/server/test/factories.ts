/**
 * Builders of what the server tests store and compare: a post as a source returns it
 * (SourceTweet), the row the tweets table keeps of it, and a profile as a source returns it. Every field has a plain default, so a
 * test spells out only what it is about. The analytics engine's own input (AnalyticsTweet) has
 * its builders beside the engine, in src/analytics/test-factories.ts.
 */
import type { Insertable } from 'kysely';
import type { TweetsTable } from '../src/db/types.js';
import type { SourceProfile, SourceTweet } from '../src/domain/tweet-source.js';
import { storedTweetColumns } from '../src/modules/tweets/tweets.repository.js';
import type { TweetNotice } from '../src/notify/types.js';

/** The counts of a post nobody engaged with (and whose views X did not tell). */
export const NO_ENGAGEMENT = {
  likeCount: 0,
  retweetCount: 0,
  replyCount: 0,
  quoteCount: 0,
  impressionCount: null,
} as const satisfies Partial<SourceTweet>;

let tweetSeq = 1_800_000_000_000_000_000n;

/** A tweet id above every one handed out before it (19 digits, like X's). */
export function nextTweetId(): string {
  tweetSeq += 1n;
  return String(tweetSeq);
}

/**
 * A tweet as a source returns it: posted now, a little engagement on each count, no
 * references, entities or media; a fresh id unless `overrides` gives one.
 */
export function makeTweet(overrides: Partial<SourceTweet> = {}): SourceTweet {
  const id = nextTweetId();
  return {
    id,
    text: `Tweet number ${id}`,
    createdAt: new Date().toISOString(),
    lang: 'en',
    likeCount: 1,
    retweetCount: 2,
    replyCount: 3,
    quoteCount: 4,
    impressionCount: 100,
    conversationId: null,
    inReplyToUserId: null,
    referencedTypes: [],
    hashtags: [],
    urls: [],
    media: [],
    ...overrides,
  };
}

/**
 * An original post that starts its own conversation and has no engagement yet, as the
 * analytics tests lay out a timeline: text `post <id>`; override the counts that matter.
 */
export function originalPost(
  overrides: Partial<SourceTweet> & { id: string; createdAt: string },
): SourceTweet {
  return makeTweet({
    text: `post ${overrides.id}`,
    conversationId: overrides.id,
    ...NO_ENGAGEMENT,
    ...overrides,
  });
}

/**
 * The tweets-table row of `tweet` for `handleId`, as a direct insert writes it (first seen and
 * updated now); `fanout_pending` and `metrics_next_at` keep the table's defaults.
 */
export function tweetRow(
  handleId: number,
  tweet: SourceTweet = makeTweet(),
  now = new Date().toISOString(),
): Insertable<TweetsTable> {
  return storedTweetColumns(handleId, tweet, now);
}

/** A public profile as a source returns it: named after `username`, 10 following, 9 posts. */
export function sourceProfile(
  overrides: Partial<SourceProfile> & { username: string; xUserId: string },
): SourceProfile {
  return {
    name: overrides.username,
    followersCount: 0,
    followingCount: 10,
    tweetCount: 9,
    likeCount: null,
    protected: false,
    ...overrides,
  };
}

/** A post as the notifiers render it: a real one of @XDevelopers, with some engagement. */
export function makeNotice(overrides: Partial<TweetNotice> = {}): TweetNotice {
  return {
    handle: 'XDevelopers',
    authorName: 'X Developers',
    tweetId: '1524796546306478083',
    text: 'Launch day! #DevsInTheDetails',
    url: 'https://x.com/XDevelopers/status/1524796546306478083',
    createdAt: '2022-05-12T17:00:00.000Z',
    likes: 892,
    retweets: 156,
    replies: 23,
    quotes: 12,
    photoUrls: [],
    previewUrl: null,
    ...overrides,
  };
}
