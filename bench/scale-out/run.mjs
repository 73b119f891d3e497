// Scale-out benchmark (issue target: 2 worker processes collect at least 1.6x the tweets/s of one
// on a 2-core machine, or the bench shows what binds; notification drain with 1, 2 and 4
// workers; API req/s with 1 and 2 API nodes).
// Usage: npm run bench:scale-out   (prints Markdown tables, then one JSON line; about 8 minutes)
//        node --import tsx bench/scale-out/run.mjs   (the server must be built)
//
// Real processes of the built server (`node apps/server/dist/main.js` with PERCH_ROLE=worker or
// api) on the PostgreSQL of BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test)
// and the Redis of BENCH_REDIS_URL (default redis://127.0.0.1:6379). Every scenario gets a fresh
// schema (migrated first, dropped after) and a fresh Redis key prefix (deleted after). This
// process hosts the loopback fakes of apps/server/test/fakes (TypeScript, hence tsx) and reads
// CPU time from /proc: each Perch process, PostgreSQL (all its processes plus exited backends,
// whoever's sessions they serve), Redis, this process (the fakes) and the machine; what is left
// of the machine's busy time is shown as other processes (on a shared machine, other work).
//
// 1. Collection: 200 accounts on the fake X, each with 300 posts over the last 6 days; 200
//    handles with a 7-day backfill, followed by 20 users (10 each), written straight into the
//    schema, paused. 1, 2 and 4 workers start (default COLLECTOR_CONCURRENCY, 4 jobs each, and
//    the default scheduler); once they are up every handle is unpaused in one UPDATE, and the
//    clock runs from that UPDATE to the last backfill completed. Every timeline page and user
//    lookup answers after BENCH_X_LATENCY_MS (75 ms), so the work waits on X as it does on the
//    real API. Sampled every 200 ms: jobs running and queued (BullMQ, shared by the workers, in
//    Redis), the workers' database sessions by state and wait event (pg_stat_activity, by
//    application_name), and the machine's runnable tasks; the workers' /metrics give their
//    backfill job time and event-loop delay, /proc/<pid>/task/*/schedstat their run-queue wait.
//    Diagnostic runs after the main ones (BENCH_DIAGNOSE; '' skips them) tell what binds: 1
//    worker with 8 job slots (as many as 2 workers), 2 workers committing with
//    synchronous_commit=off, and 1 and 2 workers with X 4 times slower (and a quarter of the
//    handles), i.e. a quarter of the CPU work per second for the same slots.
// 2. Notification drain: 20 users with Telegram and Discord connected and the bot running follow
//    5 handles with both channels on; 3 new tweets of each handle are stored as monitoring stores
//    them (upsertTweets with the fan-out mark): 300 deliveries per channel, no digests (3 per
//    handle and chat is under NOTIFY_DIGEST_AFTER). The clock runs from the store to the last
//    outbox row 'sent'. The fakes keep their default limits (Telegram 30 msg/s and 1 per chat a
//    second; Discord 50 req/s, 10 DM openings per 10 s, 5 messages per 5 s per DM channel), which
//    hold per bot token: however many workers send, the services' limits do not grow. The 429s
//    the fakes answered are counted.
// 3. API: 2 API nodes (PERCH_ROLE=api) and one user signed in through the API, following 10
//    handles. Two autocannon processes (loadgen.mjs) load an authenticated GET, 10 connections
//    each: both at node 1 (1 node), or one at each node (2 nodes), summed; the two set-ups take
//    turns, round after round, and each row is the median round.
//
// BENCH_SCENARIOS (collect,drain,api), BENCH_WORKERS (1,2,4), BENCH_HANDLES (200), BENCH_POSTS
// (300), BENCH_X_LATENCY_MS (75), BENCH_NOTIFY_USERS (20), BENCH_NOTIFY_HANDLES (5),
// BENCH_NOTIFY_TWEETS (3), BENCH_API_ROUNDS (3), BENCH_API_SECONDS (5), BENCH_API_CONNECTIONS
// (20 in all), BENCH_TIMEOUT_S (240 per scenario) and BENCH_DIAGNOSE (1x8,2:nosync,1@300,2@300;
// see parseRun) change the run; BENCH_SERVER_DIST=<dir> runs another build of apps/server/dist.
// Linux only for the CPU columns (/proc); other columns work anywhere.
import { execFileSync, fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { startFakeDiscordServer } from '../../apps/server/test/fakes/fake-discord-server.ts';
import { startFakeTelegramServer } from '../../apps/server/test/fakes/fake-telegram-server.ts';
import { recentWirePosts, startFakeXServer } from '../../apps/server/test/fakes/fake-x-server.ts';
import {
  cpuMeter,
  createSchema,
  runnableTasks,
  deleteRedisKeys,
  dist,
  round,
  startNode,
  DIST,
  ROOT,
} from './cluster.mjs';
import { registerThroughApi } from '../lib/api-session.mjs';
import {
  busiestWindow,
  deliveryPairs,
  discordTweetId,
  isDmOpen,
  telegramTweetId,
} from '../lib/deliveries.mjs';
import { sleep } from '../lib/stats.mjs';
import { postMaker, seedSubscribedHandles } from '../lib/subscribers.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'collect,drain,api').split(',');
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
/** Extra collection runs that tell what binds (see parseRun); '' for none. */
const DIAGNOSE = (process.env.BENCH_DIAGNOSE ?? '1x8,2:nosync,1@300,2@300')
  .split(',')
  .filter(Boolean);
const HANDLES = Number(process.env.BENCH_HANDLES ?? 200);
const POSTS = Number(process.env.BENCH_POSTS ?? 300);
const X_LATENCY_MS = Number(process.env.BENCH_X_LATENCY_MS ?? 75);
const FOLLOWS_PER_USER = 10;
const BACKFILL_DAYS = 7;
const NOTIFY_USERS = Number(process.env.BENCH_NOTIFY_USERS ?? 20);
const NOTIFY_HANDLES = Number(process.env.BENCH_NOTIFY_HANDLES ?? 5);
const NOTIFY_TWEETS = Number(process.env.BENCH_NOTIFY_TWEETS ?? 3);
const API_ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 3);
const API_SECONDS = Number(process.env.BENCH_API_SECONDS ?? 5);
const API_CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 20);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 240) * 1000;
/** COLLECTOR_CONCURRENCY's default, which the main runs keep. */
const DEFAULT_SLOTS = 4;
const TARGET_2W = 1.6;
const RUN = `${process.pid}_${Date.now().toString(36)}`;

