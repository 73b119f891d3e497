import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_MESSAGES } from '@perch/shared';
import {
  DIALECTS,
  createTestDb,
  handleNamed,
  storedTweetIds,
  waitFor,
  type TestDb,
} from '../../test/helpers.js';
import { resetHandleData } from '../modules/admin/admin-collector.repository.js';
import { claimHandleLease, findHandleByName } from '../modules/handles/handles.repository.js';
import { addHandle } from '../modules/handles/handles.service.js';
import { readXApiStatus } from '../modules/x-usage/x-api-status.repository.js';
import { insertUser, type UserRow } from '../modules/users/users.repository.js';
import {
  raiseChallenge,
  readChallengeStatus,
  recordVerification,
  submitChallengeCode,
  takeSubmittedCode,
} from '../modules/admin/collector-account.repository.js';
import { runBackfill } from './backfill.js';
import { Collector } from './collector.js';
import { instrumented, sourceWindowIds } from './test-sources.js';
import type { CollectorContext } from './context.js';
import type { Logger } from '../lib/logger.js';
import { CollectorEvents } from '../domain/collector-events.js';
import { createDemoSource, DEMO_CHALLENGE } from '../sources/index.js';
import { abortReason } from '../lib/sleep.js';
import { SourceError, type TweetSource } from '../domain/tweet-source.js';

const START = Date.UTC(2026, 5, 1, 12, 0, 0);
const CODE = '424242';

