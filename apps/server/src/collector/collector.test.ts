import type { XMetricRefreshPreset } from '@perch/shared';
import {
  ColumnNode,
  SelectQueryNode,
  TableNode,
  UpdateQueryNode,
  type KyselyPlugin,
  type OperationNode,
} from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DIALECTS,
  createTestDb,
  handleNamed,
  insertAlertRules,
  storedTweetIds,
  waitFor,
  type TestDb,
} from '../../test/helpers.js';
import { addHandle, removeHandle } from '../modules/handles/handles.service.js';
import { upsertTweets } from '../modules/tweets/tweets.repository.js';
import { LeaseLostError } from '../modules/handles/handles.repository.js';
import { makeTweet } from '../../test/factories.js';
import { insertUser, type UserRow } from '../modules/users/users.repository.js';
import { coveredShare } from '../lib/collection-status.js';
import { createPageAlerts, evaluatePendingPosts } from '../alerts/evaluation.js';
import { markForAlerts } from '../alerts/marks.repository.js';
import { Collector } from './collector.js';
import { instrumented, sourceWindowIds, sourceWindowPages } from './test-sources.js';
import type { CollectorContext } from './context.js';
import {
  CollectorEvents,
  type HandleProgressEvent,
  type TweetNewEvent,
} from '../domain/collector-events.js';
import { nextPollDelayMs, runPoll } from './poll.js';
import { READ_AHEAD_PAGES } from './backfill.js';
import { runMetricRefresh } from './metrics.js';
import { runProfileRefresh } from './profiles.js';
import { createDemoSource } from '../sources/index.js';
import { SourceError, type SourceTweet, type TweetSource } from '../domain/tweet-source.js';

const START = Date.UTC(2026, 5, 1, 12, 0, 0);
const DAY = 86_400_000;

/** The demo source, except that its first `failures` timeline calls are rate limited. */
function rateLimited(inner: TweetSource, failures: number, retryAfterMs: number) {
  let left = failures;
  const source: TweetSource = {
    ...inner,
    name: inner.name,
    lookupUser: (username, signal) => inner.lookupUser(username, signal),
    tweetsByIds: (ids, signal) => inner.tweetsByIds(ids, signal),
    rateBudget: () => inner.rateBudget(),
    timeline: (query, signal) => {
      if (left > 0) {
        left -= 1;
        return Promise.reject(new SourceError('rate_limited', 'Too Many Requests', retryAfterMs));
      }
      return inner.timeline(query, signal);
    },
  };
  return source;
}

/** A table's name, when `node` names one. */
const tableName = (node: OperationNode | undefined) =>
  node && TableNode.is(node) ? node.table.identifier.name : undefined;

/**
 * Watches the statements run through a Kysely instance it is plugged into: the tables each
 * SELECT reads, and every other statement with its table (and an UPDATE's columns).
 */
