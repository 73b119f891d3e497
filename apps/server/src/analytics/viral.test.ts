import { describe, expect, it } from 'vitest';
import { makeProfileSnapshot, makeTweet, prepare } from './test-factories.js';
import { viral } from './viral.js';

describe('viral', () => {
  it('flags posts at 3x the median engagement and measures amplification', () => {
    const prepared = prepare({
      tweets: [
        makeTweet({ id: '1', likes: 1 }),
        makeTweet({ id: '2', likes: 1, retweets: 2 }),
        makeTweet({ id: '3', likes: 3, quotes: 2 }),
        makeTweet({ id: '4', likes: 20, retweets: 15, quotes: 5 }),
        makeTweet({ id: '5', likes: 900, retweets: 900, isRetweet: true }),
      ],
      profileSnapshots: [makeProfileSnapshot('2026-03-02T00:00:00.000Z', 300)],
    });
    const result = viral(prepared);
    // Engagements 1, 3, 5, 40: median (3 + 5) / 2 = 4, threshold max(10, 12) = 12.
    expect(result).toMatchObject({
      threshold: 12,
      viral_tweet_count: 1,
      score: 25,
      // Retweets + quotes = 17 + 7 = 24 over 4 posts, and over 25 likes.
      amplification_factor: 6,
      coefficient: 0.96,
    });
    // 24 / 300 x 100.
    expect(result.network_amplification).toBeCloseTo(8, 12);
  });

  it('uses the floor of 10 for quiet accounts, inclusively', () => {
    const engagements = [0, 1, 2, 10];
    const result = viral(
      prepare({ tweets: engagements.map((likes, i) => makeTweet({ id: String(i + 1), likes })) }),
    );
    // Median 1.5: 3 x 1.5 = 4.5 is under the floor.
    expect(result).toMatchObject({ threshold: 10, viral_tweet_count: 1, score: 25 });
    expect(result.network_amplification).toBeNull();
  });

  it('takes the middle value as the median of an odd count', () => {
    const engagements = [5, 50, 7];
    const result = viral(
      prepare({
        tweets: engagements.map((replies, i) => makeTweet({ id: String(i + 1), replies })),
      }),
    );
    expect(result).toMatchObject({ threshold: 21, viral_tweet_count: 1 });
    // No likes at all: divided by 1, not by 0.
    expect(result.coefficient).toBe(0);
  });

  it('divides by at least one like for the coefficient', () => {
    const result = viral(prepare({ tweets: [makeTweet({ id: '1', retweets: 3, quotes: 1 })] }));
    expect(result.coefficient).toBe(4);
    expect(result.amplification_factor).toBe(4);
  });

  it('is 0 (and null without followers) for an empty window', () => {
    expect(viral(prepare())).toEqual({
      threshold: 10,
      viral_tweet_count: 0,
      score: 0,
      amplification_factor: 0,
      coefficient: 0,
      network_amplification: null,
    });
  });
});