const mean = (values) =>
  values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
const fmt = (value, digits = 0) =>
  value === null || value === undefined
    ? 'n/a'
    : Number(value).toLocaleString('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      });
const ratio = (value, base) => (base ? round(value / base, 2) : null);

const { insertUser } = await dist('modules/users/users.repository.js');
const {
  insertHandle,
  insertLink,
  setLinkNotifications: setHandleNotifications,
} = await dist('modules/handles/handles.repository.js');
const { upsertTweets } = await dist('modules/tweets/tweets.repository.js');
const { upsertUserSettings } = await dist('modules/settings/settings.repository.js');
const { createInvitation } = await dist('modules/invitations/invitations.service.js');

/** Runs `work` on a fresh schema and Redis prefix; stops `nodes`, drops and deletes after. */
async function isolated(tag, work) {
  const schema = await createSchema(DATABASE_URL, `bench_so_${RUN}_${tag}`);
  const prefix = `perch-bench-so-${RUN}-${tag}`;
  const nodes = [];
  const stats = new pg.Client({ connectionString: schema.url });
  await stats.connect();
  try {
    return await work({ schema, prefix, nodes, stats });
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
    await stats.end().catch(() => undefined);
    await schema.drop();
    await deleteRedisKeys(REDIS_URL, prefix);
  }
}

/**
 * The env of a Perch process of the scenario; its database sessions are named `prefix`, and
 * `pgOptions` (e.g. '-c synchronous_commit=off') is added to their settings.
 */
function clusterEnv(schema, prefix, role, pgOptions = '') {
  const url = new URL(schema.url);
  if (pgOptions) url.searchParams.set('options', `${url.searchParams.get('options')} ${pgOptions}`);
  url.searchParams.set('application_name', prefix);
  return { PERCH_ROLE: role, DATABASE_URL: url.toString(), REDIS_URL, REDIS_PREFIX: prefix };
}

/** What the database sessions of `prefix` are doing now: counts by state and wait. */
async function sessionStates(stats, prefix) {
  const { rows } = await stats.query(
    `select state, wait_event_type, wait_event, count(*)::int as count
       from pg_stat_activity where application_name = $1
      group by 1, 2, 3`,
    [prefix],
  );
  return rows.map((row) => ({
    key:
      row.state === 'active'
        ? row.wait_event_type
          ? `active, waiting on ${row.wait_event_type}:${row.wait_event}`
          : 'active, on CPU or in the run queue'
        : row.state,
    count: row.count,
  }));
}

/** Mean of each key over samples of `sessionStates` (a key missing in a sample counts 0). */
function meanStates(samples) {
  const sums = new Map();
  for (const sample of samples) {
    for (const { key, count } of sample) sums.set(key, (sums.get(key) ?? 0) + count);
  }
  return Object.fromEntries(
    [...sums]
      .sort((a, b) => b[1] - a[1])
      .map(([key, sum]) => [key, round(sum / Math.max(1, samples.length), 2)]),
  );
}

/** The worker's own numbers from its /metrics: backfill job time and event-loop delay. */
async function scrape(origin) {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const sum = (pattern) => {
    let total = 0;
    for (const match of text.matchAll(pattern)) total += Number(match[1]);
    return total;
  };
  return {
    backfillSeconds: sum(/^perch_job_duration_seconds_sum\{[^}]*kind="backfill"[^}]*\} (\S+)$/gm),
    backfillJobs: sum(/^perch_job_duration_seconds_count\{[^}]*kind="backfill"[^}]*\} (\S+)$/gm),
    lagMeanMs: sum(/^nodejs_eventloop_lag_mean_seconds(?:\{[^}]*\})? (\S+)$/gm) * 1000,
    lagP99Ms: sum(/^nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? (\S+)$/gm) * 1000,
    lagMaxMs: sum(/^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/gm) * 1000,
  };
}

async function startWorkers(count, nodes, env) {
  const started = await Promise.all(
    Array.from({ length: count }, (_, i) => startNode(`worker-${i + 1}`, env)),
  );
  nodes.push(...started);
  // Each worker ran its first scheduler tick at start; let a second go by so all have.
  await sleep(1_500);
  return started;
}

// ---------------------------------------------------------------------------------------------
// 1. Collection

