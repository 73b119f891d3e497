// The evaluation side of the alerts benchmark, in a child process of its own (fresh heap, fresh
// database): `node bench/alerts/evaluation.mjs <sqlite|postgres>`, forked by run.mjs, which gets
// the result over IPC.
//
// World: HANDLES handles, each followed by one user with Telegram connected and one webhook
// endpoint, and 5 enabled rules of that handle, one of each kind (RULES below); UNWATCHED more
// handles alike but without rules; HISTORY posts per handle over the last 30 days (stored as a
// backfill stores them: no marks), and 2 days of profile snapshots every 15 minutes
// (PROFILE_REFRESH_MINUTES' default).
//
// 1. Pages: 3 x PAGES pages of 100 new posts, each of another handle, stored as monitoring
//    stores them (collector/poll.ts: `upsertPage(..., { markForFanout: true, alertClaim })`,
//    which marks the posts of a handle with rules under the page's claim), then evaluated at
//    once by the storing process (`PageAlerts.evaluate`); then the delivery worker's alert pass
//    runs (`evaluatePendingPosts` until a batch comes back short), timed apart since it runs
//    once per wake-up, not per page. A build from before pages were evaluated at store
//    (BENCH_SERVER_DIST) is measured as it worked: stored, then evaluated by the pass. Each
//    page's store and evaluation are timed separately; WARMUP pages before them are not counted. In turn: a firing page
//    (8 of the 100 posts fire 10 rules, FIRING_SHARE below, each firing queueing a Telegram and
//    a webhook delivery), a quiet page (nothing fires), and a quiet page of an unwatched handle
//    (no marks, nothing to evaluate): what ingest costs without alerts. So "added" is store +
//    evaluation of a watched handle's page against the store of an unwatched one, and firing
//    against quiet splits it into what every page pays and what each firing adds.
// 2. The handle sweep: `evaluateHandleRules` over all 5 x HANDLES rules, twice (the first stores
//    every handle rule's memory for the first time, the second is the steady state).
// 3. Statements: more pages, firing and quiet, with every statement counted and timed
//    (instruments.mjs).
// 4. Profiles: the evaluation of more pages alone, and a third sweep (whose statements are
//    counted too), under the CPU profiler.
import { alertKindSchema } from '@perch/shared';
import { sql } from 'kysely';
import { cpuProfile, saveProfile, statementTimer, summarizeProfile } from './instruments.mjs';
import {
  DAY_MS,
  HOUR_MS,
  MINUTE_MS,
  dist,
  insertRows,
  openBenchDatabase,
  seedEndpoints,
  seedUsersAndHandles,
  seededRandom,
} from './world.mjs';
import { postMaker } from '../lib/subscribers.mjs';
import { percentile } from '../lib/stats.mjs';

const { upsertTweets, upsertPage } = await import(`${dist}/modules/tweets/tweets.repository.js`);
const { evaluatePendingPosts, evaluateHandleRules, createPageAlerts } = await import(
  `${dist}/alerts/evaluation.js`
);

const dialect = process.argv[2] ?? 'sqlite';
const HANDLES = Number(process.env.BENCH_HANDLES ?? 1_000);
const PAGES = Number(process.env.BENCH_PAGES ?? 200);
/**
 * Handles with history like the others but no rule: a page stored for one of them is what
 * ingest costs without alerts (no marks, nothing to evaluate), the baseline of "added".
 */
const UNWATCHED = Number(process.env.BENCH_UNWATCHED ?? 50);
const WARMUP = 20;
/** Pages of each kind of the statement count, and pages of the profile. */
const STATEMENT_PAGES = 30;
const PROFILE_PAGES = 60;
const POSTS_PER_PAGE = 100;
/** Posts per handle in the last 30 days before the run (a handle posting 3 times a day). */
const HISTORY = Number(process.env.BENCH_HISTORY ?? 90);
const SNAPSHOT_EVERY_MS = 15 * MINUTE_MS;
const SNAPSHOT_SPAN_MS = 2 * DAY_MS;
/** The last SILENT handles stopped posting 5 days ago (the silence rule fires on them). */
const SILENT = Math.round(HANDLES * 0.03);
/** Every 33rd handle gained 8% followers in the last 12 hours (the follower rule fires). */
const FOLLOWER_JUMP_EVERY = 33;
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

