import { afterEach, describe, expect, it } from 'vitest';
import { handleResponseSchema } from '@perch/shared';
import { createDemoSource, createXApiSource } from '../src/sources/index.js';
import type { SourceTweet } from '../src/domain/tweet-source.js';
import { dataOf } from './assertions.js';
import { startFakeXServer, type FakeXServer } from './fakes/fake-x-server.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { backfillFinished, progressUntil } from './seed.js';

const DAY = 86_400_000;

/** A week of realistic tweets for the fake's timeline (taken from the demo source). */
async function weekOfTweets(handle: string): Promise<SourceTweet[]> {
  const demo = createDemoSource({ pageDelayMs: 0 });
  const profile = await demo.lookupUser(handle);
  const tweets: SourceTweet[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await demo.timeline({
      xUserId: profile.xUserId,
      startTime: new Date(Date.now() - 7 * DAY).toISOString(),
      cursor,
    });
    tweets.push(...page.tweets);
    if (!page.nextCursor) return tweets;
    cursor = page.nextCursor;
  }
}

describe.each(DIALECTS)('collector against the X API (fake server, %s)', (dialect) => {
  let fake: FakeXServer;
  let t: TestApp;

  afterEach(async () => {
    await t.close();
    await fake.close();
  });

  async function setUp(bearerToken: string) {
    fake = await startFakeXServer();
    const source = createXApiSource({ baseUrl: fake.baseUrl, bearerToken, retryBaseMs: 10 });
    t = await buildTestApp(dialect, {}, { source, tickMs: 50 });
    const client = new TestClient(t.app);
    await client.register(t.db, 'alice');
    return client;
  }

  it('collects a timeline over HTTP, waiting out a 429 until its reset', async () => {
    const client = await setUp('test-bearer-token');
    const user = fake.addUser({ username: 'XavierFeed', followersCount: 1234 });
    const tweets = await weekOfTweets('typical_xavier');
    expect(tweets.length).toBeGreaterThan(20);
    fake.addSourceTweets(user.id, tweets);
    // The timeline budget is spent; it comes back in about two seconds.
    fake.setRateLimit('users/tweets', { limit: 900, remaining: 0, resetInSeconds: 2 });
    const started = Date.now();

    const response = await client.post('/api/v1/handles', {
      username: 'xavierfeed',
      backfill_days: 7,
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(['pending', 'starting']).toContain(
      dataOf(response, handleResponseSchema).handle.backfill_status,
    );

    const done = await backfillFinished(client, 'XavierFeed');
    expect(done).toMatchObject({ status: 'completed', progress: 100, totalTweets: tweets.length });
    expect(Date.now() - started).toBeGreaterThan(1_000);

    const timeline = fake.requests.filter((request) => request.endpoint === 'users/tweets');
    const limited = timeline.filter((request) => request.status === 429);
    expect(limited).toHaveLength(1);
    // Nothing hammered the API during the wait: every later request came after the reset.
    const limitedAt = limited[0]?.at ?? 0;
    const later = timeline.filter((request) => request.at > limitedAt);
    expect(later.length).toBeGreaterThan(0);
    expect(Math.min(...later.map((request) => request.at)) - limitedAt).toBeGreaterThan(900);
    expect(later.every((request) => request.status === 200)).toBe(true);

    const stored = await t.db.db.selectFrom('tweets').select('tweet_id').execute();
    expect(stored.map((row) => row.tweet_id).sort()).toEqual(tweets.map((tw) => tw.id).sort());
    const handle = await t.db.db.selectFrom('handles').selectAll().executeTakeFirstOrThrow();
    expect(handle.username).toBe('XavierFeed');
    expect(handle.x_user_id).toBe(user.id);
    expect(handle.followers_count).toBe(1234);
  });

  it('refused credentials make the handle wait, with no retry storm', async () => {
    const client = await setUp('wrong-token');
    fake.addUser({ username: 'Refused' });
    expect((await client.post('/api/v1/handles', { username: 'refused' })).statusCode).toBe(201);
    const waiting = await progressUntil(
      client,
      'refused',
      (p) => p.message === 'Waiting for X credentials',
    );
    expect(waiting.status).not.toBe('failed');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.status).toBe(401);
    // The scheduler keeps ticking (every 50 ms); the credentials are probed every 5 minutes.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(fake.requests).toHaveLength(1);
  });
});