function recordedStatements() {
  const reads: (string | undefined)[] = [];
  const writes: { kind: string; table?: string; columns?: (string | undefined)[] }[] = [];
  const plugin: KyselyPlugin = {
    transformQuery({ node }) {
      if (SelectQueryNode.is(node)) {
        reads.push(...(node.from?.froms ?? []).map(tableName));
      } else if (UpdateQueryNode.is(node)) {
        const columns = (node.updates ?? []).map(({ column }) =>
          ColumnNode.is(column) ? column.column.name : undefined,
        );
        writes.push({ kind: node.kind, table: tableName(node.table), columns });
      } else {
        writes.push({ kind: node.kind });
      }
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  return Object.assign(plugin, { reads, writes });
}

describe.each(DIALECTS)('collector (%s)', (dialect) => {
  let db: TestDb;
  let clock: number;
  let user: UserRow;
  const collectors: Collector[] = [];

  const demo = () => createDemoSource({ pageDelayMs: 0, now: () => clock });
  const makeCollector = (
    source: TweetSource = demo(),
    metricRefresh: XMetricRefreshPreset = 'standard',
  ) => {
    const collector = new Collector({
      db,
      source,
      metricRefresh,
      monitorIntervalSeconds: 60,
      now: () => new Date(clock),
      tickMs: 50,
    });
    collectors.push(collector);
    return collector;
  };
  const makeUser = (username: string) =>
    insertUser(db.db, {
      username,
      email: `${username}@example.com`,
      passwordHash: 'x',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: new Date(clock).toISOString(),
    });

  /** `follower` (alice by default) follows the handle now, backfilling `backfillDays` days. */
  const follow = (collector: Collector, username: string, backfillDays: number, follower = user) =>
    addHandle(db, collector, follower, { username, backfillDays, now: new Date(clock) });
  /** What a job of `collector` works with, on the test's clock, for running one by hand. */
  const jobContext = (collector: Collector): CollectorContext => ({
    db,
    source: demo(),
    events: collector.events,
    log: { info: () => {}, warn: () => {}, error: () => {} },
    now: () => new Date(clock),
    monitorIntervalMs: 60_000,
    collectionPaused: () => false,
    profileRefreshMs: 15 * 60_000,
    blockSource: async () => {},
    metricRefresh: 'standard',
  });
  /**
   * prolific_pia backfilled over a day by a collector stopped then (polls are run by hand), with
   * alice's alert rules of these kinds on it, made now; the collector and the handle.
   */
  const backfilledWithRules = async (kinds: object[]) => {
    const collector = makeCollector();
    await collector.start();
    await follow(collector, 'prolific_pia', 1);
    const handle = await backfillDone('prolific_pia');
    await collector.stop();
    await insertAlertRules(db, {
      userId: user.id,
      handleId: handle.id,
      kinds,
      madeAt: new Date(clock).toISOString(),
    });
    return { collector, handle };
  };
  /** The handle once its backfill has completed. */
  const backfillDone = (username: string) =>
    waitFor(
      () => handleNamed(db, username),
      (row) => row.backfill_status === 'completed',
    );

  beforeEach(async () => {
    clock = START;
    db = await createTestDb(dialect);
    user = await makeUser('alice');
  });

  afterEach(async () => {
    for (const collector of collectors.splice(0)) await collector.stop();
    await db.dispose();
  });

  it('backfills the whole window: completed, progress 100, exactly the source tweets', async () => {
    const collector = makeCollector();
    const progress: HandleProgressEvent[] = [];
    collector.events.on('handle.progress', (event) => progress.push(event));
    await collector.start();
    await follow(collector, 'Prolific_Ann', 7);
    const done = await backfillDone('prolific_ann');
    expect(done.backfill_progress).toBe(100);
    expect(Boolean(done.initial_backfill_complete)).toBe(true);
    expect(done.backfill_completed_at).not.toBeNull();
    expect(done.backfill_window_end).toBe(new Date(START).toISOString());
    expect(done.backfill_target_start).toBe(new Date(START - 7 * DAY).toISOString());
    expect(done.followers_count).toBeGreaterThan(0);

    const expected = await sourceWindowIds(demo(), done);
    expect(expected.length).toBeGreaterThan(300);
    expect(await storedTweetIds(db, done.id)).toEqual(expected);
    expect(done.total_tweets_collected).toBe(expected.length);
    expect(BigInt(done.newest_tweet_id ?? '0')).toBe(
      expected.map((id) => BigInt(id)).reduce((a, b) => (b > a ? b : a)),
    );

    // Progress moved forward store by store (a store takes the pages read while the one
    // before it ran) and ended at 100.
    expect(progress.length).toBeGreaterThan(1);
    const values = progress.map((event) => event.progress);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    expect(values.at(-1)).toBe(100);
    expect(progress[0]?.progress).toBeGreaterThan(0);
    expect(progress[0]?.progress).toBeLessThan(100);

    const snapshots = await db.db.selectFrom('profile_snapshots').selectAll().execute();
    expect(snapshots).toHaveLength(1);
  });

  it.runIf(dialect === 'postgres')(
    'reads ahead while a page is stored, at most READ_AHEAD_PAGES pages, then stores them together',
    async () => {
      const { source, calls, hooks } = instrumented(demo());
      // Once the first page is read, a transaction takes the handle's row: its store waits.
      let release = () => {};
      let holder: Promise<void> | undefined;
      hooks.beforeTimeline = async (call) => {
        if (call !== 1) return;
        let locked = () => {};
        const rowLocked = new Promise<void>((resolve) => (locked = resolve));
        holder = db.db.transaction().execute(async (trx) => {
          await trx
            .selectFrom('handles')
            .select('id')
            .where('username', '=', 'prolific_rae')
            .forUpdate()
            .execute();
          locked();
          await new Promise<void>((resolve) => (release = resolve));
        });
        await rowLocked;
      };
      const collector = makeCollector(source);
      const progress: HandleProgressEvent[] = [];
      collector.events.on('handle.progress', (event) => progress.push(event));
      await collector.start();
      await follow(collector, 'prolific_rae', 15);
      await waitFor(
        async () => calls.timeline,
        (count) => count >= READ_AHEAD_PAGES + 1,
      );
      // The walk waits for its store now: no page more is read, and none is stored.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls.timeline).toBe(READ_AHEAD_PAGES + 1);
      expect(progress).toEqual([]);
      release();
      await holder;
      const done = await backfillDone('prolific_rae');
      expect(await storedTweetIds(db, done.id)).toEqual(await sourceWindowIds(demo(), done));
      // The pages read while the first was stored were stored together.
      expect(progress.length).toBeLessThan(calls.timeline - READ_AHEAD_PAGES + 1);
      expect(progress.at(-1)?.progress).toBe(100);
    },
  );

  it('stores pages a source answers at once together, and a page that is slow to come without waiting', async () => {
    // The demo source answers within the same turn of the event loop: the pages read before a
    // store begins, then while it runs, go into one store each time.
    const fast = instrumented(demo());
    const collector = makeCollector(fast.source);
    const progress: HandleProgressEvent[] = [];
    collector.events.on('handle.progress', (event) => progress.push(event));
    await collector.start();
    await follow(collector, 'prolific_rae', 15);
    const done = await backfillDone('prolific_rae');
    expect(await storedTweetIds(db, done.id)).toEqual(await sourceWindowIds(demo(), done));
    expect(fast.calls.timeline).toBeGreaterThan(READ_AHEAD_PAGES);
    expect(progress.length).toBeLessThanOrEqual(
      Math.ceil(fast.calls.timeline / READ_AHEAD_PAGES) + 1,
    );

    // The second page comes only once the first is stored: a writer that waited for more pages
    // before storing would never get it.
    const slow = instrumented(demo());
    slow.hooks.beforeTimeline = async (call) => {
      if (call === 2)
        await waitFor(
          () => progress.length,
          (count) => count > 0,
        );
    };
    progress.length = 0;
    const second = makeCollector(slow.source);
    second.events.on('handle.progress', (event) => progress.push(event));
    await collector.stop();
    await second.start();
    await follow(second, 'prolific_ray', 15);
    const slowDone = await backfillDone('prolific_ray');
    expect(await storedTweetIds(db, slowDone.id)).toEqual(await sourceWindowIds(demo(), slowDone));
    expect(progress[0]?.progress).toBeLessThan(100);
  });

  it('under economy a backfill schedules readings only for posts of the current UTC day', async () => {
    const collector = makeCollector(demo(), 'economy');
    await collector.start();
    await follow(collector, 'Prolific_Ann', 3);
    const done = await backfillDone('prolific_ann');
    const rows = await db.db
      .selectFrom('tweets')
      .select(['created_at', 'metrics_next_at'])
      .where('handle_id', '=', done.id)
      .execute();
    const today = new Date(START).toISOString().slice(0, 10);
    const older = rows.filter((row) => row.created_at.slice(0, 10) < today);
    expect(older.length).toBeGreaterThan(0);
    // A post of an earlier UTC day would be billed again: it gets no reading at all.
    expect(older.filter((row) => row.metrics_next_at !== null)).toEqual([]);
    for (const row of rows.filter((row) => row.metrics_next_at !== null)) {
      expect(row.metrics_next_at!.slice(0, 10)).toBe(row.created_at.slice(0, 10));
    }
  });

  it('a restart mid-backfill resumes with no gap and no duplicate', async () => {
    const first = makeCollector();
    let pages = 0;
    let stopping: Promise<void> | undefined;
    // Stopped once two stores landed: the first holds one page, the second the pages read
    // while the first ran (never the whole walk).
    first.events.on('handle.progress', () => {
      pages += 1;
      if (pages === 2) stopping = first.stop();
    });
    await first.start();
    await follow(first, 'prolific_bob', 15);
    await waitFor(
      async () => pages,
      (n) => n >= 2,
    );
    await stopping;
    const halfway = await handleNamed(db, 'prolific_bob');
    expect(halfway.backfill_status).toBe('in_progress');
    expect(halfway.backfill_progress).toBeGreaterThan(0);
    expect(halfway.backfill_progress).toBeLessThan(100);
    expect(halfway.total_tweets_collected).toBeGreaterThan(0);
    expect(halfway.total_tweets_collected).toBe((await storedTweetIds(db, halfway.id)).length);
    expect(halfway.oldest_covered_at).not.toBeNull();

    // A new engine on the same database (a new process, in effect) finds the work and resumes.
    const { source, calls } = instrumented(demo());
    const second = makeCollector(source);
    await second.start();
    const done = await backfillDone('prolific_bob');
    expect(calls.lookupUser).toBe(0);
    const expected = await sourceWindowIds(demo(), done);
    const stored = await storedTweetIds(db, done.id);
    expect(stored).toEqual(expected);
    expect(new Set(stored).size).toBe(stored.length);
    expect(done.total_tweets_collected).toBe(expected.length);
    expect(done.backfill_progress).toBe(100);
    // It did not start over: far fewer pages than a full walk.
    expect(calls.timeline).toBeLessThan((await sourceWindowPages(demo(), done)).length - 1);
  });

  it('stop() aborts a page in flight promptly and keeps the pages already saved', async () => {
    const collector = makeCollector(createDemoSource({ pageDelayMs: 300, now: () => clock }));
    let pages = 0;
    collector.events.on('handle.progress', () => (pages += 1));
    await collector.start();
    await follow(collector, 'prolific_sam', 15);
    await waitFor(
      async () => pages,
      (n) => n >= 1,
    );
    const started = Date.now();
    await collector.stop();
    expect(Date.now() - started).toBeLessThan(250);
    const stopped = await handleNamed(db, 'prolific_sam');
    expect(stopped.backfill_status).toBe('in_progress');
    expect(stopped.total_tweets_collected).toBeGreaterThan(0);
    expect(stopped.total_tweets_collected).toBe((await storedTweetIds(db, stopped.id)).length);
    expect(stopped.last_error).toBeNull();
  });

  it('two users on one handle share one collection', async () => {
    const { source, calls } = instrumented(demo());
    const collector = makeCollector(source);
    await collector.start();
    const bob = await makeUser('bob');
    const a = await follow(collector, 'typical_tom', 7);
    const b = await follow(collector, '@TYPICAL_TOM', 7, bob);
    expect(b.id).toBe(a.id);
    await backfillDone('typical_tom');
    await collector.idle();
    const handles = await db.db.selectFrom('handles').selectAll().execute();
    expect(handles).toHaveLength(1);
    expect(calls.lookupUser).toBe(1);
    const done = await handleNamed(db, 'typical_tom');
    expect(calls.timeline).toBe((await sourceWindowPages(demo(), done)).length);

    // A third user adding it later gets the data at once, already complete.
    const carol = await makeUser('carol');
    const c = await follow(collector, 'typical_tom', 7, carol);
    expect(c.backfill_status).toBe('completed');
    expect(c.total_tweets_collected).toBe(done.total_tweets_collected);
    expect(c.analytics_available).toBe(true);
  });

  it('a longer backfill than covered extends the window further back', async () => {
    const collector = makeCollector();
    await collector.start();
    await follow(collector, 'typical_tia', 3);
    const short = await backfillDone('typical_tia');
    const bob = await makeUser('bob');
    const added = await follow(collector, 'typical_tia', 9, bob);
    expect(added.backfill_status).toBe('pending');
    expect(added.backfill_progress).toBeCloseTo(33.33, 1);
    const long = await backfillDone('typical_tia');
    expect(long.backfill_days_covered).toBe(9);
    expect(long.backfill_target_start).toBe(new Date(START - 9 * DAY).toISOString());
    expect(long.total_tweets_collected).toBeGreaterThan(short.total_tweets_collected);
    expect(await storedTweetIds(db, long.id)).toEqual(await sourceWindowIds(demo(), long));
  });

  it('re-adding after everybody unlinked is instant and complete, and data stayed', async () => {
    const collector = makeCollector();
    await collector.start();
    const first = await addHandle(db, collector, user, {
      username: 'typical_una',
      backfillDays: 3,
    });
    const done = await backfillDone('typical_una');
    await removeHandle(db, user, first.id);
    expect(await storedTweetIds(db, done.id)).toHaveLength(done.total_tweets_collected);
    // Nobody follows it: the scheduler leaves it alone even when a poll would be due.
    clock += 10 * 60_000;
    await collector.tick();
    await collector.idle();
    expect((await handleNamed(db, 'typical_una')).last_poll_at).toBeNull();

    const again = await addHandle(db, collector, user, {
      username: 'typical_una',
      backfillDays: 3,
    });
    expect(again.backfill_status).toBe('completed');
    expect(again.backfill_progress).toBe(100);
    expect(again.total_tweets_collected).toBe(done.total_tweets_collected);
  });

  it('polls: new tweets, a profile snapshot, metric snapshots only where changed', async () => {
    const collector = makeCollector();
    const fresh: TweetNewEvent[] = [];
    collector.events.on('tweet.new', (event) => fresh.push(event));
    await collector.start();
    await follow(collector, 'prolific_pia', 1);
    const backfilled = await backfillDone('prolific_pia');
    expect(backfilled.next_poll_at).toBe(new Date(START + 60_000).toISOString());
    // Polls are run by hand below; the scheduler must not run one of its own meanwhile.
    await collector.stop();

    clock += 3 * 3_600_000;
    const ctx = jobContext(collector);
    await ctx.source.lookupUser('prolific_pia');
    await runPoll(ctx, backfilled.id, new AbortController().signal);
    const polled = await handleNamed(db, 'prolific_pia');
    const added = polled.total_tweets_collected - backfilled.total_tweets_collected;
    expect(added).toBeGreaterThan(0);
    expect(polled.total_tweets_collected).toBe((await storedTweetIds(db, polled.id)).length);
    expect(fresh).toHaveLength(added);
    expect(fresh.every((event) => Date.parse(event.tweet.createdAt) > START)).toBe(true);
    expect(polled.next_poll_at).toBe(new Date(clock + 30_000).toISOString());
    expect(polled.quiet_polls).toBe(0);
    expect(polled.last_poll_at).toBe(new Date(clock).toISOString());
    // A poll reads new tweets only: profiles and metrics have rounds of their own.
    expect((await db.db.selectFrom('profile_snapshots').selectAll().execute()).length).toBe(1);
    const firstReadings = await db.db.selectFrom('tweet_metric_snapshots').selectAll().execute();
    expect(firstReadings).toHaveLength(added);
    const signal = new AbortController().signal;
    expect(await runProfileRefresh(ctx, signal)).toBe(1);
    expect((await db.db.selectFrom('profile_snapshots').selectAll().execute()).length).toBe(2);
    // Backfilled tweets kept gaining engagement over those 3 hours: their readings were due.
    expect(await runMetricRefresh(ctx, signal)).toBeGreaterThan(0);
    const metricRows = await db.db.selectFrom('tweet_metric_snapshots').selectAll().execute();
    expect(metricRows.length).toBeGreaterThan(firstReadings.length);
    // Nothing is due again right away.
    expect(await runMetricRefresh(ctx, signal)).toBe(0);
    expect(await runProfileRefresh(ctx, signal)).toBe(0);
    // Every new tweet since the backfill is there: the window plus the poll match the source.
    expect(await storedTweetIds(db, polled.id)).toEqual(await sourceWindowIds(demo(), polled));

    // Same instant again: nothing new, nothing changed, so no new metric snapshot; slower next.
    await runPoll(ctx, polled.id, new AbortController().signal);
    const quiet = await handleNamed(db, 'prolific_pia');
    expect(quiet.quiet_polls).toBe(1);
    expect(quiet.next_poll_at).toBe(new Date(clock + 60_000).toISOString());
    expect(await db.db.selectFrom('tweet_metric_snapshots').selectAll().execute()).toHaveLength(
      metricRows.length,
    );
    expect(fresh).toHaveLength(added);

    // A second later, still nothing new: the poll moves the handle's schedule and writes
    // nothing else, and counts no tweets.
    clock += 1_000;
    const statements = recordedStatements();
    await runPoll({ ...ctx, db: { ...db, db: db.db.withPlugin(statements) } }, quiet.id, signal);
    expect(statements.writes).toEqual([
      {
        kind: 'UpdateQueryNode',
        table: 'handles',
        columns: ['last_poll_at', 'quiet_polls', 'next_poll_at'],
      },
    ]);
    expect(statements.reads).not.toContain('tweets');
    const after = await handleNamed(db, 'prolific_pia');
    expect(after).toEqual({
      ...quiet,
      last_poll_at: new Date(clock).toISOString(),
      quiet_polls: 2,
      next_poll_at: new Date(clock + 2 * 60_000).toISOString(),
    });
    expect(fresh).toHaveLength(added);
  });

  it('a poll evaluates the alert rules on the page it stores, as the pass would', async () => {
    const { collector, handle: backfilled } = await backfilledWithRules([
      { type: 'words', include: ['the'], exclude: [] },
      { type: 'engagement_multiple', multiple: 1.5, period: 'month' },
    ]);
    clock += 3 * 3_600_000;
    const told: number[] = [];
    collector.events.on('alert.fired', (event) => told.push(event.firingId));
    const delivery = () => ({ channels: ['telegram'] as const, webhooks: false });
    const ctx = { ...jobContext(collector), alerts: createPageAlerts(db, delivery) };
    await runPoll(ctx, backfilled.id, new AbortController().signal);
    const firings = () =>
      db.db
        .selectFrom('alert_firings')
        .select(['id', 'rule_id', 'tweet_id'])
        .orderBy('rule_id')
        .orderBy('tweet_id')
        .execute();
    const pass = () => evaluatePendingPosts(db, { now: new Date(clock), ...delivery() });
    const atStore = await firings();
    expect(atStore.length).toBeGreaterThan(0);
    expect(told.sort((a, b) => a - b)).toEqual(atStore.map((row) => row.id).sort((a, b) => a - b));
    expect(await pass()).toMatchObject({ evaluated: 0, fired: 0 });
    expect(await db.db.selectFrom('alert_marks').select('id').execute()).toEqual([]);
    // The pass, given the same posts, fires exactly the same.
    await db.db.deleteFrom('alert_firings').execute();
    const fresh = await db.db
      .selectFrom('tweets')
      .select('tweet_id')
      .where('handle_id', '=', backfilled.id)
      .where('first_seen_at', '=', new Date(clock).toISOString())
      .execute();
    await markForAlerts(
      db.db,
      backfilled.id,
      fresh.map((row) => row.tweet_id),
      new Date(clock).toISOString(),
    );
    expect((await pass()).fired).toBe(atStore.length);
    const strip = (rows: { rule_id: number; tweet_id: string | null }[]) =>
      rows.map(({ rule_id, tweet_id }) => ({ rule_id, tweet_id }));
    expect(strip(await firings())).toEqual(strip(atStore));
  });

  it("a poll with nothing new leaves the quiet page's mark before it to be deleted", async () => {
    const { collector, handle: backfilled } = await backfilledWithRules([
      { type: 'words', include: ['zyzzyvas'], exclude: [] },
    ]);
    const delivery = () => ({ channels: [], webhooks: false });
    const ctx = { ...jobContext(collector), alerts: createPageAlerts(db, delivery) };
    clock += 3_600_000;
    await runPoll(ctx, backfilled.id, new AbortController().signal);
    // The same instant again: nothing new to store.
    await runPoll(ctx, backfilled.id, new AbortController().signal);
    expect(await db.db.selectFrom('alert_firings').select('id').execute()).toEqual([]);
    // The delivery worker's next pass deletes the quiet page's mark (at once on SQLite).
    await evaluatePendingPosts(db, { now: new Date(clock + 1_000), ...delivery() });
    expect(await db.db.selectFrom('alert_marks').select('id').execute()).toEqual([]);
  });

  it('the scheduler polls due handles', async () => {
    const { source, calls } = instrumented(demo());
    const collector = makeCollector(source);
    await collector.start();
    await follow(collector, 'quiet_quinn', 2);
    await backfillDone('quiet_quinn');
    await collector.idle();
    expect(calls.tweetsByIds).toBe(0);
    clock += 61_000;
    const polled = await waitFor(
      () => handleNamed(db, 'quiet_quinn'),
      (row) => row.last_poll_at !== null,
    );
    expect(polled.last_poll_at).toBe(new Date(clock).toISOString());
  });

  it.each([
    ['nobody_demo', '@nobody_demo was not found on X'],
    ['suspended_demo', '@suspended_demo is suspended'],
    ['protected_demo', '@protected_demo is protected'],
  ])('%s fails with a clear message', async (name, message) => {
    const { source, calls } = instrumented(demo());
    const collector = makeCollector(source);
    await collector.start();
    await follow(collector, name, 7);
    const failed = await waitFor(
      () => handleNamed(db, name),
      (row) => row.backfill_status === 'failed',
    );
    expect(failed.last_error).toBe(message);
    // Failed for good: the scheduler does not try again.
    const before = calls.lookupUser + calls.timeline;
    await new Promise((resolve) => setTimeout(resolve, 200));
    await collector.tick();
    await collector.idle();
    expect(calls.lookupUser + calls.timeline).toBe(before);
  });

  it('a rate limit keeps the status and retries after the time the source named', async () => {
    const { source, calls } = instrumented(rateLimited(demo(), 1, 60_000));
    const collector = makeCollector(source);
    await collector.start();
    await follow(collector, 'typical_rita', 7);
    const limited = await waitFor(
      () => handleNamed(db, 'typical_rita'),
      (row) => row.last_error !== null,
    );
    expect(limited.backfill_status).toBe('starting');
    expect(limited.next_poll_at).toBe(new Date(START + 60_000).toISOString());
    await collector.idle();
    const before = calls.timeline;
    await collector.tick();
    await collector.idle();
    expect(calls.timeline).toBe(before);
    clock += 60_000;
    await collector.tick();
    await collector.idle();
    const done = await handleNamed(db, 'typical_rita');
    expect(done.backfill_status).toBe('completed');
    expect(done.last_error).toBeNull();
    expect(calls.timeline).toBe(before + (await sourceWindowPages(demo(), done)).length);
  });

  it('upserts are idempotent: one row per tweet, metrics refreshed', async () => {
    const collector = makeCollector();
    await follow(collector, 'typical_ida', 1);
    const handle = await handleNamed(db, 'typical_ida');
    const profile = await demo().lookupUser('typical_ida');
    const page = await demo().timeline({
      xUserId: profile.xUserId,
      startTime: new Date(START - 2 * DAY).toISOString(),
    });
    const tweets: SourceTweet[] = page.tweets;
    expect(tweets.length).toBeGreaterThan(3);
    await upsertTweets(db.db, handle.id, tweets, new Date(START).toISOString());
    const bumped = tweets.map((tweet) => ({ ...tweet, likeCount: tweet.likeCount + 5 }));
    await upsertTweets(db.db, handle.id, [...bumped, ...bumped], new Date(START + 1).toISOString());
    const rows = await db.db
      .selectFrom('tweets')
      .selectAll()
      .where('handle_id', '=', handle.id)
      .execute();
    expect(rows).toHaveLength(tweets.length);
    // The handle counts each tweet once, however often it was stored.
    expect((await handleNamed(db, 'typical_ida')).total_tweets_collected).toBe(tweets.length);
    const first = tweets[0];
    const row = rows.find((r) => r.tweet_id === first?.id);
    expect(row?.like_count).toBe((first?.likeCount ?? 0) + 5);
    expect(row?.first_seen_at).toBe(new Date(START).toISOString());
    expect(row?.updated_at).toBe(new Date(START + 1).toISOString());
  });

  it('an upsert under a lease another job holds writes nothing', async () => {
    const collector = makeCollector();
    await follow(collector, 'typical_ida', 1);
    const handle = await handleNamed(db, 'typical_ida');
    await db.db
      .updateTable('handles')
      .set({ lease_owner: 'other', lease_until: new Date(START + DAY).toISOString() })
      .where('id', '=', handle.id)
      .execute();
    const lease = { owner: 'mine', until: new Date(START + DAY).toISOString() };
    const tweets = [makeTweet({ id: '1001' }), makeTweet({ id: '1002' })];
    await expect(
      upsertTweets(db.db, handle.id, tweets, new Date(START).toISOString(), { lease }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(await storedTweetIds(db, handle.id)).toEqual([]);
    expect(await handleNamed(db, 'typical_ida')).toEqual({
      ...handle,
      lease_owner: 'other',
      lease_until: lease.until,
    });
  });
});

describe('collection rules', () => {
  it('progress is the covered share of the time window', () => {
    expect(coveredShare(100, 0, 100)).toBe(0);
    expect(coveredShare(100, 0, 75)).toBe(25);
    expect(coveredShare(100, 0, -5)).toBe(100);
    expect(coveredShare(100, 100, 50)).toBe(100);
  });

  it('polls sooner after new tweets and up to 10x slower when quiet', () => {
    expect(nextPollDelayMs(60_000, 3, 4)).toBe(30_000);
    expect(nextPollDelayMs(60_000, 0, 0)).toBe(60_000);
    expect(nextPollDelayMs(60_000, 0, 1)).toBe(60_000);
    expect(nextPollDelayMs(60_000, 0, 2)).toBe(120_000);
    expect(nextPollDelayMs(60_000, 0, 4)).toBe(240_000);
    expect(nextPollDelayMs(60_000, 0, 50)).toBe(600_000);
    expect(nextPollDelayMs(6_000, 1, 0)).toBe(5_000);
  });

  it('events are typed emitters', () => {
    const events = new CollectorEvents();
    const seen: string[] = [];
    events.on('handle.status', (event) => seen.push(event.status));
    events.emit('handle.status', { handleId: 1, username: 'a', status: 'failed', error: 'x' });
    expect(seen).toEqual(['failed']);
  });
});