/** Each user's 5 rules on their handle: 3 about posts, 2 about the handle (the sweep's). */
const RULES = [
  {
    name: 'Likes past 500 within 6 h',
    kind: { type: 'metric_threshold', metric: 'likes', threshold: 500, within_hours: 6 },
  },
  {
    name: '3x the month median',
    kind: { type: 'engagement_multiple', multiple: 3, period: 'month' },
  },
  {
    name: 'Launch words',
    kind: { type: 'words', include: ['launch', 'outage', 'acquisition'], exclude: ['rumour'] },
  },
  {
    name: 'Followers 5% in a day',
    kind: { type: 'follower_change', percent: 5, direction: 'either' },
  },
  { name: 'Quiet for 3 days', kind: { type: 'silence', days: 3 } },
];

/**
 * Which posts of a page fire, by their place in the page: 5 of 100 say "launch" (words), 2 pass
 * 500 likes (threshold, and 3x the median engagement too), 1 has 250 reposts (3x the median).
 */
const FIRING_SHARE = {
  words: (j) => j % 20 === 7,
  likes: (j) => j === 33 || j === 71,
  reposts: (j) => j === 50,
};
const FIRINGS_PER_PAGE = 5 + 2 * 2 + 1;

const random = seededRandom(42);
const between = (low, high) => low + Math.floor(random() * (high - low + 1));
const makePost = postMaker(1_950_000_000_000_000_000n, (id) => `Post ${id}`);

/** A post with ordinary numbers (engagement around 60) and ordinary words. */
function ordinaryPost(createdAt, text) {
  return {
    ...makePost(createdAt),
    text,
    likeCount: between(20, 80),
    retweetCount: between(2, 10),
    replyCount: between(1, 5),
    quoteCount: between(0, 2),
    impressionCount: between(2_000, 9_000),
  };
}

/**
 * A page of 100 new posts of the last 50 minutes, newest first as sources list them; a quiet
 * page (`firing` false) has no post that fires.
 */
function newPage(now, firing = true) {
  const posts = [];
  for (let j = 0; j < POSTS_PER_PAGE; j++) {
    const createdAt = new Date(now - (POSTS_PER_PAGE - j) * 30_000).toISOString();
    const text =
      firing && FIRING_SHARE.words(j)
        ? `We launch the new plan today, thread below ${j}`
        : `Notes from the week: shipping, hiring and a long read ${j}`;
    const post = ordinaryPost(createdAt, text);
    if (firing && FIRING_SHARE.likes(j)) post.likeCount = 600;
    if (firing && FIRING_SHARE.reposts(j)) post.retweetCount = 250;
    posts.push(post);
  }
  return posts.reverse();
}

async function seed(db, config) {
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const { userIds, handleIds } = await seedUsersAndHandles(db.db, {
    count: HANDLES + UNWATCHED,
    now: nowIso,
  });
  await seedEndpoints(
    db.db,
    config,
    userIds,
    (i) => `https://hooks.example.com/perch/${i}`,
    nowIso,
  );
  for (const { kind } of RULES) {
    if (!alertKindSchema.safeParse(kind).success) throw new Error(`invalid rule ${kind.type}`);
  }
  const ruleMade = new Date(now - DAY_MS).toISOString();
  await insertRows(
    db.db,
    'alert_rules',
    userIds.slice(0, HANDLES).flatMap((userId, i) =>
      RULES.map(({ name, kind }) => ({
        user_id: userId,
        handle_id: handleIds[i],
        name,
        enabled: true,
        kind: JSON.stringify(kind),
        memory: null,
        created_at: ruleMade,
        updated_at: ruleMade,
      })),
    ),
  );

  // A month of posts per handle, stored as a backfill stores them (no fan-out or alert marker).
  const historyStarted = performance.now();
  for (let i = 0; i < HANDLES + UNWATCHED; i++) {
    const silent = i >= HANDLES - SILENT && i < HANDLES;
    const end = silent ? now - 5 * DAY_MS : now - 2 * HOUR_MS;
    const start = now - 30 * DAY_MS;
    const step = (end - start) / HISTORY;
    const posts = Array.from({ length: HISTORY }, (_, k) =>
      ordinaryPost(new Date(start + k * step).toISOString(), `An older post ${k} of author ${i}`),
    );
    await upsertTweets(db.db, handleIds[i], posts, nowIso);
  }
  const historyMs = performance.now() - historyStarted;

  const snapshots = [];
  for (let i = 0; i < HANDLES; i++) {
    const base = 10_000 + i * 7;
    for (let at = now - SNAPSHOT_SPAN_MS; at <= now; at += SNAPSHOT_EVERY_MS) {
      const jumped = i % FOLLOWER_JUMP_EVERY === 5 && at > now - 12 * HOUR_MS;
      snapshots.push({
        handle_id: handleIds[i],
        taken_at: new Date(at).toISOString(),
        followers: jumped ? Math.round(base * 1.08) : base + Math.round((at % 7) - 3),
        following: 300,
        tweet_count: 5_000 + i,
        like_count: 20_000,
      });
    }
  }
  await insertRows(db.db, 'profile_snapshots', snapshots);
  return { handleIds, historyMs, snapshots: snapshots.length };
}

