import { describe, expect, it } from 'vitest';
import { summary } from './summary.js';
import { at, makeProfileSnapshot, makeTweet, prepare } from './test-factories.js';

describe('summary', () => {
  it('is zeros and nulls for an empty window without snapshots', () => {
    expect(summary(prepare())).toEqual({
      handle: 'perch_dev',
      twitter_username: 'perch_dev',
      total_tweets: 0,
      total_likes: 0,
      total_retweets: 0,
      total_replies: 0,
      total_quotes: 0,
      avg_likes_per_tweet: 0,
      avg_retweets_per_tweet: 0,
      avg_replies_per_tweet: 0,
      avg_engagement: 0,
      engagement_rate: null,
      growth_rate: null,
      peak_day: null,
      peak_hour: null,
      peak_times: [],
      followers: null,
      following: null,
    });
  });

  it('gives an engagement rate of 0 for an empty window when followers are known', () => {
    const result = summary(
      prepare({ profileSnapshots: [makeProfileSnapshot('2026-03-05T00:00:00.000Z', 80)] }),
    );
    expect(result.engagement_rate).toBe(0);
    expect(result.followers).toBe(80);
  });

  it('sums and averages posts only, with rates over the latest follower count', () => {
    const prepared = prepare({
      tweets: [
        makeTweet({ id: '1', likes: 10, retweets: 4, replies: 2, quotes: 0 }),
        makeTweet({ id: '2', likes: 5, retweets: 0, replies: 1, quotes: 3 }),
        makeTweet({ id: '3', likes: 0, retweets: 2, replies: 0, quotes: 0 }),
        makeTweet({ id: '4', likes: 1000, retweets: 1000, isRetweet: true }),
      ],
      profileSnapshots: [
        makeProfileSnapshot('2026-03-02T00:00:00.000Z', 400, 30),
        makeProfileSnapshot('2026-03-20T00:00:00.000Z', 500, 35),
      ],
    });
    const result = summary(prepared);
    expect(result).toMatchObject({
      total_tweets: 3,
      total_likes: 15,
      total_retweets: 6,
      total_replies: 3,
      total_quotes: 3,
      avg_likes_per_tweet: 5,
      avg_retweets_per_tweet: 2,
      avg_replies_per_tweet: 1,
      // (16 + 9 + 2) / 3.
      avg_engagement: 9,
      // (500 - 400) / 400 x 100.
      growth_rate: 25,
      followers: 500,
      following: 35,
    });
    // 9 / 500 x 100.
    expect(result.engagement_rate).toBeCloseTo(1.8, 12);
  });

  it('has a null engagement rate with 0 followers', () => {
    const prepared = prepare({
      tweets: [makeTweet({ id: '1', likes: 3 })],
      profileSnapshots: [makeProfileSnapshot('2026-03-02T00:00:00.000Z', 0, 0)],
    });
    expect(summary(prepared)).toMatchObject({
      avg_engagement: 3,
      engagement_rate: null,
      followers: 0,
      following: 0,
    });
  });

  it('breaks peak day and hour ties towards the earliest weekday and smallest hour', () => {
    const tweets = [
      // Wednesday 2026-03-04 at 14:00 and 08:00; Monday 2026-03-02 at 14:00 and 08:00 (UTC).
      makeTweet({ id: '1', createdAt: at('2026-03-04T14:00:00.000Z') }),
      makeTweet({ id: '2', createdAt: at('2026-03-04T08:00:00.000Z') }),
      makeTweet({ id: '3', createdAt: at('2026-03-02T14:10:00.000Z') }),
      makeTweet({ id: '4', createdAt: at('2026-03-02T08:20:00.000Z') }),
      // Sunday 2026-03-08 at 20:00, once.
      makeTweet({ id: '5', createdAt: at('2026-03-08T20:00:00.000Z') }),
    ];
    const result = summary(prepare({ tweets }));
    expect(result.peak_day).toBe('Monday');
    expect(result.peak_hour).toBe(8);
    // Five cells of one post each: the first three by weekday, then hour.
    expect(result.peak_times).toEqual([
      { day: 'Monday', hour: 8, count: 1 },
      { day: 'Monday', hour: 14, count: 1 },
      { day: 'Wednesday', hour: 8, count: 1 },
    ]);
  });

  it('ranks peak times by count before weekday', () => {
    const tweets = [
      makeTweet({ id: '1', createdAt: at('2026-03-02T09:00:00.000Z') }),
      makeTweet({ id: '2', createdAt: at('2026-03-08T21:00:00.000Z') }),
      makeTweet({ id: '3', createdAt: at('2026-03-15T21:30:00.000Z') }),
      makeTweet({ id: '4', createdAt: at('2026-03-05T09:00:00.000Z') }),
      makeTweet({ id: '5', createdAt: at('2026-03-12T09:45:00.000Z') }),
    ];
    const result = summary(prepare({ tweets }));
    expect(result.peak_times).toEqual([
      { day: 'Thursday', hour: 9, count: 2 },
      { day: 'Sunday', hour: 21, count: 2 },
      { day: 'Monday', hour: 9, count: 1 },
    ]);
    // Sunday and Thursday both have 2: Thursday comes first in the week.
    expect(result.peak_day).toBe('Thursday');
    expect(result.peak_hour).toBe(9);
  });

  it('uses local time for the peaks', () => {
    // Monday 2026-03-02 23:30 UTC is Tuesday 05:00 in Kolkata (+05:30).
    const tweets = [makeTweet({ id: '1', createdAt: at('2026-03-02T23:30:00.000Z') })];
    const result = summary(prepare({ tweets, timezone: 'Asia/Kolkata' }));
    expect(result.peak_day).toBe('Tuesday');
    expect(result.peak_hour).toBe(5);
    expect(result.peak_times).toEqual([{ day: 'Tuesday', hour: 5, count: 1 }]);
  });
});
