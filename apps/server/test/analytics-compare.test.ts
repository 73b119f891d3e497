import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  INVALID_COMPARE_MESSAGE,
  completeAnalyticsSchema,
  type CompleteAnalytics,
} from '@perch/shared';
import { insertProfileSnapshot, upsertTweets } from '../src/modules/tweets/tweets.repository.js';
import { dataOf, expectError } from './assertions.js';
import { originalPost, sourceProfile } from './factories.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { emptiedAndHeld, followCollected } from './seed.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(DIALECTS)('analytics: compare with the previous period (%s)', (dialect) => {
  let t: TestApp;
  let alice: TestClient;
  let handleId: number;
  let xUserId: string;
  let now: number;
  const at = (msAgo: number) => new Date(now - msAgo).toISOString();
  const cmpProfile = (followersCount: number) =>
    sourceProfile({ username: 'typical_cmp', xUserId, followersCount });

  const complete = async (query: string) =>
    dataOf(
      await alice.get(`/api/v1/analytics/complete/typical_cmp${query}`),
      completeAnalyticsSchema,
    );

  beforeEach(async () => {
    t = await buildTestApp(dialect);
    alice = new TestClient(t.app);
    await alice.register(t.db, 'alice');
    const row = await followCollected(t, alice, 'typical_cmp');
    handleId = row.id;
    xUserId = row.x_user_id;
    // Nothing else arrives during the test: the next poll is a day away.
    await emptiedAndHeld(t, row.id);
    now = Date.now();
    await upsertTweets(
      t.db.db,
      row.id,
      [
        // This week: 3 posts (60 likes, 6 retweets, 3 replies, 0 quotes) and a retweet.
        originalPost({ id: '201', createdAt: at(6 * DAY), likeCount: 10, retweetCount: 2 }),
        originalPost({ id: '202', createdAt: at(2 * DAY), likeCount: 20, replyCount: 3 }),
        originalPost({ id: '203', createdAt: at(3 * HOUR), likeCount: 30, retweetCount: 4 }),
        originalPost({ id: '204', createdAt: at(HOUR), referencedTypes: ['retweeted'] }),
        // The week before: 2 posts (40 likes, 0 retweets, 1 reply, 2 quotes).
        originalPost({ id: '101', createdAt: at(8 * DAY), likeCount: 15, quoteCount: 2 }),
        originalPost({ id: '102', createdAt: at(13 * DAY), likeCount: 25, replyCount: 1 }),
        // Before both weeks, inside this month.
        originalPost({ id: '001', createdAt: at(20 * DAY), likeCount: 1000 }),
      ],
      at(0),
    );
    await insertProfileSnapshot(t.db.db, row.id, cmpProfile(800), at(12 * DAY));
    await insertProfileSnapshot(t.db.db, row.id, cmpProfile(1000), at(9 * DAY));
    await insertProfileSnapshot(t.db.db, row.id, cmpProfile(1100), at(HOUR));
  });

  afterEach(async () => {
    await t.close();
  });

  it('compare=previous adds the week before: its summary, its days and the changes, exactly', async () => {
    const data = await complete('?period=7&timezone=UTC&compare=previous');
    const previous = data.previous;
    if (!previous) throw new Error('no previous block');
    // The previous period ends 1 ms before the window starts and is as long.
    const start = Date.parse(data.window.start);
    expect(Date.parse(previous.window.end)).toBe(start - 1);
    expect(Date.parse(previous.window.start)).toBe(start - 7 * DAY);

    expect(data.summary).toMatchObject({
      total_tweets: 3,
      total_likes: 60,
      total_retweets: 6,
      total_replies: 3,
      total_quotes: 0,
      followers: 1100,
    });
    expect(previous.summary).toMatchObject({
      total_tweets: 2,
      total_likes: 40,
      total_retweets: 0,
      total_replies: 1,
      total_quotes: 2,
      avg_likes_per_tweet: 20,
      avg_engagement: 21.5, // (17 + 26) / 2
      // As of the previous period's end: the snapshot of 9 days ago, not today's.
      followers: 1000,
      engagement_rate: 2.15, // 21.5 / 1000 x 100
      growth_rate: 25, // 800 -> 1000 inside the previous week
    });
    expect(previous.summary.peak_times.map((cell) => cell.count)).toEqual([1, 1]);
    expect(previous.change.total_tweets).toBe(50); // 3 against 2
    expect(previous.change.total_likes).toBe(50); // 60 against 40
    expect(previous.change.total_retweets).toBeNull(); // 6 against 0: no percentage
    expect(previous.change.total_replies).toBe(200); // 3 against 1
    expect(previous.change.total_quotes).toBe(-100); // 0 against 2
    expect(previous.change.followers).toBe(10); // 1100 against 1000
    // avg engagement 23 (12 + 23 + 34) / 3 against 21.5.
    expect(previous.change.avg_engagement).toBeCloseTo(((23 - 21.5) / 21.5) * 100, 9);
    // engagement rate 23 / 1100 x 100 against 2.15.
    expect(previous.change.engagement_rate).toBeCloseTo(((23 / 11 - 2.15) / 2.15) * 100, 9);

    // The days line up by offset: point i of the previous week is 7 days before point i.
    const days = data.timeSeries.series;
    const before = previous.timeSeries.series;
    expect(before).toHaveLength(days.length);
    before.forEach((point, index) => {
      expect(Date.parse(point.date) + 7 * DAY).toBe(Date.parse(days[index]!.date));
    });
    expect(before.reduce((sum, point) => sum + point.tweets, 0)).toBe(2);
    expect(before.reduce((sum, point) => sum + point.likes, 0)).toBe(40);
    const day8 = before.find((point) => point.date === at(8 * DAY).slice(0, 10));
    expect(day8).toMatchObject({ tweets: 1, likes: 15, quotes: 2, engagement: 17 });
    // That day's rate divides by the previous period's followers: 17 / 1 / 1000 x 100.
    expect(day8?.engagement_rate).toBeCloseTo(1.7, 9);
  });

  it('without compare the payload has no previous block and is otherwise the same', async () => {
    const plain = await complete('?period=7&timezone=UTC');
    expect(plain).not.toHaveProperty('previous');
    const compared = await complete('?period=7&timezone=UTC&compare=previous');
    const { previous, ...rest } = compared;
    expect(previous).toBeDefined();
    expect(rest).toEqual(plain);
    // The single summary block is unchanged by any compare value.
    const summary = await alice.get('/api/v1/analytics/summary/typical_cmp?period=7');
    expect(summary.json<{ data: Record<string, unknown> }>().data).not.toHaveProperty('previous');
  });

  it('an empty previous period: zeros, no follower count, every change null; never Infinity or NaN', async () => {
    // The month before this one (30 to 60 days ago) holds nothing.
    const response = await alice.get(
      '/api/v1/analytics/complete/typical_cmp?period=30&compare=previous',
    );
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toMatch(/Infinity|NaN/);
    const data = dataOf(response, completeAnalyticsSchema);
    expect(data.summary.total_tweets).toBe(6);
    expect(data.previous?.summary).toMatchObject({
      total_tweets: 0,
      total_likes: 0,
      avg_engagement: 0,
      followers: null,
      engagement_rate: null,
      growth_rate: null,
      peak_day: null,
      peak_hour: null,
    });
    expect(Object.values(data.previous?.change ?? {})).toEqual(
      Array.from({ length: 11 }, () => null),
    );
    expect(data.previous?.timeSeries.series.every((point) => point.tweets === 0)).toBe(true);
  });

  it('the previous days follow the requested timezone', async () => {
    const data = await complete('?period=7&timezone=Asia/Tokyo&compare=previous');
    const previous = data.previous!;
    const tokyoDay = (iso: string) =>
      new Date(Date.parse(iso) + 9 * HOUR).toISOString().slice(0, 10);
    expect(previous.timeSeries.series[0]?.date).toBe(tokyoDay(previous.window.start));
    expect(previous.timeSeries.series.at(-1)?.date).toBe(tokyoDay(previous.window.end));
    expect(previous.summary.total_tweets).toBe(2);
  });

  it('cache and ETag: the comparison has its own tag, joins a cached computation, and new data reaches it', async () => {
    const url = '/api/v1/analytics/complete/typical_cmp?period=7';
    const plain = await alice.get(url);
    const plainTag = String(plain.headers.etag);
    // The same window with the comparison: computed with the cached window, tagged apart.
    const compared = await alice.get(`${url}&compare=previous`);
    const comparedTag = String(compared.headers.etag);
    expect(comparedTag).not.toBe(plainTag);
    const first = compared.json<{ data: CompleteAnalytics }>().data;
    expect(first.computed_at).toBe(plain.json<{ data: CompleteAnalytics }>().data.computed_at);
    expect(first.previous?.summary.total_tweets).toBe(2);

    const again = await alice.request({
      method: 'GET',
      url: `${url}&compare=previous`,
      headers: { 'if-none-match': comparedTag },
    });
    expect(again.statusCode).toBe(304);
    // The plain payload's tag does not answer for the comparison, nor the other way round.
    const crossed = await alice.request({
      method: 'GET',
      url: `${url}&compare=previous`,
      headers: { 'if-none-match': plainTag },
    });
    expect(crossed.statusCode).toBe(200);
    expect(crossed.json<{ data: CompleteAnalytics }>().data.previous).toBeDefined();
    const back = await alice.request({
      method: 'GET',
      url,
      headers: { 'if-none-match': comparedTag },
    });
    expect(back.statusCode).toBe(200);
    expect(back.json<{ data: CompleteAnalytics }>().data).not.toHaveProperty('previous');

    // A tweet stored in the previous week bumps the data version: the comparison is recomputed.
    await upsertTweets(
      t.db.db,
      handleId,
      [originalPost({ id: '103', createdAt: at(10 * DAY), likeCount: 60 })],
      new Date().toISOString(),
    );
    const after = await alice.request({
      method: 'GET',
      url: `${url}&compare=previous`,
      headers: { 'if-none-match': comparedTag },
    });
    expect(after.statusCode).toBe(200);
    const fresh = after.json<{ data: CompleteAnalytics }>().data;
    expect(fresh.previous?.summary).toMatchObject({ total_tweets: 3, total_likes: 100 });
    expect(fresh.previous?.change).toMatchObject({ total_tweets: 0, total_likes: -40 });
  });

  it('refresh answers with the comparison when asked for it', async () => {
    const refreshed = await alice.post(
      '/api/v1/analytics/refresh/typical_cmp?period=7&compare=previous',
    );
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const data = dataOf(refreshed, completeAnalyticsSchema);
    // The refresh's poll may bring new demo tweets; the comparison is the one now cached.
    expect(data.previous).toBeDefined();
    const cached = await complete('?period=7&compare=previous');
    expect(data.previous).toEqual(cached.previous);
    expect(data.computed_at).toBe(cached.computed_at);
  });

  it('any other compare value is a 400 with the reason', async () => {
    for (const value of ['next', '', 'PREVIOUS', 'previous,next', '1']) {
      expectError(
        await alice.get(
          `/api/v1/analytics/complete/typical_cmp?period=7&compare=${encodeURIComponent(value)}`,
        ),
        400,
        { message: INVALID_COMPARE_MESSAGE, code: 'VALIDATION_ERROR' },
      );
    }
    expectError(
      await alice.get('/api/v1/analytics/complete/typical_cmp?compare=previous&compare=previous'),
      400,
      { message: INVALID_COMPARE_MESSAGE },
    );
    expectError(await alice.post('/api/v1/analytics/refresh/typical_cmp?compare=last'), 400, {
      message: INVALID_COMPARE_MESSAGE,
    });
  });
});