const DELIVERY = { channels: ['telegram'], webhooks: true };

/**
 * Stores a page as monitoring does (collector/poll.ts): on PostgreSQL under the page's alert
 * claim, its posts then evaluated by the storing process (`evaluateAtStore`); on SQLite, or with
 * a build from before that (BENCH_SERVER_DIST), marked for the delivery worker's pass.
 */
async function storePage(database, alerts, handleId, page) {
  const now = new Date();
  const claim = alerts?.claim(now);
  if (!claim) {
    await upsertTweets(database.db, handleId, page, now.toISOString(), { markForFanout: true });
    return undefined;
  }
  const stored = await upsertPage(database.db, handleId, page, now.toISOString(), {
    markForFanout: true,
    alertClaim: claim,
  });
  return stored.claimed ? { claim, claimed: stored.claimed, now } : undefined;
}

/** The evaluation of a page stored under its claim, by the process that stored it. */
async function evaluateAtStore(alerts, stored) {
  if (!stored) return { evaluated: 0, fired: 0, queued: 0 };
  const fired = await alerts.evaluate(stored.claim, stored.claimed, stored.now);
  return { evaluated: stored.claimed.posts.length, fired: fired.fired, queued: fired.queued };
}

/** The worker's alert pass on posts: batches until one comes back short. */
async function evaluateAll(db, limit) {
  const total = { evaluated: 0, fired: 0, queued: 0, batches: 0 };
  for (;;) {
    const result = await evaluatePendingPosts(db, {
      now: new Date(),
      channels: ['telegram'],
      webhooks: true,
      ...(limit ? { limit } : {}),
    });
    total.evaluated += result.evaluated;
    total.fired += result.fired;
    total.queued += result.queued;
    total.batches += 1;
    // A build from before marks held a page (BENCH_SERVER_DIST): a batch was posts, not marks.
    if (!(result.more ?? result.evaluated === (limit ?? 200))) return total;
  }
}

const round = (value, digits = 2) => (value === null ? null : Number(value.toFixed(digits)));
const stats = (values) => ({
  p50: round(percentile(values, 50)),
  p95: round(percentile(values, 95)),
  mean: round(values.reduce((sum, v) => sum + v, 0) / values.length),
  max: round(Math.max(...values)),
});

const newTally = () => ({
  store: [],
  added: [],
  total: [],
  pass: [],
  evaluated: 0,
  fired: 0,
  queued: 0,
});

/** A tally of pages as reported. */
const pagesReport = (tally) => ({
  count: tally.store.length,
  evaluatedPerPage: round(tally.evaluated / tally.store.length, 2),
  firedPerPage: round(tally.fired / tally.store.length, 2),
  queuedPerPage: round(tally.queued / tally.store.length, 2),
  storeMs: stats(tally.store),
  storeAndEvaluateMs: stats(tally.total),
  addedMs: stats(tally.added),
  passMs: stats(tally.pass),
});

/** The times of `count` alert passes with nothing to evaluate. */
async function emptyPasses(db, count) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const { evaluated } = await evaluateAll(db);
    times.push(performance.now() - t0);
    if (evaluated !== 0) throw new Error(`an empty pass found ${evaluated} posts`);
  }
  return times;
}

