import { describe, expect, it } from 'vitest';
import {
  availabilitySchema,
  completeAnalyticsSchema,
  tweetPageResponseSchema,
  type CompleteAnalytics,
  type Tweet,
} from '@perch/shared';
import { resetHandleData } from '../src/modules/admin/admin-collector.repository.js';
import { findHandleByName, updateHandle } from '../src/modules/handles/handles.repository.js';
import {
  insertMetricSnapshots,
  insertProfileSnapshot,
  upsertTweets,
} from '../src/modules/tweets/tweets.repository.js';
import { referenceAnalytics } from './analytics-reference.js';
import { dataOf, expectError } from './assertions.js';
import { originalPost, sourceProfile } from './factories.js';
import { DIALECTS, TestClient, type TestApp } from './helpers.js';
import { appWithAliceEachTest, emptiedAndHeld, followCollected } from './seed.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Deep equality where numbers may differ only in the last bits of a float (sums in another
 * order); anything else must be equal.
 */
function expectClose(actual: unknown, expected: unknown, path = 'data'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const scale = Math.max(1, Math.abs(expected));
    if (Math.abs(actual - expected) > 1e-9 * scale) {
      throw new Error(`${path}: expected ${expected}, got ${actual}`);
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      throw new Error(
        `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
      );
    }
    expected.forEach((value, index) => expectClose(actual[index], value, `${path}[${index}]`));
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') {
      throw new Error(`${path}: expected an object, got ${JSON.stringify(actual)}`);
    }
    for (const [key, value] of Object.entries(expected)) {
      expectClose((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    }
    return;
  }
  if (actual !== expected) {
    throw new Error(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

async function allTweets(client: TestClient, handle: string): Promise<Tweet[]> {
  const tweets: Tweet[] = [];
  for (let page = 1; ; page += 1) {
    const data = dataOf(
      await client.get(`/api/v1/handles/${handle}/tweets?page=${page}&limit=100`),
      tweetPageResponseSchema,
    );
    tweets.push(...data.tweets);
    if (!data.has_more) return tweets;
  }
}

/** Every block of a complete payload checked against the reference, from stored data. */
async function expectMatchesReference(
  t: TestApp,
  client: TestClient,
  handle: string,
  complete: CompleteAnalytics,
): Promise<void> {
  const row = await findHandleByName(t.db.db, handle);
  if (!row) throw new Error('no handle');
  const [profileSnapshots, metricSnapshots] = await Promise.all([
    t.db.db.selectFrom('profile_snapshots').selectAll().where('handle_id', '=', row.id).execute(),
    t.db.db
      .selectFrom('tweet_metric_snapshots')
      .selectAll()
      .where('handle_id', '=', row.id)
      .execute(),
  ]);
  const tweets = await allTweets(client, handle);
  const expected = referenceAnalytics({
    tweets,
    xUserId: row.x_user_id,
    profileSnapshots,
    metricSnapshots,
    window: complete.window,
    timezone: complete.timezone,
  });
  const { topTweetIds, ...blocks } = expected;
  expectClose(complete, blocks);
  expect(complete.topTweets.tweets.map((tweet) => tweet.id)).toEqual(topTweetIds);
  const byId = new Map(tweets.map((tweet) => [tweet.id, tweet]));
  for (const top of complete.topTweets.tweets) {
    const { engagement, ...tweet } = top;
    // The browser's alert badge is the reader's own, not part of the post.
    const { alert_rule_names: _badge, ...listed } = byId.get(top.id)!;
    expect(tweet).toEqual(listed);
    expect(engagement).toBe(top.like_count + top.retweet_count + top.reply_count + top.quote_count);
  }
}

describe.each(DIALECTS)('analytics API (%s)', (dialect) => {
  const suite = appWithAliceEachTest(dialect);

  const complete = async (client: TestClient, handle: string, query = '') =>
    dataOf(
      await client.get(`/api/v1/analytics/complete/${handle}${query}`),
      completeAnalyticsSchema,
    );

  it('a collected demo handle: every block equals docs/analytics.md over the listed tweets, for week, month and another timezone', async () => {
    await followCollected(suite.t, suite.alice, 'typical_ref', { backfill_days: 15 });
    // A refresh polls once more: fresh metrics (metric snapshots) and a second profile snapshot.
    const refreshed = await suite.alice.post('/api/v1/analytics/refresh/typical_ref');
    expect(refreshed.statusCode, refreshed.body).toBe(200);

    for (const query of [
      '',
      '?period=7',
      '?period=30&timezone=America/New_York',
      '?period=7&timezone=Asia/Kolkata',
    ]) {
      const data = await complete(suite.alice, 'typical_ref', query);
      expect(data.analytics_status).toBe('data_ready');
      expect(data.summary.total_tweets).toBeGreaterThan(0);
      await expectMatchesReference(suite.t, suite.alice, 'typical_ref', data);
      console.log(
        JSON.stringify({
          v: data.velocity,
          th: data.threadPerformance,
          g: data.growth,
          s: data.summary.total_tweets,
          ct: data.contentTypes,
          h: data.hashtags.hashtags.slice(0, 3),
        }),
      );
    }
    const week = await complete(suite.alice, 'typical_ref', '?period=week');
    const month = await complete(suite.alice, 'typical_ref', '?period=month');
    expect(week.period).toBe(7);
    expect(month.period).toBe(30);
    expect(week.timeSeries.series.length).toBeLessThan(month.timeSeries.series.length);
  });

  it('hand-made tweets stored through the repository: threads, media, links, retweets and snapshots', async () => {
    const row = await followCollected(suite.t, suite.alice, 'typical_hand');
    // Nothing else arrives during the test: the next poll is a day away.
    await emptiedAndHeld(suite.t, row.id);

    const now = Date.now();
    const at = (msAgo: number) => new Date(now - msAgo).toISOString();
    const me = row.x_user_id;
    await upsertTweets(
      suite.t.db.db,
      row.id,
      [
        originalPost({
          id: '100',
          createdAt: at(3 * DAY),
          likeCount: 40,
          retweetCount: 5,
          hashtags: ['AI', 'ai'],
        }),
        originalPost({
          id: '101',
          createdAt: at(3 * DAY - 60_000),
          conversationId: '100',
          inReplyToUserId: me,
          referencedTypes: ['replied_to'],
          likeCount: 10,
        }),
        originalPost({
          id: '102',
          createdAt: at(3 * DAY - 120_000),
          conversationId: '100',
          inReplyToUserId: '999',
          referencedTypes: ['replied_to'],
          likeCount: 1,
        }),
        originalPost({
          id: '103',
          createdAt: at(2 * DAY),
          media: [{ type: 'animated_gif', url: null, previewUrl: 'https://pbs.example/g.jpg' }],
          likeCount: 7,
          replyCount: 2,
        }),
        originalPost({
          id: '104',
          createdAt: at(1 * DAY),
          media: [{ type: 'photo', url: 'https://pbs.example/p.jpg', previewUrl: null }],
          urls: ['https://example.com/a'],
          quoteCount: 3,
        }),
        originalPost({
          id: '105',
          createdAt: at(10 * HOUR),
          urls: ['https://x.com/someone/status/123'],
          lang: null,
          referencedTypes: ['quoted'],
        }),
        originalPost({
          id: '106',
          createdAt: at(8 * HOUR),
          urls: ['https://example.org/b'],
          lang: 'de',
          hashtags: ['Ai'],
        }),
        originalPost({
          id: '107',
          createdAt: at(5 * HOUR),
          referencedTypes: ['retweeted'],
          likeCount: 500,
        }),
        originalPost({ id: '108', createdAt: at(40 * DAY), likeCount: 1000 }),
      ],
      at(0),
    );
    const profile = (followersCount: number, followingCount: number) =>
      sourceProfile({
        username: 'typical_hand',
        xUserId: me,
        name: 'x',
        followersCount,
        followingCount,
      });
    await insertProfileSnapshot(suite.t.db.db, row.id, profile(1000, 10), at(2 * DAY));
    await insertProfileSnapshot(suite.t.db.db, row.id, profile(1100, 11), at(HOUR));
    const snapshot = (id: string, likes: number) =>
      originalPost({ id, createdAt: at(10 * HOUR), likeCount: likes });
    await insertMetricSnapshots(suite.t.db.db, row.id, [snapshot('105', 4)], at(9 * HOUR)); // age 1 h
    await insertMetricSnapshots(suite.t.db.db, row.id, [snapshot('105', 16)], at(6 * HOUR)); // age 4 h

    const data = await complete(suite.alice, 'typical_hand', '?period=7&timezone=Europe/Berlin');
    await expectMatchesReference(suite.t, suite.alice, 'typical_hand', data);
    // A few values worked out by hand, so the reference itself is checked too.
    expect(data.summary.total_tweets).toBe(7); // 100-106; 107 is a retweet, 108 is too old
    expect(data.summary.total_likes).toBe(58);
    expect(data.summary.followers).toBe(1100);
    expect(data.contentTypes).toEqual({
      text: 4,
      image: 1,
      video: 1,
      link: 1,
      retweets: 1,
      replies: 2,
      quotes: 1,
    });
    expect(data.hashtags.hashtags).toEqual([{ tag: 'AI', count: 2 }]);
    expect(data.threadPerformance).toMatchObject({
      thread_count: 1,
      best_thread: { conversation_id: '100', length: 2, engagement: 55 },
    });
    expect(data.mediaStats).toMatchObject({ photos: 1, videos: 0, gifs: 1, posts_with_media: 2 });
    // Post 105: 4 at age 1 h, 16 at age 4 h -> 12 at age 3 h (12 / 3 = 4 per hour); 6 h unknown.
    expect(data.velocity).toMatchObject({
      posts_measured_1h: 1,
      posts_measured_3h: 1,
      posts_measured_6h: 0,
      avg_6h: null,
    });
    expect(data.velocity.avg_1h).toBeCloseTo(4, 9);
    expect(data.velocity.avg_3h).toBeCloseTo(4, 9);
    expect(data.velocity.peak).toBeCloseTo(4, 9);
    expect(data.growth).toMatchObject({ net_change: 100, growth_rate: 10 });
    expect(data.languages.languages).toEqual([
      { lang: 'en', count: 5, percentage: (5 / 7) * 100 },
      { lang: 'de', count: 1, percentage: (1 / 7) * 100 },
      { lang: 'und', count: 1, percentage: (1 / 7) * 100 },
    ]);
  });

  it('words of whole days come from counts kept per day, and follow new posts, longer texts and a reset', async () => {
    const row = await followCollected(suite.t, suite.alice, 'typical_words');
    await emptiedAndHeld(suite.t, row.id);
    const url = '?period=7&timezone=America/New_York';
    const dayStart = Math.floor(Date.now() / DAY) * DAY;
    // 3 and 4 days ago are whole UTC days of the window; the first and the last are cut.
    const at = (day: number, ms: number) => new Date(dayStart - day * DAY + ms).toISOString();
    const store = (tweets: Parameters<typeof upsertTweets>[2]) =>
      upsertTweets(suite.t.db.db, row.id, tweets, new Date().toISOString());
    const post = (id: string, text: string, createdAt: string, likeCount = 1) =>
      originalPost({ id, text, createdAt, likeCount });
    await store([
      post('200', 'Parrots perch on branches https://t.co/x', at(3, 1000), 500),
      post('201', 'parrots and macaws', at(4, DAY - 1)),
      post('202', 'macaws at dawn', at(7, DAY - 1)),
      post('203', 'parrots today', new Date(Date.now() - 60_000).toISOString()),
    ]);

    const wordsOf = (data: CompleteAnalytics) =>
      Object.fromEntries(data.words.words.map(({ word, count }) => [word, count]));
    let data = await complete(suite.alice, 'typical_words', url);
    await expectMatchesReference(suite.t, suite.alice, 'typical_words', data);
    expect(wordsOf(data)).toMatchObject({ parrots: 3, macaws: 2, perch: 1, branches: 1 });
    // The top post's text was not loaded with the window's posts, and is shown whole.
    expect(data.topTweets.tweets[0]).toMatchObject({
      id: '200',
      text: 'Parrots perch on branches https://t.co/x',
    });
    const kept = await suite.t.db.db
      .selectFrom('tweet_word_days')
      .select('counts')
      .where('handle_id', '=', row.id)
      .where('counts', 'is not', null)
      .execute();
    expect(kept.length).toBeGreaterThanOrEqual(5);

    // A new post on a kept day, and the full text of a post stored truncated.
    await store([
      post('204', 'Macaws macaws', at(3, 2 * HOUR)),
      post('201', 'parrots and macaws and cockatoos, the whole text', at(4, DAY - 1)),
    ]);
    data = await complete(suite.alice, 'typical_words', url);
    await expectMatchesReference(suite.t, suite.alice, 'typical_words', data);
    expect(wordsOf(data)).toMatchObject({ parrots: 3, macaws: 4, cockatoos: 1, whole: 1 });

    // A reset takes the kept counts with the posts.
    await suite.t.db.db
      .transaction()
      .execute((trx) => resetHandleData(trx, row.id, new Date().toISOString()));
    await updateHandle(suite.t.db.db, row.id, {
      backfill_status: 'completed',
      next_poll_at: new Date(Date.now() + DAY).toISOString(),
    });
    data = await complete(suite.alice, 'typical_words', url);
    expect(data.words.words).toEqual([]);
  });

  it('every block path answers its block with the meta fields, and the complete payload agrees', async () => {
    await followCollected(suite.t, suite.alice, 'typical_paths', { backfill_days: 7 });
    const whole = await complete(suite.alice, 'typical_paths', '?period=7');
    // A 7-day backfill covers the week: collection reaches back to its target start.
    const stored = await findHandleByName(suite.t.db.db, 'typical_paths');
    expect(whole.collected_since).toBe(stored?.backfill_target_start);
    expect(Date.parse(whole.collected_since ?? '')).toBeLessThanOrEqual(
      Date.parse(whole.window.start) + 60_000,
    );
    const paths: [string, keyof CompleteAnalytics][] = [
      ['summary', 'summary'],
      ['top_tweets', 'topTweets'],
      ['timeseries', 'timeSeries'],
      ['content_breakdown', 'contentTypes'],
      ['engagement', 'engagement'],
      ['viral', 'viral'],
      ['enhanced-content', 'enhancedContent'],
      ['engagement-distribution', 'engagementDistribution'],
      ['interaction-breakdown', 'interactionBreakdown'],
      ['velocity', 'velocity'],
      ['thread-performance', 'threadPerformance'],
      ['languages', 'languages'],
      ['hashtags', 'hashtags'],
      ['posting-patterns', 'postingPatterns'],
      ['media-stats', 'mediaStats'],
      ['growth', 'growth'],
      ['words', 'words'],
    ];
    for (const [path, key] of paths) {
      const response = await suite.alice.get(`/api/v1/analytics/${path}/typical_paths?period=7`);
      expect(response.statusCode, `${path}: ${response.body}`).toBe(200);
      const body = response.json<{ data: Record<string, unknown> }>();
      expect(body.data, path).toMatchObject(whole[key] as Record<string, unknown>);
      expect(body.data, path).toMatchObject({
        handle: 'typical_paths',
        analytics_status: 'data_ready',
        period: 7,
      });
    }
    const byRetweets = await suite.alice.get(
      '/api/v1/analytics/top_tweets/typical_paths?sortBy=retweet_count&limit=3',
    );
    const top = byRetweets.json<{ data: { sort_by: string; tweets: Tweet[] } }>().data;
    expect(top.sort_by).toBe('retweet_count');
    expect(top.tweets.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < top.tweets.length; i += 1) {
      expect(top.tweets[i - 1]!.retweet_count).toBeGreaterThanOrEqual(top.tweets[i]!.retweet_count);
    }
    const rate = await suite.alice.get(
      '/api/v1/analytics/timeseries/typical_paths?metric=engagement_rate&period=7',
    );
    const rateData = rate.json<{
      data: { metric: string; series: { date: string; value: number | null }[] };
    }>().data;
    expect(rateData.metric).toBe('engagement_rate');
    expect(rateData.series).toEqual(
      whole.timeSeries.series.map((p) => ({ date: p.date, value: p.engagement_rate })),
    );
    const tags = await suite.alice.get('/api/v1/analytics/hashtags/typical_paths?limit=2');
    expect(tags.json<{ data: { hashtags: unknown[] } }>().data.hashtags).toEqual(
      whole.hashtags.hashtags.slice(0, 2),
    );
  });

  it('bad input: blank or malformed handle 400 with the spec text, unknown zone and bad period 400, not followed 404', async () => {
    for (const url of [
      '/api/v1/analytics/summary/%20',
      '/api/v1/analytics/summary/@',
      '/api/v1/analytics/summary',
      '/api/v1/analytics/summary/',
      '/api/v1/analytics/complete/%40%40',
      '/api/v1/analytics/complete/bad$name',
    ]) {
      expectError(await suite.alice.get(url), 400, { message: 'Invalid Twitter handle provided' });
    }
    expectError(await suite.alice.post('/api/v1/analytics/refresh/%20'), 400, {
      message: 'Invalid Twitter handle provided',
    });
    expect(
      (await suite.alice.post('/api/v1/handles', { username: 'typical_bad' })).statusCode,
    ).toBe(201);
    expectError(
      await suite.alice.get('/api/v1/analytics/summary/typical_bad?timezone=Mars/Olympus'),
      400,
      {
        message: 'Unknown timezone: use an IANA name such as Europe/Berlin.',
      },
    );
    for (const period of ['0', '91', 'abc', '7.5', '-1']) {
      expectError(
        await suite.alice.get(`/api/v1/analytics/complete/typical_bad?period=${period}`),
        400,
        {
          message: 'Period must be a whole number of days from 1 to 90 (7 = week, 30 = month).',
        },
      );
    }
    expectError(
      await suite.alice.get('/api/v1/analytics/top_tweets/typical_bad?sortBy=nonsense'),
      400,
    );
    expectError(await suite.alice.get('/api/v1/analytics/hashtags/typical_bad?limit=1000'), 400);
    expectError(await suite.alice.get('/api/v1/analytics/complete/someone_else'), 404);
    expectError(
      await new TestClient(suite.t.app).get('/api/v1/analytics/complete/typical_bad'),
      401,
    );
  });

  it('a handle the user does not follow is 404 for them; an admin may read it', async () => {
    expect(
      (await suite.alice.post('/api/v1/handles', { username: 'typical_priv', backfill_days: 7 }))
        .statusCode,
    ).toBe(201);
    const bob = new TestClient(suite.t.app);
    await bob.register(suite.t.db, 'bob');
    expectError(await bob.get('/api/v1/analytics/summary/typical_priv'), 404);
    expectError(await bob.post('/api/v1/analytics/refresh/typical_priv'), 404);
    const admin = new TestClient(suite.t.app);
    await admin.register(suite.t.db, 'root', 'admin');
    expect((await admin.get('/api/v1/analytics/summary/typical_priv')).statusCode).toBe(200);
  });

  it('while collecting: status, progress and a message with "being collected"; availability follows', async () => {
    expect(
      (await suite.alice.post('/api/v1/handles', { username: 'typical_slow' })).statusCode,
    ).toBe(201);
    const row = await findHandleByName(suite.t.db.db, 'typical_slow');
    if (!row) throw new Error('no handle');
    // Hold the handle mid-backfill, as a slow source would.
    await suite.t.collector.idle();
    await updateHandle(suite.t.db.db, row.id, {
      backfill_status: 'in_progress',
      backfill_progress: 42.5,
      paused: true,
    });
    const response = await suite.alice.get('/api/v1/analytics/summary/typical_slow');
    expect(response.statusCode).toBe(200);
    const body = response.json<{
      message: string;
      data: { analytics_status: string; backfillProgress: { progress: number } };
    }>();
    expect(body.message).toContain('being collected');
    expect(body.message).toContain('42%');
    expect(body.data.analytics_status).toBe('collecting');
    expect(body.data.backfillProgress.progress).toBe(42.5);
    const availability = dataOf(
      await suite.alice.get('/api/v1/analytics/availability/typical_slow'),
      availabilitySchema,
    );
    expect(availability).toMatchObject({ analytics_status: 'collecting' });

    await updateHandle(suite.t.db.db, row.id, {
      backfill_status: 'failed',
      total_tweets_collected: 0,
    });
    const failed = dataOf(
      await suite.alice.get('/api/v1/analytics/availability/typical_slow'),
      availabilitySchema,
    );
    expect(failed).toMatchObject({ analytics_status: 'not_available', has_meaningful_data: false });
  });

  it('ETag and If-None-Match: 304 while nothing changed, a new tweet stored invalidates at once', async () => {
    const row = await followCollected(suite.t, suite.alice, 'typical_etag', { backfill_days: 7 });
    await updateHandle(suite.t.db.db, row.id, {
      next_poll_at: new Date(Date.now() + DAY).toISOString(),
    });

    const url = '/api/v1/analytics/complete/typical_etag?period=7';
    const first = await suite.alice.get(url);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/".+"$/);
    const before = first.json<{ data: CompleteAnalytics }>().data;
    const again = await suite.alice.request({
      method: 'GET',
      url,
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // Another timezone is another cache entry, with its own tag.
    const berlin = await suite.alice.get(`${url}&timezone=Europe/Berlin`);
    expect(berlin.headers.etag).not.toBe(etag);

    await upsertTweets(
      suite.t.db.db,
      row.id,
      [originalPost({ id: '9'.repeat(19), createdAt: new Date().toISOString(), likeCount: 12345 })],
      new Date().toISOString(),
    );
    const after = await suite.alice.request({
      method: 'GET',
      url,
      headers: { 'if-none-match': etag },
    });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    const data = after.json<{ data: CompleteAnalytics }>().data;
    expect(data.summary.total_tweets).toBe(before.summary.total_tweets + 1);
    expect(data.summary.total_likes).toBe(before.summary.total_likes + 12345);
    expect(data.topTweets.tweets[0]?.id).toBe('9'.repeat(19));
  });

  it('refresh polls and recomputes; a second refresh within 5 s is 429', async () => {
    const row = await followCollected(suite.t, suite.alice, 'typical_fresh', { backfill_days: 7 });
    const polledBefore = row.last_poll_at ?? null;
    const first = await suite.alice.post('/api/v1/analytics/refresh/typical_fresh?period=7');
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json<{ success: boolean; message: string; data: CompleteAnalytics }>();
    expect(body.success).toBe(true);
    expect(body.message).toBe('Analytics refreshed');
    expect(completeAnalyticsSchema.safeParse(body.data).success).toBe(true);
    const polled = await findHandleByName(suite.t.db.db, 'typical_fresh');
    expect(polled?.last_poll_at).not.toBe(polledBefore);

    const second = expectError(
      await suite.alice.post('/api/v1/analytics/refresh/typical_fresh'),
      429,
      {
        message: 'Please wait a few seconds before refreshing again.',
      },
    );
    expect(second.code).toBe('RATE_LIMITED');
  });
});