/** `count` posts over the last six days, newest first, with ids unique over the accounts. */
const posts = (seed, count) =>
  recentWirePosts(seed, count, {
    idsPerAccount: 100_000n,
    textSuffix: ': something worth reading #bench',
  });

/**
 * A collection run, from its label: `<workers>[x<slots>][@<X latency ms>][:nosync]`, e.g. '2'
 * (2 workers, default slots and latency), '1x8' (1 worker with COLLECTOR_CONCURRENCY=8), '2@300'
 * (X answers after 300 ms; the handles are cut in proportion so the run takes about as long)
 * or '2:nosync' (the workers' sessions commit with synchronous_commit=off).
 */
function parseRun(label) {
  const match = /^(\d+)(?:x(\d+))?(?:@(\d+))?(:nosync)?$/.exec(label);
  if (!match) throw new Error(`bad collection run '${label}'`);
  const latencyMs = match[3] ? Number(match[3]) : X_LATENCY_MS;
  return {
    label,
    workers: Number(match[1]),
    slots: match[2] ? Number(match[2]) : DEFAULT_SLOTS,
    latencyMs,
    handles: Math.max(
      FOLLOWS_PER_USER,
      Math.round((HANDLES * Math.min(1, X_LATENCY_MS / latencyMs)) / FOLLOWS_PER_USER) *
        FOLLOWS_PER_USER,
    ),
    syncCommit: !match[4],
    /** The run it is compared with: 1 worker with the default slots, at the same latency. */
    base: `1${match[3] ? `@${match[3]}` : ''}`,
  };
}

