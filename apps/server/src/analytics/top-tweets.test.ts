import { describe, expect, it } from 'vitest';
import { at, makeTweet, prepare } from './test-factories.js';
import { topTweets } from './top-tweets.js';

const NOON = at('2026-03-10T12:00:00.000Z');
const tweets = [
  makeTweet({ id: '1', likes: 5, retweets: 1, replies: 9, quotes: 0, createdAt: NOON - 3_000 }),
  makeTweet({ id: '2', likes: 7, retweets: 0, replies: 0, quotes: 2, createdAt: NOON - 2_000 }),
  // Same likes as 2 but newer: ranks first among the 7s.
  makeTweet({ id: '3', likes: 7, retweets: 3, replies: 0, quotes: 0, createdAt: NOON - 1_000 }),
  // 9 and 10 tie on likes and time: 10 is the larger id as a number (not as text).
  makeTweet({ id: '9', likes: 2, retweets: 0, replies: 0, quotes: 5, createdAt: NOON }),
  makeTweet({ id: '10', likes: 2, retweets: 0, replies: 1, quotes: 0, createdAt: NOON }),
  makeTweet({ id: '11', likes: 500, retweets: 500, isRetweet: true, createdAt: NOON }),
];

const ids = (sortBy?: Parameters<typeof topTweets>[1], limit?: number) =>
  topTweets(prepare({ tweets }), sortBy, limit).tweets.map((tweet) => tweet.id);

describe('topTweets', () => {
  it('sorts posts by likes by default, ties newest first, then by larger id', () => {
    const result = topTweets(prepare({ tweets }));
    expect(result.sort_by).toBe('like_count');
    expect(result.tweets.map((tweet) => tweet.id)).toEqual(['3', '2', '1', '10', '9']);
  });

  it('sorts by each metric and by engagement', () => {
    expect(ids('retweet_count')).toEqual(['3', '1', '10', '9', '2']);
    expect(ids('reply_count')).toEqual(['1', '10', '9', '3', '2']);
    expect(ids('quote_count')).toEqual(['9', '2', '10', '3', '1']);
    // Engagement: 1 -> 15, 2 -> 9, 3 -> 10, 9 -> 7, 10 -> 3.
    expect(ids('engagement')).toEqual(['1', '3', '2', '9', '10']);
  });

  it('keeps at most `limit` posts', () => {
    expect(ids('like_count', 2)).toEqual(['3', '2']);
    expect(ids('engagement', 1)).toEqual(['1']);
    expect(ids('like_count', 100)).toHaveLength(5);
  });

  it('shows each post as the API tweet plus its engagement', () => {
    const [first] = topTweets(prepare({ tweets }), 'engagement', 1).tweets;
    expect(first).toMatchObject({
      id: '1',
      url: 'https://x.com/perch_dev/status/1',
      created_at: '2026-03-10T11:59:57.000Z',
      like_count: 5,
      retweet_count: 1,
      reply_count: 9,
      quote_count: 0,
      engagement: 15,
    });
  });

  it('is empty for a window with no posts', () => {
    expect(topTweets(prepare(), 'quote_count')).toEqual({ sort_by: 'quote_count', tweets: [] });
  });
});
