import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN_MESSAGES,
  adminProcessResponseSchema,
  adminProcessesResponseSchema,
  backfillProgressSchema,
  challengeStatusResponseSchema,
  handleListResponseSchema,
  handleResponseSchema,
  type AdminProcess,
  type ChallengeStatus,
} from '@perch/shared';
import { createDemoSource, createTweetSource, DEMO_CHALLENGE } from '../src/sources/index.js';
import { loadConfig } from '../src/config.js';
import { STOPPED_BY_ADMIN } from '../src/modules/admin/admin-collector.service.js';
import { dataOf, expectError } from './assertions.js';
import { NO_ENGAGEMENT, makeTweet, tweetRow } from './factories.js';
import {
  DIALECTS,
  buildTestApp,
  storedTweetIds,
  waitFor,
  type TestApp,
  type TestAppOptions,
  type TestClient,
} from './helpers.js';
import { registeredClients } from './seed.js';

const CODE = '424242';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DIALECTS)('admin collector control (%s)', (dialect) => {
  let t: TestApp;
  /** A super admin, an admin, and two users who follow handles. */
  let root: TestClient;
  let admin: TestClient;
  let alice: TestClient;
  let bob: TestClient;

  async function start(env: Record<string, string> = {}, options: TestAppOptions = {}) {
    t = await buildTestApp(dialect, env, { tickMs: 50, ...options });
    ({
      root,
      adam: admin,
      alice,
      bob,
    } = await registeredClients(t, {
      root: 'superadmin',
      adam: 'admin',
      alice: 'user',
      bob: 'user',
    }));
  }

  afterEach(async () => {
    await t.close();
  });

  const follow = async (client: TestClient, username: string, backfillDays = 7) => {
    const response = await client.post('/api/v1/handles', {
      username,
      backfill_days: backfillDays,
    });
    expect(response.statusCode, response.body).toBe(201);
    return dataOf(response, handleResponseSchema).handle;
  };
  const processes = async (client: TestClient = admin) =>
    dataOf(await client.get('/api/v1/admin/processes'), adminProcessesResponseSchema);
  const processOf = async (handleId: number): Promise<AdminProcess> => {
    const found = (await processes()).processes.find((p) => p.handle_id === handleId);
    if (!found) throw new Error(`no process for handle ${handleId}`);
    return found;
  };
  const handleRow = (id: number) =>
    t.db.db.selectFrom('handles').selectAll().where('id', '=', id).executeTakeFirst();
  const completed = (id: number) =>
    waitFor(
      () => handleRow(id),
      (row) => row?.backfill_status === 'completed' || row?.backfill_status === 'failed',
    );
  /** count(*) and count(distinct tweet_id) of a handle's stored tweets. */
  const tweetCounts = async (id: number) => {
    const row = await t.db.db
      .selectFrom('tweets')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn.count<number>('tweet_id').distinct().as('distinct'),
      ])
      .where('handle_id', '=', id)
      .executeTakeFirstOrThrow();
    return { total: Number(row.total), distinct: Number(row.distinct) };
  };
  /** Every tweet id the demo source has in the handle's backfill window. */
  const expectedIds = async (id: number) => {
    const handle = await handleRow(id);
    if (!handle?.x_user_id || !handle.backfill_target_start || !handle.backfill_window_end) {
      throw new Error(`handle ${id} has no backfill window`);
    }
    const source = createDemoSource({ pageDelayMs: 0 });
    // The first page is asked for just after the window is fixed; a second covers that gap.
    const endTime = new Date(Date.parse(handle.backfill_window_end) + 1_000).toISOString();
    const ids: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await source.timeline({
        xUserId: handle.x_user_id,
        startTime: handle.backfill_target_start,
        endTime,
        cursor,
      });
      ids.push(...page.tweets.map((tweet) => tweet.id));
      if (!page.nextCursor) return ids.sort();
      cursor = page.nextCursor;
    }
  };
  const securityEvents = (type: string) =>
    t.db.db.selectFrom('security_events').selectAll().where('event_type', '=', type).execute();
  const challenge = async (): Promise<ChallengeStatus> =>
    dataOf(await root.get('/api/v1/admin/twitter-challenge-status'), challengeStatusResponseSchema);
  const userIdOf = async (username: string) =>
    (
      await t.db.db
        .selectFrom('users')
        .select('id')
        .where('username', '=', username)
        .executeTakeFirstOrThrow()
    ).id;
  /** A delivery waiting in the outbox, so a clean-up can be seen to remove it. */
  const queueDelivery = async (handleId: number, tweetId: string) =>
    t.db.db
      .insertInto('notification_outbox')
      .values({
        user_id: await userIdOf('alice'),
        handle_id: handleId,
        tweet_id: tweetId,
        channel: 'telegram',
        status: 'pending',
        next_attempt_at: new Date().toISOString(),
        created_at: new Date().toISOString(),
      })
      .execute();
  const rowsOf = async (
    table: 'user_handles' | 'tweets' | 'profile_snapshots' | 'tweet_metric_snapshots',
    handleId: number,
  ) =>
    (await t.db.db.selectFrom(table).select('id').where('handle_id', '=', handleId).execute())
      .length;
  const outboxRows = async (handleId: number) =>
    (
      await t.db.db
        .selectFrom('notification_outbox')
        .select('id')
        .where('handle_id', '=', handleId)
        .execute()
    ).length;

  it('lists every followed handle with its state, job and counts, and the source', async () => {
    await start();
    const shared = await follow(alice, 'typical_pro', 3);
    await follow(bob, 'typical_pro', 3);
    const limited = await follow(alice, 'ratelimit_demo', 3);
    await completed(shared.id);
    await waitFor(
      () => handleRow(limited.id),
      (row) => row?.last_error !== null,
    );

    const list = await processes();
    expect(list.processes.map((p) => p.handle)).toEqual(['ratelimit_demo', 'typical_pro']);
    const row = await handleRow(shared.id);
    expect(list.processes[1]).toEqual({
      handle_id: shared.id,
      handle: 'typical_pro',
      state: 'idle',
      state_reason: null,
      job: 'monitor',
      backfill_status: 'completed',
      backfill_progress: 100,
      last_poll_at: null,
      next_poll_at: row?.next_poll_at,
      last_error: null,
      tweets_collected: (await tweetCounts(shared.id)).total,
      users_count: 2,
    });
    expect(list.processes[0]).toMatchObject({
      handle: 'ratelimit_demo',
      state: 'idle',
      job: 'backfill',
      last_error: 'Too Many Requests',
      users_count: 1,
    });
    expect(list.source).toEqual({
      name: 'demo',
      health: 'degraded',
      health_reason: 'Collection errors on 1 handle (latest, @ratelimit_demo: Too Many Requests).',
      rate_budget: { limit: null, remaining: null, resetAt: null },
      challenge: {
        status: 'IDLE',
        challenge_type: null,
        challenge_details: null,
        last_challenge_at: null,
      },
      collector_in_process: true,
    });

    // Once nobody follows the troubled handle, the source is healthy again.
    await alice.delete(`/api/v1/handles/${limited.id}`);
    expect((await processes()).source).toMatchObject({ health: 'ok', health_reason: null });
    expect((await processes()).processes.map((p) => p.handle)).toEqual(['typical_pro']);

    expectError(await alice.get('/api/v1/admin/processes'), 403, {
      message: 'Access Denied. Admin privileges required.',
    });
  });

  it('stop halts a backfill mid-way with nothing lost; start resumes it to 100 without duplicates', async () => {
    await start({}, { source: createDemoSource({ pageDelayMs: 25 }) });
    const handle = await follow(alice, 'prolific_sto', 15);
    await waitFor(
      () => handleRow(handle.id),
      (row) => (row?.total_tweets_collected ?? 0) > 0,
    );

    const stop = await root.post('/api/v1/admin/processes/stop', { handle_id: handle.id });
    expect(stop.statusCode, stop.body).toBe(200);
    expect(stop.json()).toMatchObject({
      message: 'Collection stopped for @prolific_sto. Work in progress was saved.',
    });
    const stopped = dataOf(stop, adminProcessResponseSchema).process;
    expect(stopped).toMatchObject({
      handle_id: handle.id,
      state: 'stopped',
      state_reason: STOPPED_BY_ADMIN,
      job: 'backfill',
      backfill_status: 'in_progress',
    });
    expect(stopped.backfill_progress).toBeGreaterThan(0);
    expect(stopped.backfill_progress).toBeLessThan(100);

    const atStop = await tweetCounts(handle.id);
    expect(atStop.total).toBe(stopped.tweets_collected);
    await sleep(400);
    expect(await tweetCounts(handle.id)).toEqual(atStop);
    expect((await processOf(handle.id)).state).toBe('stopped');
    expect((await handleRow(handle.id))?.backfill_progress).toBe(stopped.backfill_progress);
    // The follower's own view says why nothing moves.
    const progress = dataOf(
      await alice.get('/api/v1/handles/prolific_sto/backfill-progress'),
      backfillProgressSchema,
    );
    expect(progress.message).toBe(
      `Collection stopped by an admin at ${Math.floor(stopped.backfill_progress)}% (${stopped.tweets_collected} tweets found)`,
    );
    expect(progress.estimatedCompletion).toBeNull();

    expectError(await root.post('/api/v1/admin/processes/stop', { handle_id: handle.id }), 409, {
      message: 'Collection for @prolific_sto is already stopped.',
    });

    const resume = await root.post('/api/v1/admin/processes/start', { handle_id: handle.id });
    expect(resume.statusCode, resume.body).toBe(200);
    expect(resume.json()).toMatchObject({ message: 'Collection resumed for @prolific_sto.' });
    expect(dataOf(resume, adminProcessResponseSchema).process).toMatchObject({
      state: 'running',
      state_reason: null,
      next_poll_at: null,
    });
    expectError(await root.post('/api/v1/admin/processes/start', { handle_id: handle.id }), 409, {
      message: 'Collection for @prolific_sto is already running.',
    });

    const done = await completed(handle.id);
    expect(done?.backfill_status).toBe('completed');
    expect(done?.backfill_progress).toBe(100);
    const counts = await tweetCounts(handle.id);
    expect(counts.distinct).toBe(counts.total);
    expect(counts.total).toBeGreaterThan(atStop.total);
    expect(await storedTweetIds(t.db, handle.id)).toEqual(await expectedIds(handle.id));
    expect(done?.total_tweets_collected).toBe(counts.total);

    const [stopEvent] = await securityEvents('collector_stopped');
    expect(stopEvent).toMatchObject({ severity: 'medium' });
    expect(JSON.parse(stopEvent?.metadata ?? '{}')).toMatchObject({
      actor: 'root',
      handle_id: handle.id,
      handle: 'prolific_sto',
    });
    expect(await securityEvents('collector_started')).toHaveLength(1);
  });

  it('a monitored handle stopped and started is polled at once', async () => {
    await start();
    const handle = await follow(alice, 'quiet_mon', 1);
    await completed(handle.id);
    await t.collector.idle();
    expect((await handleRow(handle.id))?.last_poll_at).toBeNull();
    const stop = await root.post('/api/v1/admin/processes/stop', { handle_id: handle.id });
    expect(dataOf(stop, adminProcessResponseSchema).process).toMatchObject({
      state: 'stopped',
      job: 'monitor',
    });

    const resume = await root.post('/api/v1/admin/processes/start', { handle_id: handle.id });
    expect(resume.statusCode, resume.body).toBe(200);
    expect(dataOf(resume, adminProcessResponseSchema).process).toMatchObject({
      state: 'running',
      job: 'monitor',
    });
    const polled = await waitFor(
      () => handleRow(handle.id),
      (row) => row?.last_poll_at !== null,
    );
    expect(polled?.next_poll_at).not.toBeNull();
    // The poll wrote its result; its job ends a moment later (it gives the handle's lease back).
    await waitFor(
      () => processOf(handle.id),
      (process) => process.state === 'idle',
    );
  });

  it('start retries a failed handle', async () => {
    await start();
    const handle = await follow(alice, 'nobody_demo', 3);
    await completed(handle.id);
    const before = await processOf(handle.id);
    expect(before).toMatchObject({ state: 'idle', last_error: '@nobody_demo was not found on X' });

    const resume = await root.post('/api/v1/admin/processes/start', { handle_id: handle.id });
    expect(resume.statusCode, resume.body).toBe(200);
    expect(resume.json()).toMatchObject({ message: 'Collection resumed for @nobody_demo.' });
    expect(dataOf(resume, adminProcessResponseSchema).process.last_error).toBeNull();
    const failed = await waitFor(
      () => handleRow(handle.id),
      (row) => row?.backfill_status === 'failed',
    );
    expect(failed?.last_error).toBe('@nobody_demo was not found on X');
  });

  it('stop and start: roles, missing ids and unknown handles', async () => {
    await start();
    const handle = await follow(alice, 'quiet_rol', 1);
    for (const path of ['stop', 'start'] as const) {
      const url = `/api/v1/admin/processes/${path}`;
      const required = `Handle ID is required to ${path} a process.`;
      expectError(await root.post(url, {}), 400, { message: required });
      expectError(await root.post(url, { handle_id: 'abc' }), 400, { message: required });
      expectError(await root.post(url, { handle_id: 0 }), 400, { message: required });
      expectError(await root.post(url, { handle_id: 999_999 }), 404, {
        message: 'Handle not found.',
      });
      expectError(await admin.post(url, { handle_id: handle.id }), 403, {
        message: 'Access Denied. Super admin privileges required.',
      });
      expectError(await alice.post(url, { handle_id: handle.id }), 403, {
        message: 'Access Denied. Admin privileges required.',
      });
    }
    expect((await handleRow(handle.id))?.paused).toBeFalsy();
  });

  it('global delete stops the collector mid-backfill and removes the handle and its data for everybody', async () => {
    await start({}, { source: createDemoSource({ pageDelayMs: 25 }) });
    const handle = await follow(alice, 'prolific_del', 15);
    await follow(bob, 'prolific_del', 15);
    const kept = await follow(bob, 'quiet_kept', 1);
    await waitFor(
      () => handleRow(handle.id),
      (row) => (row?.total_tweets_collected ?? 0) > 0,
    );
    const [tweet] = await storedTweetIds(t.db, handle.id);
    await queueDelivery(handle.id, tweet ?? '1');

    // An admin may delete globally; a plain user may not.
    expectError(await alice.delete(`/api/v1/admin/handles/${handle.id}`), 403);
    expect((await handleRow(handle.id))?.backfill_status).toBe('in_progress');
    const response = await admin.delete(`/api/v1/admin/handles/${handle.id}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      success: true,
      message: 'Successfully deleted handle @prolific_del.',
      data: { id: handle.id, handle: 'prolific_del' },
    });

    const gone = async () => ({
      handle: await handleRow(handle.id),
      links: await rowsOf('user_handles', handle.id),
      tweets: await rowsOf('tweets', handle.id),
      profiles: await rowsOf('profile_snapshots', handle.id),
      metrics: await rowsOf('tweet_metric_snapshots', handle.id),
      outbox: await outboxRows(handle.id),
    });
    const empty = {
      handle: undefined,
      links: 0,
      tweets: 0,
      profiles: 0,
      metrics: 0,
      outbox: 0,
    };
    expect(await gone()).toEqual(empty);
    // Nothing brings it back: no job is left running on it, and the scheduler cannot find it.
    expect((await t.collector.busyHandleIds()).has(handle.id)).toBe(false);
    await sleep(300);
    expect(await gone()).toEqual(empty);

    for (const client of [alice, bob]) {
      const { handles } = dataOf(await client.get('/api/v1/handles'), handleListResponseSchema);
      expect(handles.map((h) => h.id)).not.toContain(handle.id);
    }
    const { handles: bobs } = dataOf(await bob.get('/api/v1/handles'), handleListResponseSchema);
    expect(bobs.map((h) => h.id)).toEqual([kept.id]);
    expect((await processes()).processes.map((p) => p.handle_id)).toEqual([kept.id]);

    const [event] = await securityEvents('admin_handle_deleted');
    expect(event).toMatchObject({ severity: 'high' });
    expect(JSON.parse(event?.metadata ?? '{}')).toMatchObject({
      actor: 'adam',
      handle_id: handle.id,
    });

    expectError(await admin.delete(`/api/v1/admin/handles/${handle.id}`), 404, {
      message: 'Handle not found.',
    });
    expectError(await admin.delete('/api/v1/admin/handles/abc'), 400, {
      message: 'Handle ID is required to delete a handle.',
    });
  });

  it('clear data deletes what was collected and backfills the handle again from scratch', async () => {
    await start();
    const handle = await follow(alice, 'typical_clr', 5);
    await completed(handle.id);
    const before = await handleRow(handle.id);
    // Rows the fresh backfill would never write, so their absence shows the clean-up.
    await t.db.db
      .insertInto('tweet_metric_snapshots')
      .values({
        handle_id: handle.id,
        tweet_id: '1',
        taken_at: new Date().toISOString(),
        likes: 1,
        retweets: 0,
        replies: 0,
        quotes: 0,
        impressions: null,
      })
      .execute();
    await t.db.db
      .insertInto('tweets')
      .values(
        tweetRow(
          handle.id,
          makeTweet({ id: '1', text: 'not from the source', lang: null, ...NO_ENGAGEMENT }),
        ),
      )
      .execute();
    await queueDelivery(handle.id, '1');
    expect(await rowsOf('profile_snapshots', handle.id)).toBe(1);

    expectError(await admin.delete(`/api/v1/admin/handles/${handle.id}/data`), 403, {
      message: 'Access Denied. Super admin privileges required.',
    });
    const response = await root.delete(`/api/v1/admin/handles/${handle.id}/data`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      message:
        'Successfully cleared data for handle @typical_clr. Scraper will re-initialize for it.',
    });
    expect(dataOf(response, adminProcessResponseSchema).process).toMatchObject({
      handle_id: handle.id,
      job: 'backfill',
    });
    expect((await handleRow(handle.id))?.data_version).toBeGreaterThan(before?.data_version ?? 0);

    const done = await completed(handle.id);
    expect(done).toMatchObject({
      backfill_status: 'completed',
      backfill_progress: 100,
      username: 'typical_clr',
      x_user_id: before?.x_user_id,
      followers_count: before?.followers_count,
    });
    expect(done?.backfill_window_end).not.toBe(before?.backfill_window_end);
    const counts = await tweetCounts(handle.id);
    expect(counts.distinct).toBe(counts.total);
    expect(await storedTweetIds(t.db, handle.id)).toEqual(await expectedIds(handle.id));
    expect(await rowsOf('tweet_metric_snapshots', handle.id)).toBe(0);
    expect(await rowsOf('profile_snapshots', handle.id)).toBe(0);
    expect(await outboxRows(handle.id)).toBe(0);
    expect(await rowsOf('user_handles', handle.id)).toBe(1);

    const [event] = await securityEvents('admin_handle_data_cleared');
    expect(event).toMatchObject({ severity: 'high' });

    expectError(await root.delete('/api/v1/admin/handles/999999/data'), 404, {
      message: 'Handle not found.',
    });
    expectError(await root.delete('/api/v1/admin/handles/0/data'), 400, {
      message: 'Handle ID is required to clear data.',
    });
  });

  it('clearing a stopped handle empties it at once, keeps it stopped, and start backfills it afresh', async () => {
    await start();
    const handle = await follow(alice, 'typical_cst', 3);
    await completed(handle.id);
    const before = await handleRow(handle.id);
    expect(
      (await root.post('/api/v1/admin/processes/stop', { handle_id: handle.id })).statusCode,
    ).toBe(200);

    const response = await root.delete(`/api/v1/admin/handles/${handle.id}/data`);
    expect(response.statusCode, response.body).toBe(200);
    expect(dataOf(response, adminProcessResponseSchema).process).toMatchObject({
      state: 'stopped',
      job: 'backfill',
      backfill_status: 'pending',
      backfill_progress: 0,
      tweets_collected: 0,
      last_poll_at: null,
      next_poll_at: null,
      last_error: null,
    });
    const cleared = await handleRow(handle.id);
    expect(cleared).toMatchObject({
      backfill_target_start: null,
      backfill_window_end: null,
      oldest_covered_at: null,
      newest_tweet_id: null,
      backfill_completed_at: null,
      estimated_completion: null,
      quiet_polls: 0,
      data_version: (before?.data_version ?? 0) + 1,
    });
    expect(Boolean(cleared?.initial_backfill_complete)).toBe(false);
    await sleep(200);
    expect(await tweetCounts(handle.id)).toEqual({ total: 0, distinct: 0 });

    expect(
      (await root.post('/api/v1/admin/processes/start', { handle_id: handle.id })).statusCode,
    ).toBe(200);
    await completed(handle.id);
    expect(await storedTweetIds(t.db, handle.id)).toEqual(await expectedIds(handle.id));
  });

  it('the collector account challenge: collection waits for the right code', async () => {
    const source = createTweetSource(
      loadConfig({ DEMO_CHALLENGE_CODE: CODE, DEMO_PAGE_DELAY_MS: '0' }),
    );
    await start({ DEMO_CHALLENGE_CODE: CODE }, { source });
    const url = '/api/v1/admin/submit-twitter-challenge-code';

    const asked = await challenge();
    expect(asked).toMatchObject({
      status: 'AWAITING_INPUT',
      challenge_type: 'email_code',
      challenge_details: DEMO_CHALLENGE.details,
    });
    expect(asked.last_challenge_at).not.toBeNull();
    expectError(await admin.get('/api/v1/admin/twitter-challenge-status'), 403, {
      message: 'Access Denied. Super admin privileges required.',
    });

    const handle = await follow(alice, 'typical_cod', 2);
    await sleep(300);
    expect(await tweetCounts(handle.id)).toEqual({ total: 0, distinct: 0 });
    const paused = await processes();
    expect(paused.processes).toEqual([
      expect.objectContaining({
        handle_id: handle.id,
        state: 'paused',
        state_reason:
          'Collection is paused: the collector account is waiting for a verification code.',
      }),
    ]);
    expect(paused.source).toMatchObject({
      health: 'paused',
      health_reason: ADMIN_MESSAGES.collectionPausedByChallenge,
      challenge: { status: 'AWAITING_INPUT', challenge_type: 'email_code' },
    });

    const required = 'Verification code is required and must be a non-empty string.';
    expectError(await root.post(url, { verification_code: '   ' }), 400, { message: required });
    expectError(await root.post(url, {}), 400, { message: required });
    expectError(await root.post(url, { verification_code: 42 }), 400, { message: required });
    expectError(await admin.post(url, { verification_code: CODE }), 403, {
      message: 'Access Denied. Super admin privileges required.',
    });

    const wrong = await root.post(url, { verification_code: '000000' });
    expect(wrong.statusCode, wrong.body).toBe(200);
    expect(wrong.json()).toMatchObject({
      message: 'Verification code submitted. Checking it with the collector account...',
    });
    expect(dataOf(wrong, challengeStatusResponseSchema).status).toBe('CODE_SUBMITTED');
    const refused = await waitFor(challenge, (status) => status.status !== 'CODE_SUBMITTED');
    expect(refused).toMatchObject({
      status: 'AWAITING_INPUT',
      challenge_details: 'The verification code was not accepted. Please enter the newest code.',
    });
    expect(await tweetCounts(handle.id)).toEqual({ total: 0, distinct: 0 });

    const right = await root.post(url, { verification_code: ` ${CODE} ` });
    expect(right.statusCode, right.body).toBe(200);
    const accepted = await waitFor(challenge, (status) => status.status !== 'CODE_SUBMITTED');
    expect(accepted).toMatchObject({
      status: 'IDLE',
      challenge_type: 'email_code',
      challenge_details: 'Verification complete. Collection has resumed.',
    });
    await completed(handle.id);
    expect(await storedTweetIds(t.db, handle.id)).toEqual(await expectedIds(handle.id));
    expect((await processes()).source).toMatchObject({
      health: 'ok',
      challenge: { status: 'IDLE' },
    });

    expectError(await root.post(url, { verification_code: CODE }), 409, {
      message: 'No verification challenge is waiting for a code.',
    });

    // Both submissions are in the security log; the code is nowhere in it, nor kept.
    const events = await securityEvents('challenge_code_submitted');
    expect(events).toHaveLength(2);
    const everything = JSON.stringify(
      await t.db.db.selectFrom('security_events').selectAll().execute(),
    );
    expect(everything).not.toContain(CODE);
    expect(everything).not.toContain('000000');
    const account = await t.db.db.selectFrom('collector_account').selectAll().executeTakeFirst();
    expect(account?.submitted_code).toBeNull();
  });

  it('without a challenge the status is IDLE and a code is refused with 409', async () => {
    await start();
    expect(await challenge()).toEqual({
      status: 'IDLE',
      challenge_type: null,
      challenge_details: null,
      last_challenge_at: null,
    });
    expectError(
      await root.post('/api/v1/admin/submit-twitter-challenge-code', { verification_code: CODE }),
      409,
      { message: ADMIN_MESSAGES.noChallengePending },
    );
  });
});
