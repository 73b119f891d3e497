/**
 * The x-api source under X's pay-per-use rules, end to end: the real collector and cost meter
 * against the loopback fake X (which bills as X does), on SQLite and PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { handleListResponseSchema } from '@perch/shared';
import {
  CREDITS_DEPLETED,
  WAITING_FOR_CREDENTIALS,
  BUDGET_PAUSED,
} from '../src/collector/context.js';
import { createXApiSource } from '../src/sources/index.js';
import { XUsageMeter } from '../src/modules/x-usage/x-usage.service.js';
import { dataOf } from './assertions.js';
import { startFakeXServer, type FakeXServer } from './fakes/fake-x-server.js';
import { DIALECTS, TestClient, buildTestApp, handleNamed, type TestApp } from './helpers.js';
import { progressOf, progressUntil } from './seed.js';
import { perchPosts } from './source-tweets.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** `count` posts of one author, evenly spread back from `newest`, newest first. */
function posts(count: number, spanMs: number, options: { seed?: number; text?: string } = {}) {
  const now = Date.now();
  const seed = BigInt(options.seed ?? 1) * 10_000_000n;
  return perchPosts(count, (i) => ({
    id: String(1_800_000_000_000_000_000n + seed + BigInt(count - i)),
    text: options.text ?? `post ${i} #perch`,
    createdAt: new Date(now - 60_000 - (i * spanMs) / count).toISOString(),
  }));
}