async function collect(run) {
  const { workers: workerCount, slots, latencyMs, handles: HANDLES } = run;
  const tag = `c${run.label.replace(/[^0-9a-z]/g, '_')}`;
  return isolated(tag, async ({ schema, prefix, nodes, stats }) => {
    const x = await startFakeXServer();
    try {
      for (let i = 0; i < HANDLES; i++) {
        const account = x.addUser({ username: `so_acct_${i}`, followersCount: 100 + i });
        x.addTweets(account.id, posts(i, POSTS));
      }
      x.stallNext('users/tweets', { times: 1e9, ms: latencyMs });
      x.stallNext('users/by/username', { times: 1e9, ms: latencyMs });

      const { db } = schema.db;
      const now = new Date().toISOString();
      const users = [];
      for (let u = 0; u < Math.ceil(HANDLES / FOLLOWS_PER_USER); u++) {
        users.push(
          await insertUser(db, {
            username: `so_user${u}`,
            email: `so_user${u}@example.com`,
            passwordHash: 'not-used',
            isAdmin: false,
            isSuperAdmin: false,
            createdAt: now,
          }),
        );
      }
      for (let i = 0; i < HANDLES; i++) {
        const handle = await insertHandle(db, {
          username: `so_acct_${i}`,
          backfillDays: BACKFILL_DAYS,
          now,
        });
        await insertLink(db, {
          userId: users[Math.floor(i / FOLLOWS_PER_USER)].id,
          handleId: handle.id,
          backfillDays: BACKFILL_DAYS,
          now,
        });
      }
      await db.updateTable('handles').set({ paused: true }).execute();

      const workers = await startWorkers(workerCount, nodes, {
        ...clusterEnv(schema, prefix, 'worker', run.syncCommit ? '' : '-c synchronous_commit=off'),
        TWEET_SOURCE: 'x-api',
        X_BEARER_TOKEN: x.bearerToken,
        X_API_BASE_URL: x.baseUrl,
        ...(slots === DEFAULT_SLOTS ? {} : { COLLECTOR_CONCURRENCY: String(slots) }),
      });
      const redis = new Redis(REDIS_URL);
      const meter = cpuMeter(Object.fromEntries(workers.map((w) => [w.name, w.pid])));
      const samples = [];
      const states = [];
      const runnable = [];
      // Reads (and so resets) the event-loop delay each worker measured before the window.
      const scrapedBefore = await Promise.all(workers.map((w) => scrape(w.origin)));
      meter.start();
      const t0 = Date.now();
      await db.updateTable('handles').set({ paused: false }).execute();
      let timedOut = false;
      for (;;) {
        await sleep(200);
        runnable.push(runnableTasks());
        const [{ rows }, queue, sessions] = await Promise.all([
          stats.query(
            `select count(*) filter (where backfill_status = 'completed')::int as completed,
                    count(*) filter (where backfill_status = 'failed')::int as failed,
                    coalesce(sum(total_tweets_collected), 0)::int as tweets
               from handles`,
          ),
          redis
            .pipeline()
            .llen(`${prefix}:collector:wait`)
            .llen(`${prefix}:collector:active`)
            .exec(),
          sessionStates(stats, prefix),
        ]);
        states.push(sessions);
        const row = rows[0];
        samples.push({
          t: Date.now() - t0,
          completed: row.completed,
          tweets: row.tweets,
          waiting: queue[0][1],
          active: queue[1][1],
        });
        if (row.completed + row.failed >= HANDLES) break;
        if (Date.now() - t0 > TIMEOUT_MS) {
          timedOut = true;
          break;
        }
      }
      const cpu = meter.stop();
      const scrapedAfter = await Promise.all(workers.map((w) => scrape(w.origin)));
      await redis.quit();
      const backfillSeconds = scrapedAfter.reduce(
        (sum, after, i) => sum + after.backfillSeconds - scrapedBefore[i].backfillSeconds,
        0,
      );
      const backfillJobs = scrapedAfter.reduce(
        (sum, after, i) => sum + after.backfillJobs - scrapedBefore[i].backfillJobs,
        0,
      );

      const totals = (
        await stats.query(
          `select (select count(*)::int from tweets) as tweets,
                  (select count(distinct (handle_id, tweet_id))::int from tweets) as distinct_tweets,
                  (select min(first_seen_at) from tweets) as first_stored,
                  (select max(backfill_completed_at) from handles) as last_completed,
                  (select min(backfill_completed_at) from handles) as first_completed,
                  (select count(*)::int from handles where backfill_status = 'failed') as failed`,
        )
      ).rows[0];
      const endAt = timedOut ? t0 + samples.at(-1).t : Date.parse(totals.last_completed);
      const wallMs = endAt - t0;
      const inWindow = samples.filter((s) => s.t <= wallMs);
      const timeline = x.requests.filter((r) => r.endpoint === 'users/tweets').length;
      const lookups = x.requests.filter((r) => r.endpoint === 'users/by/username').length;
      const otherX = x.requests.filter(
        (r) => r.endpoint !== 'users/tweets' && r.endpoint !== 'users/by/username',
      ).length;
      const stalledRequests = timeline + lookups;
      const activeMean = mean(inWindow.map((s) => s.active));
      const at = (share) => inWindow.find((s) => s.tweets >= share * totals.tweets)?.t ?? null;
      const t10 = at(0.1);
      const t90 = at(0.9);
      // Between two samples that both saw jobs waiting in the queue, no slot lacked work: the
      // rate then is what the slots, X's latency and the machine allow. The other intervals are
      // those in which the scheduler's pacing decided how many jobs ran.
      const withEnd = [...inWindow, { t: wallMs, tweets: totals.tweets, active: 0, waiting: 0 }];
      const intervals = withEnd.slice(1).map((b, i) => ({ a: withEnd[i], b }));
      const phase = (list) => {
        const seconds = list.reduce((sum, { a, b }) => sum + (b.t - a.t), 0) / 1000;
        if (seconds <= 0) return null;
        return {
          seconds: round(seconds, 1),
          tweetsPerSecond: round(
            list.reduce((sum, { a, b }) => sum + (b.tweets - a.tweets), 0) / seconds,
            0,
          ),
          runningMean: round(
            list.reduce((sum, { a, b }) => sum + ((a.active + b.active) / 2) * (b.t - a.t), 0) /
              (seconds * 1000),
            2,
          ),
        };
      };
      const saturated = ({ a, b }) => a.waiting > 0 && b.waiting > 0;
      return {
        label: run.label,
        base: run.base,
        workers: workerCount,
        slotsPerWorker: slots,
        jobSlots: workerCount * slots,
        synchronousCommit: run.syncCommit,
        handles: HANDLES,
        postsPerHandle: POSTS,
        xLatencyMs: latencyMs,
        queuedPhase: phase(intervals.filter(saturated)),
        pacedPhase: phase(intervals.filter((pair) => !saturated(pair))),
        timedOut,
        tweets: totals.tweets,
        expectedTweets: HANDLES * POSTS,
        duplicates: totals.tweets - totals.distinct_tweets,
        failedHandles: totals.failed,
        wallS: round(wallMs / 1000, 2),
        tweetsPerSecond: round(totals.tweets / (wallMs / 1000), 0),
        steadyTweetsPerSecond:
          t10 !== null && t90 !== null && t90 > t10
            ? round((0.8 * totals.tweets) / ((t90 - t10) / 1000), 0)
            : null,
        firstStoredAfterMs: totals.first_stored ? Date.parse(totals.first_stored) - t0 : null,
        firstCompletedAfterMs: totals.first_completed
          ? Date.parse(totals.first_completed) - t0
          : null,
        jobs: {
          runningMean: round(activeMean, 2),
          queuedMean: round(mean(inWindow.map((s) => s.waiting)), 2),
          inQueueMax: Math.max(...inWindow.map((s) => s.active + s.waiting)),
          runningMax: Math.max(...inWindow.map((s) => s.active)),
          idleSlotShare: round(1 - activeMean / (workerCount * slots), 3),
        },
        x: {
          timelineRequests: timeline,
          userLookups: lookups,
          otherRequests: otherX,
          rateLimited: x.requests.filter((r) => r.status === 429).length,
          // Little's law: requests waiting on the fake's latency at any moment, on average.
          inFlightMean: round((stalledRequests * latencyMs) / wallMs, 2),
          // A busy job slot's time per X request: the latency plus everything else the job does.
          msPerRequestPerBusySlot: round((activeMean * wallMs) / stalledRequests, 1),
        },
        // If only X's latency bound it: every slot always waiting on a page of 100.
        latencyBoundTweetsPerSecond: round(
          (workerCount * slots * (totals.tweets / stalledRequests) * 1000) / latencyMs,
          0,
        ),
        cpu,
        // Minus the sampler itself, which is running when it reads.
        runnableTasksMean: round(mean(runnable.filter((n) => n !== null)) - 1, 2),
        databaseSessions: meanStates(states),
        backfillJobMeanMs: backfillJobs ? round((backfillSeconds * 1000) / backfillJobs, 0) : null,
        eventLoop: scrapedAfter.map((w) => ({
          meanMs: round(w.lagMeanMs, 1),
          p99Ms: round(w.lagP99Ms, 1),
          maxMs: round(w.lagMaxMs, 1),
        })),
        samples: inWindow
          .filter((_, i) => i % 5 === 0)
          .map((s) => [s.t, s.tweets, s.active, s.waiting]),
      };
    } finally {
      await x.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// 2. Notification drain

const chatIdOf = (i) => String(300_000 + i);
const discordIdOf = (i) => String(82198898841031000n + BigInt(i));

const sourceTweet = postMaker(
  1_930_000_000_000_000_000n,
  (id) => `Scale-out drain ${id}: a post to deliver`,
);

async function drain(workerCount) {
  return isolated(`d${workerCount}`, async ({ schema, prefix, nodes, stats }) => {
    const telegram = await startFakeTelegramServer();
    const discord = await startFakeDiscordServer();
    try {
      const { db } = schema.db;
      const { handleIds } = await seedSubscribedHandles(
        db,
        { insertUser, upsertUserSettings, insertHandle, insertLink, setHandleNotifications },
        {
          users: NOTIFY_USERS,
          handles: NOTIFY_HANDLES,
          userName: (i) => `so_drain${i}`,
          chatIdOf,
          discordIdOf,
          handleName: (h) => `so_author${h}`,
          // Backfilled, profile fresh, next poll far away: the workers' collectors leave it be.
          handleFields: (h, now) => ({
            display_name: `Author ${h}`,
            x_user_id: `5151${h}`,
            backfill_status: 'completed',
            backfill_progress: 100,
            initial_backfill_complete: true,
            profile_checked_at: now,
            next_poll_at: '2999-01-01T00:00:00.000Z',
          }),
        },
      );

      const workers = await startWorkers(workerCount, nodes, {
        ...clusterEnv(schema, prefix, 'worker'),
        TWEET_SOURCE: 'demo',
        X_BEARER_TOKEN: '',
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_API_BASE_URL: telegram.baseUrl,
        DISCORD_BOT_TOKEN: discord.token,
        DISCORD_API_BASE_URL: discord.baseUrl,
      });
      const meter = cpuMeter(Object.fromEntries(workers.map((w) => [w.name, w.pid])));
      const perChannel = NOTIFY_USERS * NOTIFY_HANDLES * NOTIFY_TWEETS;
      meter.start();
      const t0 = Date.now();
      for (const handleId of handleIds) {
        const batch = Array.from({ length: NOTIFY_TWEETS }, (_, i) =>
          sourceTweet(new Date(t0 - (NOTIFY_TWEETS - i) * 1000).toISOString()),
        );
        await upsertTweets(db, handleId, batch, new Date().toISOString(), {
          markForFanout: true,
        });
      }
      const storedMs = Date.now() - t0;
      let timedOut = false;
      let outbox = [];
      for (;;) {
        await sleep(250);
        outbox = (
          await stats.query(
            `select channel, status, count(*)::int as count from notification_outbox
              group by channel, status order by channel, status`,
          )
        ).rows;
        const sent = outbox.filter((r) => r.status === 'sent').reduce((s, r) => s + r.count, 0);
        if (sent >= 2 * perChannel) break;
        if (Date.now() - t0 > TIMEOUT_MS) {
          timedOut = true;
          break;
        }
      }
      const cpu = meter.stop();
      const times = (
        await stats.query(
          `select channel, min(sent_at) as first, max(sent_at) as last from notification_outbox
            where status = 'sent' group by channel`,
        )
      ).rows;
      const lastOf = (channel) => {
        const row = times.find((r) => r.channel === channel);
        return row?.last ? Date.parse(row.last) - t0 : null;
      };
      const sentOf = (channel) =>
        outbox.find((r) => r.channel === channel && r.status === 'sent')?.count ?? 0;
      const tgRequests = telegram.requests.filter((r) => r.method === 'sendMessage');
      const dmOpens = discord.requests.filter(isDmOpen);
      const dcSends = discord.requests.filter((r) => !isDmOpen(r));
      const endMs = Math.max(lastOf('telegram') ?? 0, lastOf('discord') ?? 0);
      // What the fakes' limits allow at best, counted from the store: Telegram 30 a second
      // overall and 1 a second per chat; Discord 10 DM openings per 10 s, then 5 messages per
      // 5 s per DM channel.
      const perTarget = NOTIFY_HANDLES * NOTIFY_TWEETS;
      const telegramBoundS = Math.max(perTarget - 1, perChannel / 30);
      const discordBoundS =
        Math.floor((NOTIFY_USERS - 1) / 10) * 10 + (Math.ceil(perTarget / 5) - 1) * 5;
      /** How a channel drained: sent, delivered, when done, its bound and its pace. */
      const drainOf = (channel, messages, boundS) => ({
        sent: sentOf(channel),
        delivered: messages.length,
        doneS: round(lastOf(channel) / 1000, 2),
        boundS: round(boundS, 1),
        messagesPerSecond: lastOf(channel)
          ? round(sentOf(channel) / (lastOf(channel) / 1000), 1)
          : null,
      });
      return {
        workers: workerCount,
        users: NOTIFY_USERS,
        handles: NOTIFY_HANDLES,
        tweetsPerHandle: NOTIFY_TWEETS,
        deliveriesPerChannel: perChannel,
        storeMs: storedMs,
        timedOut,
        drainS: round((timedOut ? Date.now() - t0 : endMs) / 1000, 2),
        boundS: round(Math.max(telegramBoundS, discordBoundS), 1),
        outbox,
        telegram: {
          ...drainOf('telegram', telegram.messages, telegramBoundS),
          busiest1s: busiestWindow(telegram.messages, 1000),
          requests: tgRequests.length,
          rateLimited: telegram.requests.filter((r) => r.status === 429).length,
          // A 429 right after a message to the same chat went through: the per-chat limit.
          rateLimitedPerChat: telegram.requests.filter(
            (r) =>
              r.status === 429 &&
              telegram.messages.some(
                (m) => m.chatId === r.chatId && m.at <= r.at && r.at - m.at < 1_000,
              ),
          ).length,
          duplicates: deliveryPairs(telegram.messages, (m) => m.chatId, telegramTweetId).duplicates,
        },
        discord: {
          ...drainOf('discord', discord.messages, discordBoundS),
          busiest1s: busiestWindow(
            discord.requests.filter((r) => r.status === 200),
            1000,
          ),
          dmOpenRequests: dmOpens.length,
          dmOpensRateLimited: dmOpens.filter((r) => r.status === 429).length,
          sendRequests: dcSends.length,
          rateLimited: discord.requests.filter((r) => r.status === 429).length,
          duplicates: deliveryPairs(discord.messages, (m) => m.userId, discordTweetId).duplicates,
        },
        cpu,
      };
    } finally {
      await telegram.close();
      await discord.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// 3. API

function startLoadgen() {
  const child = fork(path.join(HERE, 'loadgen.mjs'), [], { execArgv: [], stdio: 'inherit' });
  return {
    pid: child.pid,
    run(task) {
      return new Promise((resolve, reject) => {
        const exited = (code) => reject(new Error(`load generator exited with ${code}`));
        child.once('exit', exited);
        child.once('message', (message) => {
          child.off('exit', exited);
          resolve(message);
        });
        child.send(task);
      });
    },
    close: () => child.disconnect(),
  };
}

async function api() {
  return isolated('api', async ({ schema, prefix, nodes }) => {
    const env = { ...clusterEnv(schema, prefix, 'api'), TWEET_SOURCE: 'demo', X_BEARER_TOKEN: '' };
    const started = await Promise.all([startNode('api-1', env), startNode('api-2', env)]);
    nodes.push(...started);
    const [api1, api2] = started;
    const { db } = schema.db;
    const { code } = await createInvitation(schema.db, {
      role: 'user',
      maxUses: 1,
      expiresInDays: null,
      createdBy: null,
    });
    const cookie = await registerThroughApi(api1.origin, {
      username: 'so_api',
      password: 'Bench-passw0rd!',
      code,
    });
    const user = await db
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'so_api')
      .executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    for (let h = 0; h < 10; h++) {
      const handle = await insertHandle(db, { username: `so_api_h${h}`, backfillDays: 7, now });
      await db
        .updateTable('handles')
        .set({
          backfill_status: 'completed',
          backfill_progress: 100,
          initial_backfill_complete: true,
          x_user_id: `6161${h}`,
          profile_checked_at: now,
          next_poll_at: '2999-01-01T00:00:00.000Z',
        })
        .where('id', '=', handle.id)
        .execute();
      await insertLink(db, { userId: user.id, handleId: handle.id, backfillDays: 7, now });
    }
    const loadgens = [startLoadgen(), startLoadgen()];
    const per = Math.max(1, Math.floor(API_CONNECTIONS / 2));
    const routes = ['/api/v1/auth/check', '/api/v1/handles'];
    const setups = { 1: [api1, api1], 2: [api1, api2] };
    const runOnce = async (route, nodeCount, seconds) => {
      const targets = setups[nodeCount];
      const meter = cpuMeter({
        'api-1': api1.pid,
        'api-2': api2.pid,
        'loadgen-1': loadgens[0].pid,
        'loadgen-2': loadgens[1].pid,
      });
      meter.start();
      const results = await Promise.all(
        loadgens.map((loadgen, i) =>
          loadgen.run({ url: targets[i].origin + route, cookie, connections: per, seconds }),
        ),
      );
      const cpu = meter.stop();
      for (const result of results) {
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`${route}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      }
      return {
        rps: results.reduce((sum, r) => sum + r.rps, 0),
        p50: Math.max(...results.map((r) => r.p50)),
        p99: Math.max(...results.map((r) => r.p99)),
        cpu,
      };
    };
    try {
      // Warm up both nodes (JIT, connections, the session cache).
      for (const route of routes) await runOnce(route, 2, 2);
      const samples = {};
      for (let round_ = 0; round_ < API_ROUNDS; round_++) {
        for (const route of routes) {
          const order = round_ % 2 === 0 ? [1, 2] : [2, 1];
          for (const nodeCount of order) {
            const key = `${route} ${nodeCount}`;
            (samples[key] ??= []).push(await runOnce(route, nodeCount, API_SECONDS));
          }
        }
      }
      const rows = [];
      for (const route of routes) {
        for (const nodeCount of [1, 2]) {
          const list = samples[`${route} ${nodeCount}`];
          const mid = [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)];
          rows.push({
            route,
            nodes: nodeCount,
            rps: Math.round(mid.rps),
            allRps: list.map((s) => Math.round(s.rps)),
            p50: mid.p50,
            p99: mid.p99,
            cpu: mid.cpu,
          });
        }
      }
      for (const row of rows) {
        const one = rows.find((r) => r.route === row.route && r.nodes === 1);
        row.vsOneNode = ratio(row.rps, one.rps);
      }
      return { connections: per * 2, seconds: API_SECONDS, rounds: API_ROUNDS, rows };
    } finally {
      for (const loadgen of loadgens) loadgen.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------

/** The commit the server was built from, and whether its sources had changes beyond it. */
function sourceVersion() {
  try {
    const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const changed = git('status', '--porcelain', '--', 'apps/server/src', 'packages/shared/src');
    return `${git('rev-parse', '--short', 'HEAD')}${changed ? ' with uncommitted server changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

const startedAt = Date.now();
const result = {
  commit: process.env.BENCH_SERVER_DIST ? 'another build (BENCH_SERVER_DIST)' : sourceVersion(),
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
  server: path.relative(ROOT, DIST) || DIST,
  loadAverage: { start: round(os.loadavg()[0], 2) },
};
if (SCENARIOS.includes('collect')) {
  result.collection = [];
  for (const label of [...WORKERS.map(String), ...DIAGNOSE]) {
    result.collection.push(await collect(parseRun(label)));
  }
  for (const row of result.collection) {
    const base = result.collection.find((r) => r.label === row.base);
    row.vsBase = ratio(row.tweetsPerSecond, base?.tweetsPerSecond);
    row.queuedPhaseVsBase = ratio(
      row.queuedPhase?.tweetsPerSecond,
      base?.queuedPhase?.tweetsPerSecond,
    );
  }
}
if (SCENARIOS.includes('drain')) {
  result.drain = [];
  for (const count of WORKERS) result.drain.push(await drain(count));
}
if (SCENARIOS.includes('api')) result.api = await api();
result.loadAverage.end = round(os.loadavg()[0], 2);
result.runS = round((Date.now() - startedAt) / 1000, 0);

const cores = (value) => (value === null || value === undefined ? 'n/a' : value.toFixed(2));
const runName = (r) =>
  `${r.workers} w x ${r.slotsPerWorker}${r.xLatencyMs === X_LATENCY_MS ? '' : `, X ${r.xLatencyMs} ms, ${r.handles} handles`}${r.synchronousCommit ? '' : ', sync commit off'}`;
const lines = [];
lines.push(
  `Server: ${result.server} built at ${result.commit}. Machine: ${result.machine}; load average ${result.loadAverage.start} at the start, ${result.loadAverage.end} at the end; ${result.runS} s in all.`,
);
if (result.collection) {
  const c = result.collection;
  const two = c.find((r) => r.label === '2');
  lines.push(`
### Collection: ${HANDLES} handles x ${POSTS} posts (7-day backfill), X answers after ${X_LATENCY_MS} ms, default COLLECTOR_CONCURRENCY (${DEFAULT_SLOTS} jobs per worker)

Rows after the first ${WORKERS.length} are diagnostic runs (\`w x n\`: workers x job slots each). "vs" compares with 1 worker x ${DEFAULT_SLOTS} at the same X latency. "Queue never empty": the intervals between two samples (200 ms apart) that both saw jobs waiting in the queue, so no slot lacked work; "rest": the other intervals, when the scheduler's pacing decided how many jobs ran.

| run | tweets stored | wall s | tweets/s | vs | queue never empty: tweets/s (vs), jobs running, seconds | rest: tweets/s, jobs running, seconds | queue max (running + queued) | X requests in flight (mean) | ms per X request per busy slot |
|---|---|---|---|---|---|---|---|---|---|
${c
  .map((r) => {
    const q = r.queuedPhase;
    const a = r.pacedPhase;
    return `| ${runName(r)} | ${fmt(r.tweets)}${r.tweets === r.expectedTweets ? '' : ` of ${fmt(r.expectedTweets)}`}${r.timedOut ? ' (timed out)' : ''} | ${r.wallS} | ${fmt(r.tweetsPerSecond)} | ${r.vsBase ?? 'n/a'}x | ${q ? `${fmt(q.tweetsPerSecond)} (${r.queuedPhaseVsBase ?? 'n/a'}x), ${q.runningMean}, ${q.seconds}` : 'n/a'} | ${a ? `${fmt(a.tweetsPerSecond)}, ${a.runningMean}, ${a.seconds}` : 'n/a'} | ${r.jobs.inQueueMax} | ${r.x.inFlightMean} | ${r.x.msPerRequestPerBusySlot} |`;
  })
  .join('\n')}

CPU over the same windows (cores: CPU seconds per second of wall time; the machine has ${os.cpus().length}). Run queue: seconds per second that threads were ready to run and waited for a core.

| run | Perch workers, each | Perch workers | PostgreSQL | Redis | bench process (fakes) | machine busy | other processes | run queue: workers (main threads) / PostgreSQL | runnable tasks (mean) |
|---|---|---|---|---|---|---|---|---|---|
${c
  .map((r) => {
    const known =
      r.cpu.perchProcesses + (r.cpu.postgres ?? 0) + (r.cpu.redis ?? 0) + (r.cpu.benchProcess ?? 0);
    return `| ${runName(r)} | ${Object.values(r.cpu.processes).map(cores).join(' / ')} | ${cores(r.cpu.perchProcesses)} | ${cores(r.cpu.postgres)} | ${cores(r.cpu.redis)} | ${cores(r.cpu.benchProcess)} | ${cores(r.cpu.machine?.cores)} (${r.cpu.machine ? (r.cpu.machine.busyShare * 100).toFixed(0) : 'n/a'}%) | ${r.cpu.machine ? cores(Math.max(0, r.cpu.machine.cores - known)) : 'n/a'} | ${cores(r.cpu.runQueue.perchProcesses)} (${cores(r.cpu.runQueue.perchMainThreads)}) / ${cores(r.cpu.runQueue.postgres)} | ${r.runnableTasksMean} |`;
  })
  .join('\n')}

Inside the workers and the database:

| run | backfill job mean ms | DB sessions of the workers (mean): active on CPU or in the run queue / waiting on Lock / LWLock / IO / idle in transaction / idle | event-loop delay p99 ms (each worker) |
|---|---|---|---|
${c
  .map((r) => {
    const sessions = (match) =>
      round(
        Object.entries(r.databaseSessions)
          .filter(([key]) => match(key))
          .reduce((sum, [, value]) => sum + value, 0),
        2,
      );
    return `| ${runName(r)} | ${fmt(r.backfillJobMeanMs)} | ${sessions((k) => k.startsWith('active, on CPU'))} / ${sessions((k) => k.includes('on Lock:'))} / ${sessions((k) => k.includes('on LWLock:'))} / ${sessions((k) => k.includes('on IO:'))} / ${sessions((k) => k.startsWith('idle in transaction'))} / ${sessions((k) => k === 'idle')} | ${r.eventLoop.map((e) => e.p99Ms).join(' / ')} |`;
  })
  .join('\n')}

Each run stored every post once (${c.every((r) => r.duplicates === 0 && r.failedHandles === 0 && r.tweets === r.expectedTweets) ? 'no duplicate, none missing, no failed handle' : 'NOT SO: see the JSON line'}), with ${c.map((r) => `${r.x.timelineRequests} + ${r.x.userLookups}`).join(', ')} timeline pages + user lookups, ${c.reduce((sum, r) => sum + r.x.rateLimited, 0)} 429s from the fake X and ${c.reduce((sum, r) => sum + r.x.otherRequests, 0)} other X requests. The first page was stored ${c.map((r) => r.firstStoredAfterMs).join(', ')} ms after the unpause (the scheduler ticks once a second).
${two ? `\n**2 workers / 1 worker = ${two.vsBase}x (target >= ${TARGET_2W}x): ${two.vsBase >= TARGET_2W ? 'met' : 'not met'}**` : ''}`);
}
if (result.drain) {
  const d = result.drain;
  lines.push(`
### Notification drain: ${NOTIFY_USERS} users x ${NOTIFY_HANDLES} handles x ${NOTIFY_TWEETS} new tweets = ${d[0].deliveriesPerChannel} deliveries per channel (fakes' default limits, per bot token)

Lower bound: what the fakes' limits allow from the store on (Telegram 1 message a second per chat and 30 overall; Discord 10 DM openings per 10 s, then 5 messages per 5 s per DM channel).

| workers | drained in s (lower bound) | Telegram done s (bound) | Telegram msg/s | Telegram 429s (within 1 s of a message to the same chat) | Discord done s (bound) | Discord msg/s | Discord 429s (on DM opening) | DM opening requests | duplicates TG / DC | sent = delivered | CPU cores: workers / PostgreSQL / machine |
|---|---|---|---|---|---|---|---|---|---|---|---|
${d
  .map(
    (r) =>
      `| ${r.workers} | ${r.drainS}${r.timedOut ? ' (timed out)' : ''} (${r.boundS}) | ${r.telegram.doneS} (${r.telegram.boundS}) | ${r.telegram.messagesPerSecond} | ${r.telegram.rateLimited} (${r.telegram.rateLimitedPerChat}) | ${r.discord.doneS} (${r.discord.boundS}) | ${r.discord.messagesPerSecond} | ${r.discord.rateLimited} (${r.discord.dmOpensRateLimited}) | ${r.discord.dmOpenRequests} | ${r.telegram.duplicates} / ${r.discord.duplicates} | ${r.telegram.sent === r.telegram.delivered && r.discord.sent === r.discord.delivered ? 'yes' : `no: ${r.telegram.sent}/${r.telegram.delivered}, ${r.discord.sent}/${r.discord.delivered}`} | ${cores(r.cpu.perchProcesses)} / ${cores(r.cpu.postgres)} / ${cores(r.cpu.machine?.cores)} |`,
  )
  .join('\n')}

Busiest second at the fakes: ${d.map((r) => `${r.workers} w: Telegram ${r.telegram.busiest1s} messages, Discord ${r.discord.busiest1s} requests`).join('; ')} (limits 30 and 50).`);
}
if (result.api) {
  const a = result.api;
  lines.push(`
### API: ${a.connections} connections in all from 2 autocannon processes, ${a.seconds} s per run, median of ${a.rounds} rounds

| route (signed in) | API nodes | req/s | vs 1 node | p50 ms | p99 ms | each round req/s | CPU cores: API nodes / load generators / PostgreSQL / Redis / machine |
|---|---|---|---|---|---|---|---|
${a.rows
  .map((r) => {
    const p = r.cpu.processes;
    return `| \`GET ${r.route}\` | ${r.nodes} | ${fmt(r.rps)} | ${r.vsOneNode}x | ${r.p50} | ${r.p99} | ${r.allRps.join(', ')} | ${cores(p['api-1'] + p['api-2'])} / ${cores(p['loadgen-1'] + p['loadgen-2'])} / ${cores(r.cpu.postgres)} / ${cores(r.cpu.redis)} / ${cores(r.cpu.machine?.cores)} |`;
  })
  .join('\n')}`);
}
console.log(lines.join('\n'));
console.log(JSON.stringify(result));