/**
 * The handles pages go to, in turn: every watched handle but the silent ones, and (with
 * `unwatched`) the handles without rules.
 */
function pageHandles(handleIds) {
  const usable = handleIds.slice(0, HANDLES - SILENT);
  const unwatched = handleIds.slice(HANDLES);
  let next = 0;
  let nextUnwatched = 0;
  return (kind = 'watched') =>
    kind === 'unwatched'
      ? unwatched[nextUnwatched++ % unwatched.length]
      : usable[next++ % usable.length];
}

async function main() {
  const bench = await openBenchDatabase(dialect);
  const { db, config } = bench;
  try {
    const setupStarted = performance.now();
    const { handleIds, historyMs, snapshots } = await seed(db, config);
    const setupMs = performance.now() - setupStarted;
    const nextHandle = pageHandles(handleIds);
    // Whether a batch is marks (each a page) or posts, as in a build from before marks held a
    // page (BENCH_SERVER_DIST): asked of a pass with nothing to evaluate.
    const pageBatches =
      'more' in
      (await evaluatePendingPosts(db, { now: new Date(), channels: [], webhooks: false }));
    // Pages evaluated by the process that stores them (PostgreSQL, and a build that does so).
    const alerts = createPageAlerts?.(db, () => DELIVERY);
    const atStore = alerts?.claim(new Date()) !== undefined;

    // PostgreSQL's autovacuum analyses tables this size within a minute of a load (as
    // bench/tweets-search notes): everything is measured after that.
    if (db.dialect === 'postgres') {
      for (const table of ['tweets', 'profile_snapshots', 'alert_rules', 'handles']) {
        await sql`vacuum analyze ${sql.table(table)}`.execute(db.db);
      }
    }

    // 1. Pages: store, then evaluate, each timed; a firing page, a quiet page, and a quiet page
    //    of a handle without rules in turn.
    const measured = { firing: newTally(), quiet: newTally(), unwatched: newTally() };
    const KINDS = ['firing', 'quiet', 'unwatched'];
    for (let k = 0; k < WARMUP + KINDS.length * PAGES; k++) {
      const kind = KINDS[k % KINDS.length];
      const firing = kind === 'firing';
      const handleId = nextHandle(kind === 'unwatched' ? 'unwatched' : 'watched');
      const page = newPage(Date.now(), firing);
      const t0 = performance.now();
      const stored = await storePage(db, alerts, handleId, page);
      const t1 = performance.now();
      const evaluatedAtStore = await evaluateAtStore(alerts, stored);
      const t2 = performance.now();
      // The delivery worker's pass, which evaluates the marks on SQLite (and finds none of a
      // page evaluated at store: it runs once per wake-up, not per page).
      const passed = await evaluateAll(db);
      const t3 = performance.now();
      const result = {
        evaluated: evaluatedAtStore.evaluated + passed.evaluated,
        fired: evaluatedAtStore.fired + passed.fired,
        queued: evaluatedAtStore.queued + passed.queued,
      };
      const evaluationMs = atStore ? t2 - t1 : t3 - t1;
      const expected = kind === 'unwatched' ? 0 : POSTS_PER_PAGE;
      if (result.evaluated !== expected) {
        throw new Error(`page ${k}: ${result.evaluated} posts evaluated, not ${expected}`);
      }
      if (k < WARMUP) continue;
      const tally = measured[kind];
      tally.store.push(t1 - t0);
      tally.added.push(evaluationMs);
      tally.total.push(t1 - t0 + evaluationMs);
      tally.pass.push(t3 - t2);
      tally.evaluated += result.evaluated;
      tally.fired += result.fired;
      tally.queued += result.queued;
    }

    // A pass with nothing to evaluate: what every delivery round costs when nothing is new.
    const empty = await emptyPasses(db, 100);

    // 2. The handle sweep, from fresh memories, then again.
    const sweeps = [];
    for (let i = 0; i < 2; i++) {
      const t0 = performance.now();
      const result = await evaluateHandleRules(db, {
        now: new Date(),
        channels: ['telegram'],
        webhooks: true,
      });
      sweeps.push({ ms: round(performance.now() - t0, 1), ...result });
    }

    // 3. Statements per page, counted through a plugin on the same database.
    const timer = statementTimer();
    const timed = { ...db, db: db.db.withPlugin(timer.plugin) };
    const timedAlerts = alerts && createPageAlerts(timed, () => DELIVERY);
    for (let k = 0; k < 2 * STATEMENT_PAGES; k++) {
      const firing = k % 2 === 0;
      timer.phase = 'store';
      const page = newPage(Date.now(), firing);
      const stored = await storePage(timed, timedAlerts, nextHandle(), page);
      timer.phase = firing ? 'evaluate' : 'evaluateQuiet';
      await evaluateAtStore(timedAlerts, stored);
      await evaluateAll(timed);
    }
    const perPage = (phase, count = STATEMENT_PAGES) =>
      Object.entries(timer.byPhase[phase] ?? {})
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([label, s]) => ({
          label,
          perPage: round(s.count / count, 1),
          msPerPage: round(s.ms / count, 3),
        }));

    // 4. Profiles: the evaluation of pages alone (stored first, one page per batch), and a sweep.
    const storedPages = [];
    for (let k = 0; k < PROFILE_PAGES; k++) {
      storedPages.push(await storePage(db, alerts, nextHandle(), newPage(Date.now())));
    }
    const evaluationProfile = await cpuProfile(async () => {
      if (!atStore) return evaluateAll(db, pageBatches ? 1 : POSTS_PER_PAGE);
      let evaluated = 0;
      for (const stored of storedPages)
        evaluated += (await evaluateAtStore(alerts, stored)).evaluated;
      return { evaluated };
    });
    if (evaluationProfile.result.evaluated !== PROFILE_PAGES * POSTS_PER_PAGE) {
      throw new Error(`profile: ${evaluationProfile.result.evaluated} posts evaluated`);
    }
    // The same sweep gives the statement count and the profile (it is long enough for both).
    timer.phase = 'sweep';
    const sweepProfile = await cpuProfile(() =>
      evaluateHandleRules(timed, { now: new Date(), channels: ['telegram'], webhooks: true }),
    );
    const files = PROFILE_DIR
      ? [
          saveProfile(evaluationProfile.profile, PROFILE_DIR, `alerts-evaluation-${dialect}`),
          saveProfile(sweepProfile.profile, PROFILE_DIR, `alerts-sweep-${dialect}`),
        ]
      : [];

    const counts = await db.db
      .selectFrom('notification_outbox')
      .select(['channel'])
      .select((eb) => eb.fn.countAll().as('count'))
      .groupBy('channel')
      .execute();
    return {
      dialect,
      handles: HANDLES,
      rules: HANDLES * RULES.length,
      ruleKinds: RULES.map((rule) => rule.kind.type),
      historyPerHandle: HISTORY,
      profileSnapshots: snapshots,
      setupS: round(setupMs / 1000, 1),
      historyS: round(historyMs / 1000, 1),
      warmupPages: WARMUP,
      postsPerPage: POSTS_PER_PAGE,
      expectedFiringsPerPage: FIRINGS_PER_PAGE,
      pages: pagesReport(measured.firing),
      quietPages: pagesReport(measured.quiet),
      unwatchedPages: pagesReport(measured.unwatched),
      emptyPassMs: stats(empty),
      sweeps: sweeps.map((s) => ({ ...s, rules: HANDLES * RULES.length })),
      statements: {
        pages: STATEMENT_PAGES,
        store: perPage('store', 2 * STATEMENT_PAGES),
        evaluate: perPage('evaluate'),
        evaluateQuiet: perPage('evaluateQuiet'),
        sweep: perPage('sweep', 1),
      },
      profiles: {
        pages: PROFILE_PAGES,
        evaluation: summarizeProfile(evaluationProfile.profile),
        sweep: summarizeProfile(sweepProfile.profile),
        files,
      },
      outboxByChannel: counts.reduce((sum, row) => {
        const channel = row.channel.startsWith('webhook:') ? 'webhook' : row.channel;
        sum[channel] = (sum[channel] ?? 0) + Number(row.count);
        return sum;
      }, {}),
    };
  } finally {
    await bench.close();
  }
}

try {
  process.send({ ok: true, result: await main() });
} catch (error) {
  process.send({ ok: false, error: String(error?.stack ?? error) });
}
process.disconnect();
