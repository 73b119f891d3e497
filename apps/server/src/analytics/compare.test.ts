import { COMPARED_SUMMARY_FIELDS, percentChange } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { previousPeriod, summaryChange } from './compare.js';
import { summary } from './summary.js';
import { at, makeProfileSnapshot, makeTweet, marchDays, prepare } from './test-factories.js';

describe('percentChange', () => {
  it('is the change in percent of the previous value', () => {
    expect(percentChange(150, 100)).toBe(50);
    expect(percentChange(50, 100)).toBe(-50);
    expect(percentChange(100, 100)).toBe(0);
    expect(percentChange(0, 4)).toBe(-100);
    expect(percentChange(3.3, 2.2)).toBeCloseTo(50, 9);
  });

  it('is null, never Infinity or NaN, from 0 or an unknown value', () => {
    expect(percentChange(5, 0)).toBeNull();
    expect(percentChange(0, 0)).toBeNull();
    expect(percentChange(null, 3)).toBeNull();
    expect(percentChange(3, null)).toBeNull();
    expect(percentChange(Number.MAX_VALUE, Number.MIN_VALUE)).toBeNull();
  });
});

describe('previousPeriod', () => {
  // The week of 8-15 March 2026 and the week before it, ending 1 ms before the week starts.
  const week = { start: at('2026-03-08T12:00:00.000Z'), end: at('2026-03-15T12:00:00.000Z') };
  const before = { start: at('2026-03-01T12:00:00.000Z'), end: at('2026-03-08T11:59:59.999Z') };
  const tweets = [
    // The week: 3 posts, 30 likes, 6 retweets, 0 quotes.
    makeTweet({ id: '1', createdAt: at('2026-03-08T12:00:00.000Z'), likes: 10, retweets: 2 }),
    makeTweet({ id: '2', createdAt: at('2026-03-10T09:00:00.000Z'), likes: 10, retweets: 2 }),
    makeTweet({ id: '3', createdAt: at('2026-03-15T12:00:00.000Z'), likes: 10, retweets: 2 }),
    // The week before: 2 posts, 20 likes, 0 retweets, 0 quotes, and a retweet (not a post).
    makeTweet({ id: '4', createdAt: at('2026-03-01T12:00:00.000Z'), likes: 5 }),
    makeTweet({ id: '5', createdAt: at('2026-03-08T11:59:59.999Z'), likes: 15 }),
    makeTweet({ id: '6', createdAt: at('2026-03-05T12:00:00.000Z'), isRetweet: true }),
  ];
  const snapshots = [
    makeProfileSnapshot('2026-03-02T00:00:00.000Z', 200),
    makeProfileSnapshot('2026-03-07T00:00:00.000Z', 250),
    makeProfileSnapshot('2026-03-14T00:00:00.000Z', 300),
  ];

  it('sums the previous period by the same rules and gives the change of each field', () => {
    const current = summary(prepare({ tweets, profileSnapshots: snapshots, window: week }));
    // The service reads no snapshot after the previous period: followers as of its end.
    const earlier = snapshots.filter((snapshot) => snapshot.takenAt <= before.end);
    const previous = previousPeriod(
      prepare({ tweets, profileSnapshots: earlier, window: before }),
      current,
    );
    expect(previous.window).toEqual(before);
    expect(previous.summary).toMatchObject({
      total_tweets: 2,
      total_likes: 20,
      total_retweets: 0,
      total_quotes: 0,
      avg_engagement: 10,
      followers: 250,
      // 10 / 250 x 100.
      engagement_rate: 4,
      // (250 - 200) / 200 x 100.
      growth_rate: 25,
    });
    expect(previous.change).toEqual({
      total_tweets: 50, // 3 against 2
      total_likes: 50, // 30 against 20
      total_retweets: null, // 6 against 0: no percentage
      total_replies: null, // 0 against 0
      total_quotes: null,
      avg_likes_per_tweet: 0, // 10 against 10
      avg_retweets_per_tweet: null,
      avg_replies_per_tweet: null,
      avg_engagement: 20, // 12 against 10
      engagement_rate: 0, // 12 / 300 = 4% against 10 / 250 = 4%
      followers: 20, // 300 against 250
    });
    expect(Object.keys(previous.change).sort()).toEqual([...COMPARED_SUMMARY_FIELDS].sort());
  });

  it('lists the previous days oldest first, one per local day like the window', () => {
    const current = prepare({ tweets, window: week });
    const previous = previousPeriod(prepare({ tweets, window: before }), summary(current));
    const dates = previous.timeSeries.series.map((point) => point.date);
    expect(dates).toEqual(marchDays(1, 8));
    expect(dates).toHaveLength(current.lastDay - current.firstDay + 1);
    expect(previous.timeSeries.series.map((point) => point.likes)).toEqual([
      5, 0, 0, 0, 0, 0, 0, 15,
    ]);
  });

  it('an empty previous period: zeros, and no percentage anywhere', () => {
    const current = summary(prepare({ tweets, profileSnapshots: snapshots, window: week }));
    const previous = previousPeriod(
      prepare({
        window: { start: at('2025-03-01T00:00:00.000Z'), end: at('2025-03-08T00:00:00.000Z') },
      }),
      current,
    );
    expect(previous.summary.total_tweets).toBe(0);
    expect(previous.summary.followers).toBeNull();
    expect(Object.values(previous.change).every((value) => value === null)).toBe(true);
    expect(JSON.stringify(previous)).not.toMatch(/Infinity|NaN/);
  });

  it('summaryChange compares only the compared fields', () => {
    const empty = summary(prepare());
    expect(Object.keys(summaryChange(empty, empty))).toHaveLength(COMPARED_SUMMARY_FIELDS.length);
  });
});
