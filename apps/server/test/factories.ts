/**
 * Builders of what the server tests store and compare: a post as a source returns it
 * (SourceTweet, built in source-tweets.ts), the row the tweets table keeps of it, and a profile
 * as a source returns it. Every field has a plain default, so a test spells out only what it is
 * about. The analytics engine's own input (AnalyticsTweet) has
 * its builders beside the engine, in src/analytics/test-factories.ts.
 */
import type { Insertable } from 'kysely';
import type { TweetsTable } from '../src/db/types.js';
import type { SourceProfile, SourceTweet } from '../src/domain/tweet-source.js';
import { storedTweetColumns } from '../src/modules/tweets/tweets.repository.js';
import type { TweetNotice } from '../src/notify/types.js';
import { makeTweet } from './source-tweets.js';

export { NO_ENGAGEMENT, makeTweet, nextTweetId, originalPost } from './source-tweets.js';

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
