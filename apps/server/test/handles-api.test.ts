import { describe, expect, it } from 'vitest';
import {
  backfillProgressSchema,
  handleListResponseSchema,
  handleResponseSchema,
  tweetPageResponseSchema,
  type Tweet,
} from '@perch/shared';
import { createDemoSource } from '../src/sources/index.js';
import { writeXApiStatus } from '../src/modules/x-usage/x-api-status.repository.js';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TestClient } from './helpers.js';
import { appWithAliceEachTest, backfillFinished, progressOf } from './seed.js';

describe.each(DIALECTS)('handles API (%s)', (dialect) => {
  const suite = appWithAliceEachTest(dialect);

  const add = (client: TestClient, username: string, extra: Record<string, unknown> = {}) =>
    client.post('/api/v1/handles', { username, ...extra });

  it('needs a session', async () => {
    const anonymous = new TestClient(suite.t.app);
    expectError(await anonymous.get('/api/v1/handles'), 401);
    expectError(await add(anonymous, 'typical_a'), 401);
    expectError(await anonymous.get('/api/v1/handles/typical_a/tweets'), 401);
    expectError(await anonymous.get('/api/v1/handles/typical_a/backfill-progress'), 401);
    expectError(await anonymous.delete('/api/v1/handles/1'), 401);
  });

  it('adds a handle: 201 at once, then collects it in the background to completion', async () => {
    const response = await add(suite.alice, '  @@Typical_Ann ', { backfill_days: 7 });
    expect(response.statusCode, response.body).toBe(201);
    const { handle } = dataOf(response, handleResponseSchema);
    expect(handle.handle.toLowerCase()).toBe('typical_ann');
    expect(handle.backfill_days).toBe(7);
    // The answer does not wait for collection, which may already have begun on a busy machine.
    expect(['pending', 'starting', 'in_progress']).toContain(handle.backfill_status);
    expect(handle.backfill_progress).toBeLessThan(100);
    expect(handle.telegram_enabled).toBe(false);
    expect(handle.discord_enabled).toBe(false);

    const progress = await backfillFinished(suite.alice, 'typical_ann');
    expect(progress).toMatchObject({ progress: 100, status: 'completed', isComplete: true });
    expect(progress.totalTweets).toBeGreaterThan(0);
    expect(progress.hasData).toBe(true);
    expect(progress.message).toBe(`Collection complete: ${progress.totalTweets} tweets`);

    const { handles } = dataOf(await suite.alice.get('/api/v1/handles'), handleListResponseSchema);
    expect(handles).toHaveLength(1);
    expect(handles[0]).toMatchObject({
      id: handle.id,
      handle: 'typical_ann',
      backfill_status: 'completed',
      backfill_progress: 100,
      initial_backfill_complete: true,
      analytics_available: true,
      total_tweets_collected: progress.totalTweets,
      tweets_count: progress.totalTweets,
      last_error: null,
    });
    expect(handles[0]?.followers_count).toBeGreaterThan(0);
    expect(handles[0]?.backfill_completed_at).not.toBeNull();
  });

  it('defaults backfill_days to 15 and accepts 1 to 90 only', async () => {
    const { handle } = dataOf(await add(suite.alice, 'quiet_q1'), handleResponseSchema);
    expect(handle.backfill_days).toBe(15);
    const generic = { message: 'The request is invalid.', code: 'VALIDATION_ERROR' };
    expectError(await add(suite.alice, 'quiet_q2', { backfill_days: 0 }), 400, generic);
    expectError(await add(suite.alice, 'quiet_q2', { backfill_days: 91 }), 400, generic);
    expectError(await add(suite.alice, 'quiet_q2', { backfill_days: 'ten' }), 400, generic);
    expect((await add(suite.alice, 'quiet_q2', { backfill_days: 90 })).statusCode).toBe(201);
  });

  it.each(['', '@', '@@', 'a b', 'abcdefghijklmnop', 'bad-name', 'émile', 42, null])(
    'refuses the invalid handle %j',
    async (username) => {
      expectError(await suite.alice.post('/api/v1/handles', { username }), 400, {
        message: 'Invalid Twitter handle provided',
      });
    },
  );

  it('refuses a body without a handle', async () => {
    expectError(await suite.alice.post('/api/v1/handles', { backfill_days: 7 }), 400, {
      message: 'Invalid Twitter handle provided',
    });
    const { handles } = dataOf(await suite.alice.get('/api/v1/handles'), handleListResponseSchema);
    expect(handles).toEqual([]);
  });

  it('accepts a 15-character handle', async () => {
    expect((await add(suite.alice, 'abcdefghijklmno')).statusCode).toBe(201);
  });

  it('refuses a handle the user already follows, whatever its case', async () => {
    expect((await add(suite.alice, 'typical_dup')).statusCode).toBe(201);
    expectError(await add(suite.alice, 'TYPICAL_DUP'), 409, {
      message: 'Already monitoring @typical_dup',
    });
    expectError(await add(suite.alice, '@typical_dup'), 409, {
      message: 'Already monitoring @typical_dup',
    });
  });

  it('refuses an 11th handle', async () => {
    for (let i = 0; i < 10; i += 1) {
      expect((await add(suite.alice, `quiet_l${i}`, { backfill_days: 1 })).statusCode).toBe(201);
    }
    expectError(await add(suite.alice, 'quiet_l10'), 400, { message: 'Handle limit reached (10)' });
    const { handles } = dataOf(await suite.alice.get('/api/v1/handles'), handleListResponseSchema);
    expect(handles).toHaveLength(10);
  });

  it('unlinks a handle; 404 when not linked; data stays for an instant re-add', async () => {
    const { handle } = dataOf(
      await add(suite.alice, 'typical_rm', { backfill_days: 3 }),
      handleResponseSchema,
    );
    const done = await backfillFinished(suite.alice, 'typical_rm');
    const removed = await suite.alice.delete(`/api/v1/handles/${handle.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expectError(await suite.alice.delete(`/api/v1/handles/${handle.id}`), 404, {
      message: 'Handle not found',
    });
    expectError(await suite.alice.delete('/api/v1/handles/999999'), 404, {
      message: 'Handle not found',
    });
    expectError(await suite.alice.get('/api/v1/handles/typical_rm/tweets'), 404);
    const { handles } = dataOf(await suite.alice.get('/api/v1/handles'), handleListResponseSchema);
    expect(handles).toEqual([]);

    const again = dataOf(
      await add(suite.alice, 'typical_rm', { backfill_days: 3 }),
      handleResponseSchema,
    );
    expect(again.handle).toMatchObject({
      id: handle.id,
      backfill_status: 'completed',
      total_tweets_collected: done.totalTweets,
    });
  });

  it('lists tweets newest first, paginated, with the tweet fields', async () => {
    // Three days: a prolific demo handle's two days can fall under 100 posts at some hours.
    await add(suite.alice, 'prolific_pat', { backfill_days: 3 });
    const { totalTweets } = await backfillFinished(suite.alice, 'prolific_pat');
    expect(totalTweets).toBeGreaterThan(100);

    const first = dataOf(
      await suite.alice.get('/api/v1/handles/prolific_pat/tweets'),
      tweetPageResponseSchema,
    );
    expect(first).toMatchObject({ page: 1, limit: 50, total: totalTweets, has_more: true });
    expect(first.tweets).toHaveLength(50);

    const all: Tweet[] = [];
    for (let page = 1; ; page += 1) {
      const data = dataOf(
        await suite.alice.get(`/api/v1/handles/@prolific_pat/tweets?page=${page}&limit=100`),
        tweetPageResponseSchema,
      );
      all.push(...data.tweets);
      if (!data.has_more) break;
    }
    expect(all).toHaveLength(totalTweets);
    expect(new Set(all.map((tweet) => tweet.id)).size).toBe(totalTweets);
    const times = all.map((tweet) => Date.parse(tweet.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const tweet of all) {
      expect(tweet.url).toBe(`https://x.com/prolific_pat/status/${tweet.id}`);
    }
    // Flags come from the stored references and media.
    expect(all.some((tweet) => tweet.is_reply)).toBe(true);
    expect(all.some((tweet) => !tweet.is_reply && !tweet.is_retweet && !tweet.is_quote)).toBe(true);
    for (const tweet of all) {
      if (tweet.has_photo || tweet.has_video) expect(tweet.media_urls.length).toBeGreaterThan(0);
      else expect(tweet.media_urls).toEqual([]);
    }

    // The same tweets, field by field, as the source gives them.
    const handleRow = await suite.t.db.db
      .selectFrom('handles')
      .selectAll()
      .where('username', '=', 'prolific_pat')
      .executeTakeFirstOrThrow();
    const page = await createDemoSource({ pageDelayMs: 0 }).timeline({
      xUserId: handleRow.x_user_id ?? '',
      endTime: handleRow.backfill_window_end ?? undefined,
      maxResults: 20,
    });
    const byId = new Map(all.map((tweet) => [tweet.id, tweet]));
    for (const source of page.tweets) {
      const tweet = byId.get(source.id);
      expect(tweet, source.id).toBeDefined();
      expect(tweet).toMatchObject({
        text: source.text,
        created_at: source.createdAt,
        lang: source.lang,
        is_retweet: source.referencedTypes.includes('retweeted'),
        is_quote: source.referencedTypes.includes('quoted'),
        is_reply: source.referencedTypes.includes('replied_to'),
        has_photo: source.media.some((m) => m.type === 'photo'),
        has_video: source.media.some((m) => m.type === 'video' || m.type === 'animated_gif'),
        media_urls: source.media.flatMap((m) =>
          (m.url ?? m.previewUrl) ? [m.url ?? m.previewUrl] : [],
        ),
        hashtags: source.hashtags,
        conversation_id: source.conversationId,
      });
    }

    for (const limit of [0, 101, -1]) {
      expectError(await suite.alice.get(`/api/v1/handles/prolific_pat/tweets?limit=${limit}`), 400);
    }
    expectError(await suite.alice.get('/api/v1/handles/prolific_pat/tweets?page=0'), 400);
    const beyond = dataOf(
      await suite.alice.get('/api/v1/handles/prolific_pat/tweets?page=999'),
      tweetPageResponseSchema,
    );
    expect(beyond).toMatchObject({ tweets: [], has_more: false, total: totalTweets });
  });

  it('a user reads only handles they follow; an admin reads any', async () => {
    await add(suite.alice, 'typical_priv', { backfill_days: 1 });
    await backfillFinished(suite.alice, 'typical_priv');
    const bob = new TestClient(suite.t.app);
    await bob.register(suite.t.db, 'bob');
    expectError(await bob.get('/api/v1/handles/typical_priv/tweets'), 404, {
      message: 'Handle not found',
    });
    expectError(await bob.get('/api/v1/handles/typical_priv/backfill-progress'), 404);
    expectError(await bob.get('/api/v1/handles/nobody_here/backfill-progress'), 404);
    expectError(await bob.get('/api/v1/handles/a%20b/backfill-progress'), 404);

    const admin = new TestClient(suite.t.app);
    await admin.register(suite.t.db, 'root', 'admin');
    expect((await admin.get('/api/v1/handles/typical_priv/tweets')).statusCode).toBe(200);
    const progress = await progressOf(admin, '@TYPICAL_PRIV');
    expect(progress.isComplete).toBe(true);
    const { handles } = dataOf(await admin.get('/api/v1/handles'), handleListResponseSchema);
    expect(handles).toEqual([]);
  });

  it('a second user adding a collected handle shares its data at once', async () => {
    const { handle } = dataOf(
      await add(suite.alice, 'typical_share', { backfill_days: 3 }),
      handleResponseSchema,
    );
    const done = await backfillFinished(suite.alice, 'typical_share');
    const bob = new TestClient(suite.t.app);
    await bob.register(suite.t.db, 'bob');
    const shared = dataOf(
      await add(bob, 'Typical_Share', { backfill_days: 3 }),
      handleResponseSchema,
    );
    expect(shared.handle).toMatchObject({
      id: handle.id,
      backfill_status: 'completed',
      total_tweets_collected: done.totalTweets,
      analytics_available: true,
    });
    const rows = await suite.t.db.db.selectFrom('handles').selectAll().execute();
    expect(rows).toHaveLength(1);
  });

  it('reports a failed collection with a clear message', async () => {
    await add(suite.alice, 'nobody_demo');
    const progress = await backfillFinished(suite.alice, 'nobody_demo');
    expect(progress).toMatchObject({
      status: 'failed',
      isComplete: false,
      error: '@nobody_demo was not found on X',
      message: '@nobody_demo was not found on X',
    });
    const { handles } = dataOf(await suite.alice.get('/api/v1/handles'), handleListResponseSchema);
    expect(handles[0]?.last_error).toBe('@nobody_demo was not found on X');
  });

  it('a handle added while X refuses the credentials says it waits for them', async () => {
    const now = Date.now();
    await writeXApiStatus(suite.t.db.db, {
      state: 'auth',
      detail: 'HTTP 401',
      now: new Date(now).toISOString(),
      nextProbeAt: new Date(now + 3_600_000).toISOString(),
    });
    // The scheduler notices at its next tick (every 200 ms here): no job starts after that.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const added = dataOf(await add(suite.alice, 'typical_wait'), handleResponseSchema).handle;
    expect(added).toMatchObject({
      backfill_status: 'pending',
      last_error: 'Waiting for X credentials',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { handles } = dataOf(await suite.alice.get('/api/v1/handles'), handleListResponseSchema);
    expect(handles[0]).toMatchObject({
      backfill_status: 'pending',
      last_error: 'Waiting for X credentials',
    });
    expect(await progressOf(suite.alice, 'typical_wait')).toMatchObject({
      status: 'pending',
      message: 'Waiting for X credentials',
      error: 'Waiting for X credentials',
    });
    // X takes the credentials again: collection starts, and the wait is no longer shown.
    await writeXApiStatus(suite.t.db.db, {
      state: 'ok',
      detail: null,
      now: new Date().toISOString(),
      nextProbeAt: null,
    });
    const done = await backfillFinished(suite.alice, 'typical_wait');
    expect(done.isComplete).toBe(true);
    expect(done.error).toBeUndefined();
  });

  describe('retry of a failed handle', () => {
    const retry = (client: TestClient, id: number | string) =>
      client.post(`/api/v1/handles/${id}/retry`);

    /** A handle whose collection failed (X said it was suspended at the time). */
    async function failedHandle(username: string): Promise<number> {
      const { handle } = dataOf(
        await add(suite.alice, username, { backfill_days: 1 }),
        handleResponseSchema,
      );
      await backfillFinished(suite.alice, username);
      await suite.t.db.db
        .updateTable('handles')
        .set({
          backfill_status: 'failed',
          last_error: `@${username} is suspended`,
          backfill_completed_at: null,
          initial_backfill_complete: false,
        })
        .where('id', '=', handle.id)
        .execute();
      return handle.id;
    }

    it('re-queues it: pending at once, then collected to completion', async () => {
      const id = await failedHandle('typical_again');
      expect(await progressOf(suite.alice, 'typical_again')).toMatchObject({
        status: 'failed',
        error: '@typical_again is suspended',
      });
      const response = await retry(suite.alice, id);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        message: 'Collection of @typical_again will be tried again',
      });
      const queued = dataOf(response, backfillProgressSchema);
      expect(queued.status).not.toBe('failed');
      expect(queued.error).toBeUndefined();
      const done = await backfillFinished(suite.alice, 'typical_again');
      expect(done).toMatchObject({ status: 'completed', isComplete: true });
      expect(done.error).toBeUndefined();
      // Not failed any more: nothing to retry.
      expectError(await retry(suite.alice, id), 409, {
        message: '@typical_again has not failed: nothing to retry',
      });
    });

    it('a handle that fails again says why again', async () => {
      const { handle } = dataOf(await add(suite.alice, 'nobody_demo'), handleResponseSchema);
      await backfillFinished(suite.alice, 'nobody_demo');
      expect((await retry(suite.alice, handle.id)).statusCode).toBe(200);
      const again = await backfillFinished(suite.alice, 'nobody_demo');
      expect(again).toMatchObject({ status: 'failed', error: '@nobody_demo was not found on X' });
    });

    it('only its followers and admins may retry it; 404 for others and unknown ids', async () => {
      const id = await failedHandle('typical_mine');
      const bob = new TestClient(suite.t.app);
      await bob.register(suite.t.db, 'bob');
      expectError(await retry(bob, id), 404, { message: 'Handle not found' });
      expectError(await retry(suite.alice, 999_999), 404, { message: 'Handle not found' });
      expectError(await retry(suite.alice, 'abc'), 400);
      expectError(await retry(suite.alice, 0), 400);
      expect((await progressOf(suite.alice, 'typical_mine')).status).toBe('failed');
      const admin = new TestClient(suite.t.app);
      await admin.register(suite.t.db, 'root', 'admin');
      expect((await retry(admin, id)).statusCode).toBe(200);
      expectError(await retry(new TestClient(suite.t.app), id), 401);
    });
  });
});