describe.each(DIALECTS)('x-api collection on a budget (fake X, %s)', (dialect) => {
  let fake: FakeXServer;
  let t: TestApp;
  let meter: XUsageMeter;

  afterEach(async () => {
    await t?.close();
    await fake?.close();
  });

  async function setUp(
    options: { env?: Record<string, string>; probeEveryMs?: number; dailyLimitUsd?: number } = {},
  ) {
    fake = await startFakeXServer();
    // The source reports to the meter the app makes below.
    const meterRef: { current?: XUsageMeter } = {};
    const source = createXApiSource({
      baseUrl: fake.baseUrl,
      bearerToken: fake.bearerToken,
      retryBaseMs: 10,
      onBilledReads: (reads) => meterRef.current?.record(reads),
    });
    t = await buildTestApp(dialect, options.env ?? {}, {
      source,
      tickMs: 50,
      collector: { probeEveryMs: options.probeEveryMs ?? 60_000, roundEveryMs: 60 * 60_000 },
      xUsage: (db) =>
        new XUsageMeter({
          db,
          prices: { postReadUsd: 0.005, userReadUsd: 0.01 },
          dailyLimitUsd: options.dailyLimitUsd,
        }),
    });
    if (!t.xUsage) throw new Error('no meter');
    meter = t.xUsage;
    meterRef.current = meter;
    const client = new TestClient(t.app);
    await client.register(t.db, 'alice');
    return client;
  }

  /** Waits until the backfill of `handle` is complete; its progress. */
  const backfilled = (client: TestClient, handle: string, ms?: number) =>
    progressUntil(client, handle, (p) => p.isComplete, ms);

  /**
   * An X account `username` with `count` posts over `spanMs`, which `client` follows (by the
   * name in lower case, a week back) until its backfill is complete; the fake's user.
   */
  async function followedAndCollected(
    client: TestClient,
    username: string,
    count: number,
    spanMs: number,
    input: { followersCount?: number } = {},
  ) {
    const user = fake.addUser({ username, ...input });
    fake.addSourceTweets(user.id, posts(count, spanMs));
    const handle = username.toLowerCase();
    await client.post('/api/v1/handles', { username: handle, backfill_days: 7 });
    await backfilled(client, handle);
    return user;
  }

  it('bills what the fake served: every post and user once per UTC day', async () => {
    const client = await setUp();
    await followedAndCollected(client, 'Billed', 250, 5 * DAY);
    // Profiles and metrics read the same resources again: billed once on this day.
    await t.collector.refreshRounds();
    await t.collector.refreshRounds();
    const served = fake.billing();
    const summary = await meter.summary({ rateStatus: null, source: 'x-api' });
    expect(summary.today.post_reads).toBe(served.posts);
    expect(summary.today.user_reads).toBe(served.users);
    expect(summary.today.post_reads).toBe(250);
    expect(summary.today.user_reads).toBe(1);
    expect(summary.today.usd).toBeCloseTo(250 * 0.005 + 0.01, 6);
    const handleRow = summary.handles.find((row) => row.handle === 'Billed');
    expect(handleRow?.today).toMatchObject({ post_reads: 250, user_reads: 1 });
  });

  it('402 waits for credits, probes rarely, and resumes by itself once they are back', async () => {
    const client = await setUp({ probeEveryMs: 400 });
    const user = fake.addUser({ username: 'Broke' });
    fake.addSourceTweets(user.id, posts(30, 2 * DAY));
    fake.setCredits(0);
    await client.post('/api/v1/handles', { username: 'broke', backfill_days: 7 });
    const waiting = await progressUntil(client, 'broke', (p) => p.message === CREDITS_DEPLETED);
    expect(waiting.status).not.toBe('failed');
    const firstRefusal = fake.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // One probe per 400 ms at most (the tick runs every 50 ms).
    const probes = fake.requests.length - firstRefusal;
    expect(probes).toBeGreaterThanOrEqual(1);
    expect(probes).toBeLessThanOrEqual(5);
    expect(fake.requests.every((r) => r.status === 402)).toBe(true);

    fake.setCredits(null);
    const done = await backfilled(client, 'broke');
    expect(done.totalTweets).toBe(30);
    const status = await t.db.db.selectFrom('x_api_status').selectAll().executeTakeFirst();
    expect(status?.state).toBe('ok');
  });

  it('401 puts handles in waiting for X credentials with bounded probing', async () => {
    const client = await setUp({ probeEveryMs: 300 });
    fake.addUser({ username: 'Locked' });
    fake.setAuthFailure(401);
    await client.post('/api/v1/handles', { username: 'locked', backfill_days: 7 });
    const waiting = await progressUntil(
      client,
      'locked',
      (p) => p.message === WAITING_FOR_CREDENTIALS,
    );
    expect(waiting.status).not.toBe('failed');
    const start = fake.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(fake.requests.length - start).toBeLessThanOrEqual(5);
    fake.setAuthFailure(null);
    await backfilled(client, 'locked');
  });

  it('says Waiting for X on every handle it pauses, the collected ones too, and a failure stays one', async () => {
    const client = await setUp({ probeEveryMs: 60_000 });
    await followedAndCollected(client, 'Collected', 5, 2 * DAY);
    await client.post('/api/v1/handles', { username: 'nosuchaccount', backfill_days: 7 });
    await progressUntil(client, 'nosuchaccount', (p) => p.status === 'failed');
    // X refuses the credentials on another handle's request: collection pauses for all.
    fake.addUser({ username: 'Refused' });
    fake.setAuthFailure(401);
    await client.post('/api/v1/handles', { username: 'refused', backfill_days: 7 });
    await progressUntil(client, 'refused', (p) => p.message === WAITING_FOR_CREDENTIALS);
    const collected = await progressOf(client, 'collected');
    expect(collected.message).toBe(WAITING_FOR_CREDENTIALS);
    // A note on its data (its polls were catching up) gives way to the wait as well.
    await t.db.db
      .updateTable('handles')
      .set({ last_error: 'Catching up: 1,000 new posts so far' })
      .where('id', '=', (await handleNamed(t.db, 'collected')).id)
      .execute();
    const { handles } = dataOf(await client.get('/api/v1/handles'), handleListResponseSchema);
    const byName = new Map(handles.map((h) => [h.handle.toLowerCase(), h]));
    expect(byName.get('collected')).toMatchObject({
      backfill_status: 'completed',
      last_error: WAITING_FOR_CREDENTIALS,
    });
    expect(byName.get('refused')?.last_error).toBe(WAITING_FOR_CREDENTIALS);
    expect(byName.get('nosuchaccount')?.backfill_status).toBe('failed');
    expect(byName.get('nosuchaccount')?.last_error).not.toBe(WAITING_FOR_CREDENTIALS);
    // Once X takes the credentials again, the collected handle is complete again.
    fake.setAuthFailure(null);
    await t.db.db.updateTable('x_api_status').set({ state: 'ok' }).execute();
    expect((await progressOf(client, 'collected')).message).toMatch(/^Collection complete: 5 /);
  });

  it('follows a renamed account by id and shows its new username', async () => {
    const client = await setUp();
    const user = await followedAndCollected(client, 'OldName', 5, DAY, { followersCount: 10 });
    fake.renameUser(user.id, 'NewName');
    // Due again: the profile cadence passed.
    await t.db.db.updateTable('handles').set({ profile_checked_at: null }).execute();
    await t.collector.refreshRounds();
    const handle = await handleNamed(t.db, 'NewName');
    expect(handle.x_user_id).toBe(user.id);
    const lookups = fake.requests.filter((r) => r.endpoint === 'users');
    expect(lookups).toHaveLength(1);
  });

  it('flags a backfill cut by the 3,200-post limit and dates analytics from it', async () => {
    const client = await setUp();
    const user = fake.addUser({ username: 'Firehose' });
    // 4,000 posts in 4 days: the window of 7 days reaches past what X returns.
    fake.addSourceTweets(user.id, posts(4_000, 4 * DAY));
    await client.post('/api/v1/handles', { username: 'firehose', backfill_days: 7 });
    const done = await backfilled(client, 'firehose', 30_000);
    expect(done.totalTweets).toBe(3_200);
    expect(done.message).toMatch(
      /^X returns only the latest 3,200 posts: collected back to \d{4}-\d{2}-\d{2}$/,
    );
    const handle = await handleNamed(t.db, 'firehose');
    expect(Boolean(handle.depth_limited)).toBe(true);
    const oldest = await t.db.db
      .selectFrom('tweets')
      .select((eb) => eb.fn.min('created_at').as('oldest'))
      .executeTakeFirstOrThrow();
    expect(handle.oldest_covered_at).toBe(oldest.oldest);
    // Analytics date the handle's data from there, not from the window's start.
    const analytics = await client.get('/api/v1/analytics/complete/firehose?period=7');
    expect(analytics.statusCode, analytics.body).toBe(200);
    const { data } = analytics.json<{ data: { collected_since: string | null } }>();
    expect(data.collected_since).toBe(oldest.oldest);
  });

  it('batches profile lookups and metric reads by 100 ids', async () => {
    const client = await setUp();
    // 250 posts of the last 20 hours: each is due for a metric reading.
    await followedAndCollected(client, 'Chatty', 250, 20 * HOUR);
    await t.db.db
      .updateTable('tweets')
      .set({ metrics_next_at: new Date(Date.now() - 1_000).toISOString() })
      .execute();
    await t.collector.refreshRounds();
    const reads = fake.requests.filter((r) => r.endpoint === 'tweets');
    expect(reads.map((r) => (r.query.ids ?? '').split(',').length)).toEqual([100, 100, 50]);
    const next = await t.db.db
      .selectFrom('tweets')
      .select('metrics_next_at')
      .where('metrics_next_at', '<=', new Date().toISOString())
      .execute();
    expect(next).toHaveLength(0);
  });

  it('Refresh polls once a minute per handle whoever asks, for new tweets only', async () => {
    const client = await setUp();
    await followedAndCollected(client, 'Popular', 5, DAY);
    const bob = new TestClient(t.app);
    await bob.register(t.db, 'bob');
    await bob.post('/api/v1/handles', { username: 'popular', backfill_days: 7 });
    const before = fake.requests.length;

    const first = await client.post('/api/v1/analytics/refresh/popular?period=7');
    expect(first.statusCode, first.body).toBe(200);
    const second = await bob.post('/api/v1/analytics/refresh/popular?period=7');
    expect(second.statusCode).toBe(429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(50);
    const sent = fake.requests.slice(before);
    expect(sent.map((r) => r.endpoint)).toEqual(['users/tweets']);
  });

  it('a daily spend limit cuts metric refresh first, then collection, until 00:00 UTC', async () => {
    // 40 posts = $0.20 and a user read = $0.01: past 100% of a $0.15 limit.
    const client = await setUp({ dailyLimitUsd: 0.15 });
    await followedAndCollected(client, 'Spender', 40, DAY);
    expect(await meter.allows('metrics')).toBe(false);
    await t.db.db
      .updateTable('tweets')
      .set({ metrics_next_at: new Date(Date.now() - 1_000).toISOString() })
      .execute();
    await t.db.db
      .updateTable('handles')
      .set({ next_poll_at: new Date(Date.now() - 1_000).toISOString() })
      .execute();
    const before = fake.requests.length;
    await t.collector.refreshRounds();
    const paused = await progressUntil(client, 'spender', (p) => p.message === BUDGET_PAUSED);
    expect(paused.status).toBe('completed');
    expect(fake.requests.length).toBe(before);
    const handle = await handleNamed(t.db, 'spender');
    expect(handle.next_poll_at).toBe(meter.resumesAt());
  });
});