/** A logger that keeps what was logged at error level. */
function recordingLog() {
  const errors: unknown[][] = [];
  const log: Logger = {
    info: () => {},
    warn: () => {},
    error: (...args: unknown[]) => errors.push(args),
  } as Logger;
  return { log, errors };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DIALECTS)('collector control (%s)', (dialect) => {
  let db: TestDb;
  let user: UserRow;
  const collectors: Collector[] = [];
  const clock = () => START;

  const demo = (options: { pageDelayMs?: number; challengeCode?: string } = {}) =>
    createDemoSource({ pageDelayMs: options.pageDelayMs ?? 0, now: clock, ...options });
  const makeCollector = (source: TweetSource, log?: Logger) => {
    const collector = new Collector({
      db,
      source,
      monitorIntervalSeconds: 60,
      now: () => new Date(clock()),
      tickMs: 20,
      log,
    });
    collectors.push(collector);
    return collector;
  };
  const follow = (username: string, backfillDays: number, collector?: Collector) =>
    addHandle(db, collector, user, { username, backfillDays, now: new Date(clock()) });

  beforeEach(async () => {
    db = await createTestDb(dialect);
    user = await insertUser(db.db, {
      username: 'alice',
      email: 'alice@example.com',
      passwordHash: 'x',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: new Date(START).toISOString(),
    });
  });

  afterEach(async () => {
    for (const collector of collectors.splice(0)) await collector.stop();
    await db.dispose();
  });

  it('halt() aborts the running backfill, keeps its pages, and runs nothing meanwhile', async () => {
    const { source, calls } = instrumented(demo({ pageDelayMs: 20 }));
    // Once `hang` is set, a page never arrives unless its job is aborted (a stuck network).
    let hang = false;
    let hanging = 0;
    const stuck: TweetSource = {
      ...source,
      timeline: (query, signal) => {
        if (!hang) return source.timeline(query, signal);
        hanging += 1;
        return new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(abortReason(signal)), { once: true }),
        );
      },
    };
    const collector = makeCollector(stuck);
    let pages = 0;
    collector.events.on('handle.progress', () => (pages += 1));
    await collector.start();
    const { id } = await follow('prolific_hal', 15, collector);
    await waitFor(
      () => pages,
      (n) => n >= 2,
    );
    hang = true;
    await waitFor(
      () => hanging,
      (n) => n === 1,
    );
    expect(await collector.busyHandleIds()).toEqual(new Set([id]));
    // Counted once the job has ended: a page stored while the next one hung lands before.
    let pagesBefore = 0;

    const during = await collector.halt(id, async () => {
      pagesBefore = pages;
      hang = false;
      const before = calls.timeline;
      // Several ticks find the handle due; none of them may run it.
      await sleep(150);
      return { calls: calls.timeline - before, busy: await collector.busyHandleIds() };
    });
    expect(during.calls).toBe(0);
    expect(during.busy.has(id)).toBe(false);
    expect(pages).toBe(pagesBefore);
    const halted = await handleNamed(db, 'prolific_hal');
    expect(halted.backfill_status).toBe('in_progress');
    expect(halted.last_error).toBeNull();
    expect(halted.total_tweets_collected).toBe((await storedTweetIds(db, id)).length);

    // Released: the scheduler resumes it and nothing is missing or doubled.
    const done = await waitFor(
      () => handleNamed(db, 'prolific_hal'),
      (row) => row.backfill_status === 'completed',
    );
    const stored = await storedTweetIds(db, id);
    expect(stored).toEqual(await sourceWindowIds(demo(), done));
    expect(done.total_tweets_collected).toBe(stored.length);
  });

  it.each(['backfill', 'poll'] as const)(
    'a %s whose handle is deleted mid-page (another process) ends quietly',
    async (kind) => {
      const name = kind === 'backfill' ? 'prolific_del' : 'quiet_del';
      const { source, hooks } = instrumented(demo({ pageDelayMs: 20 }));
      const { log, errors } = recordingLog();
      const collector = makeCollector(source, log);
      let deleted = false;
      const deleteOnNextPage = () => {
        hooks.beforeTimeline = async () => {
          if (deleted) return;
          deleted = true;
          await db.db.deleteFrom('handles').where('username', '=', name).execute();
        };
      };
      await collector.start();
      const { id } = await follow(name, 3, collector);
      // Armed once the follow has answered, so the delete lands on a later page of the walk.
      if (kind === 'backfill') deleteOnNextPage();
      if (kind === 'poll') {
        await waitFor(
          () => handleNamed(db, name),
          (row) => row.backfill_status === 'completed',
        );
        await collector.idle();
        deleteOnNextPage();
        await collector.pollNow(id);
      }
      await waitFor(
        () => deleted,
        (value) => value,
      );
      await collector.idle();
      expect(await findHandleByName(db.db, name)).toBeUndefined();
      expect(await storedTweetIds(db, id)).toEqual([]);
      expect(errors).toEqual([]);
    },
  );

  it('a backfill whose data is cleared mid-page (another process) leaves the fresh state alone', async () => {
    const { id } = await follow('prolific_clr', 5);
    const { source, hooks } = instrumented(demo());
    hooks.beforeTimeline = async (call) => {
      if (call !== 3) return;
      await db.db
        .transaction()
        .execute((trx) => resetHandleData(trx, id, new Date(START).toISOString()));
    };
    const { log, errors } = recordingLog();
    const ctx: CollectorContext = {
      db,
      source,
      events: new CollectorEvents(),
      log,
      now: () => new Date(START),
      monitorIntervalMs: 60_000,
      collectionPaused: () => false,
      profileRefreshMs: 15 * 60_000,
      blockSource: async () => {},
      metricRefresh: 'standard',
    };
    await runBackfill(ctx, id, new AbortController().signal);
    const after = await handleNamed(db, 'prolific_clr');
    expect(after).toMatchObject({
      backfill_status: 'pending',
      backfill_progress: 0,
      backfill_window_end: null,
      oldest_covered_at: null,
      total_tweets_collected: 0,
      last_error: null,
    });
    expect(errors).toEqual([]);
  });

  it('a challenge at start pauses collection until the right code is verified', async () => {
    const { source, calls } = instrumented(demo({ challengeCode: CODE }));
    const collector = makeCollector(source);
    await collector.start();
    expect(await readChallengeStatus(db.db)).toEqual({
      status: 'AWAITING_INPUT',
      challenge_type: DEMO_CHALLENGE.type,
      challenge_details: DEMO_CHALLENGE.details,
      last_challenge_at: new Date(START).toISOString(),
    });
    await follow('typical_cha', 2, collector);
    await sleep(150);
    await collector.idle();
    expect(calls).toEqual({ lookupUser: 0, timeline: 0, tweetsByIds: 0 });
    expect((await handleNamed(db, 'typical_cha')).backfill_status).toBe('pending');

    expect(await submitChallengeCode(db.db, '999999', new Date(START).toISOString())).toBe(true);
    const refused = await waitFor(
      () => readChallengeStatus(db.db),
      (status) => status.status !== 'CODE_SUBMITTED',
    );
    expect(refused).toMatchObject({
      status: 'AWAITING_INPUT',
      challenge_details: ADMIN_MESSAGES.codeRejected,
    });
    const row = await db.db.selectFrom('collector_account').selectAll().executeTakeFirst();
    expect(row?.submitted_code).toBeNull();
    expect(calls.timeline).toBe(0);

    expect(await submitChallengeCode(db.db, CODE, new Date(START).toISOString())).toBe(true);
    const accepted = await waitFor(
      () => readChallengeStatus(db.db),
      (status) => status.status !== 'CODE_SUBMITTED',
    );
    expect(accepted).toMatchObject({
      status: 'IDLE',
      challenge_type: DEMO_CHALLENGE.type,
      challenge_details: ADMIN_MESSAGES.codeAccepted,
    });
    const done = await waitFor(
      () => handleNamed(db, 'typical_cha'),
      (handle) => handle.backfill_status === 'completed',
    );
    expect(await storedTweetIds(db, done.id)).toEqual(await sourceWindowIds(demo(), done));

    // The verified session is not challenged again when collection starts anew.
    await collector.stop();
    await makeCollector(source).start();
    expect((await readChallengeStatus(db.db)).status).toBe('IDLE');
  });

  it('a challenge raised elsewhere stops a running backfill at its next page; it resumes once verified', async () => {
    const collector = makeCollector(demo({ pageDelayMs: 40 }));
    let pages = 0;
    collector.events.on('handle.progress', () => (pages += 1));
    await collector.start();
    const { id } = await follow('prolific_pau', 15, collector);
    await waitFor(
      () => pages,
      (n) => n >= 2,
    );
    await raiseChallenge(db.db, DEMO_CHALLENGE, new Date(START).toISOString());
    await waitFor(
      () => collector.busyHandleIds(),
      (busy) => busy.size === 0,
    );
    const paused = await handleNamed(db, 'prolific_pau');
    await sleep(150);
    const still = await handleNamed(db, 'prolific_pau');
    expect(still.backfill_status).toBe('in_progress');
    expect(still.backfill_progress).toBe(paused.backfill_progress);
    expect(still.backfill_progress).toBeLessThan(100);
    expect(await storedTweetIds(db, id)).toHaveLength(paused.total_tweets_collected);

    // Another worker, whose source has the account, verifies a code.
    expect(await submitChallengeCode(db.db, CODE, new Date(START).toISOString())).toBe(true);
    expect(await takeSubmittedCode(db.db)).toBe(CODE);
    await recordVerification(db.db, true, new Date(START).toISOString());
    const done = await waitFor(
      () => handleNamed(db, 'prolific_pau'),
      (row) => row.backfill_status === 'completed',
    );
    const stored = await storedTweetIds(db, id);
    expect(stored).toEqual(await sourceWindowIds(demo(), done));
  });

  it('a sign-in without a challenge closes one left open', async () => {
    await raiseChallenge(db.db, DEMO_CHALLENGE, new Date(START).toISOString());
    await makeCollector(demo()).start();
    expect((await readChallengeStatus(db.db)).status).toBe('IDLE');
  });

  it('the challenge store: never asked is IDLE; a submitted code survives a new challenge and is taken once', async () => {
    const at = new Date(START).toISOString();
    expect(await readChallengeStatus(db.db)).toEqual({
      status: 'IDLE',
      challenge_type: null,
      challenge_details: null,
      last_challenge_at: null,
    });
    expect(await submitChallengeCode(db.db, CODE, at)).toBe(false);
    await raiseChallenge(db.db, DEMO_CHALLENGE, at);
    expect(await submitChallengeCode(db.db, CODE, at)).toBe(true);
    // A code is being checked: no second one, and a new sign-in keeps it for the next tick.
    expect(await submitChallengeCode(db.db, '111111', at)).toBe(false);
    await raiseChallenge(db.db, DEMO_CHALLENGE, at);
    expect((await readChallengeStatus(db.db)).status).toBe('CODE_SUBMITTED');
    expect(await takeSubmittedCode(db.db)).toBe(CODE);
    expect(await takeSubmittedCode(db.db)).toBeNull();
  });

  it('two collectors on one database: each handle worked by one job at a time, every page read once', async () => {
    const reads: string[] = [];
    const recording = (): TweetSource => {
      const { source } = instrumented(demo({ pageDelayMs: 5 }));
      return {
        ...source,
        timeline: (query, signal) => {
          // Backfill pages (polls, with sinceId, may ask the same thing twice legitimately).
          if (query.sinceId === undefined) reads.push(`${query.xUserId}:${query.cursor ?? ''}`);
          return source.timeline(query, signal);
        },
      };
    };
    const [one, two] = [makeCollector(recording()), makeCollector(recording())];
    await Promise.all([one.start(), two.start()]);
    const names = ['prolific_one', 'prolific_two', 'prolific_thr'];
    const ids = [];
    for (const name of names) ids.push((await follow(name, 7, one)).id);
    for (const name of names) {
      await waitFor(
        () => handleNamed(db, name),
        (handle) => handle.backfill_status === 'completed',
        30_000,
      );
    }
    await one.stop();
    await two.stop();
    expect(reads.length).toBeGreaterThan(names.length);
    expect(new Set(reads).size).toBe(reads.length);
    for (const [index, name] of names.entries()) {
      const done = await handleNamed(db, name);
      expect(await storedTweetIds(db, ids[index]!)).toEqual(await sourceWindowIds(demo(), done));
      expect(done.lease_owner).toBeNull();
    }
  });

  it('a job whose lease was taken over writes nothing more, and the handle resumes once it is free', async () => {
    const collector = makeCollector(demo({ pageDelayMs: 30 }));
    await collector.start();
    const { id } = await follow('prolific_lea', 15, collector);
    const running = await waitFor(
      () => handleNamed(db, 'prolific_lea'),
      (handle) => handle.backfill_progress > 0 && handle.lease_owner !== null,
    );
    expect(running.lease_owner).toMatch(new RegExp(`^${collector.nodeId}:backfill:`));
    // Another node's job holds it now (this one was thought dead).
    const far = new Date(Date.now() + 60_000).toISOString();
    await db.db
      .updateTable('handles')
      .set({ lease_owner: 'other-node:backfill:1', lease_until: far })
      .where('id', '=', id)
      .execute();
    await sleep(200);
    const frozen = (await storedTweetIds(db, id)).length;
    const frozenHandle = await handleNamed(db, 'prolific_lea');
    await sleep(300);
    expect((await storedTweetIds(db, id)).length).toBe(frozen);
    expect((await handleNamed(db, 'prolific_lea')).backfill_progress).toBe(
      frozenHandle.backfill_progress,
    );
    // The other holder lets go: this collector finishes the backfill, every tweet once.
    await db.db
      .updateTable('handles')
      .set({ lease_owner: null, lease_until: null })
      .where('id', '=', id)
      .execute();
    const done = await waitFor(
      () => handleNamed(db, 'prolific_lea'),
      (handle) => handle.backfill_status === 'completed',
      30_000,
    );
    expect(await storedTweetIds(db, id)).toEqual(await sourceWindowIds(demo(), done));
  });

  it.runIf(dialect === 'postgres')(
    'a claim gives up on a handle whose row a stalled transaction holds, and takes it once free',
    async () => {
      const { id } = await follow('prolific_row', 1);
      let locked = () => {};
      let wake = () => {};
      const rowLocked = new Promise<void>((resolve) => (locked = resolve));
      const stalled = db.db.transaction().execute(async (trx) => {
        await trx.updateTable('handles').set({ paused: false }).where('id', '=', id).execute();
        const woken = new Promise<void>((resolve) => (wake = resolve));
        locked();
        await woken;
      });
      await rowLocked;
      const now = new Date(clock()).toISOString();
      const started = Date.now();
      expect(await claimHandleLease(db, id, 'other-node:backfill:1', now, now)).toBe(false);
      expect(Date.now() - started).toBeLessThan(5_000);
      wake();
      await stalled;
      expect(await claimHandleLease(db, id, 'other-node:backfill:1', now, now)).toBe(true);
    },
  );

  it('a job that fails after its lease was taken over records nothing of the failure', async () => {
    // A worker stood still mid-page; meanwhile another took the handle, and what it reads on
    // waking fails (here X refuses the credentials; or its transaction was ended meanwhile).
    const { source, hooks } = instrumented(demo());
    hooks.beforeTimeline = async (call) => {
      if (call !== 2) return;
      // The first page is stored while the second is read: the takeover comes after it.
      await waitFor(
        () => handleNamed(db, 'prolific_ted'),
        (handle) => handle.backfill_status === 'in_progress',
      );
      const far = new Date(Date.now() + 60_000).toISOString();
      await db.db
        .updateTable('handles')
        .set({ lease_owner: 'other-node:backfill:1', lease_until: far })
        .where('username', '=', 'prolific_ted')
        .execute();
      throw new SourceError('auth', 'Unauthorized');
    };
    const { log, errors } = recordingLog();
    const collector = makeCollector(source, log);
    await collector.start();
    await follow('prolific_ted', 15, collector);
    await waitFor(
      () => handleNamed(db, 'prolific_ted'),
      (handle) => handle.lease_owner === 'other-node:backfill:1',
    );
    await collector.idle();
    const handle = await handleNamed(db, 'prolific_ted');
    expect(handle.last_error).toBeNull();
    expect(handle.backfill_status).toBe('in_progress');
    expect((await readXApiStatus(db.db)).state).toBe('ok');
    expect(errors).toEqual([]);
  });
});
