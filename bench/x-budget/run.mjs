// X budget benchmark (issue targets: with 1,000 handles every per-app rate limit of X is
// respected, a typical handle (10 posts a day) is billed at most 2x its new posts a day plus its
// metric re-reads as scheduled, and under X_METRIC_REFRESH=economy it costs <= $2.00 a month).
// Usage: npm run bench:x-budget   (prints Markdown tables, then one JSON line; about 10 minutes)
//
// Everything runs on a virtual clock (time compressed) against the loopback fake X server of
// apps/server/test/fakes, which enforces X's per-app limits and bills each post and user once per
// UTC day. The server code is imported from apps/server/src (TypeScript, hence tsx).
//
// 1. Today's strategy, once per metric-refresh preset (X_METRIC_REFRESH standard, in this
//    process, and economy, in a child process at the same time): the real collector with the
//    x-api source, the cost meter and a temp SQLite database. 1,000 handles (600 quiet at 1 post a day, 300 typical at 10, 100 active at
//    50) are added 4 hours before day 1 with a 7-day backfill, their older posts already on the
//    fake. Every 2 virtual seconds the posts created by then are added to the fake, then the
//    collector's scheduler runs once (`tick()`, with tickMs 2,000, so its pacing hands out the
//    timeline budget per 2 s) and the jobs it queued run to the end (`idle()`) before the clock
//    moves on. The 4 hours hold the backfill and let the polls' cadence settle; day 1 (a whole
//    UTC day, as X bills by UTC day) is the steady state measured.
// 2. The previous strategy (previous.mjs), in a child process at the same time: a second fake
//    with the same accounts and posts on its own virtual clock, for a stratified 1 in 10 of the
//    handles, its limits lifted so that what it asks for is measured. Its request counts are
//    scaled to 1,000 handles.
//
// BENCH_STEADY_DAYS (default 1), BENCH_WARMUP_H (default 4), BENCH_STEP_S (default 2) and
// BENCH_PREVIOUS_HANDLES (default 100, a multiple of 10 up to 1,000) change the run.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeXServer } from '../../apps/server/test/fakes/fake-x-server.ts';
import { Collector } from '../../apps/server/src/collector/collector.ts';
import { estimateHandleMonth, metricReadAgesMs } from '@perch/shared';
import { createXApiSource } from '../../apps/server/src/sources/x-api-source.ts';
import { loadConfig } from '../../apps/server/src/config.ts';
import { createDb } from '../../apps/server/src/db/index.ts';
import { migrateToLatest } from '../../apps/server/src/db/migrate.ts';
import { createXUsageMeter } from '../../apps/server/src/modules/x-usage/x-usage.service.ts';
import { followedByBenchUsers } from '../lib/bench-users.mjs';
import { countingLog } from '../lib/counting-log.mjs';
import { tappedSource } from '../lib/source-tap.mjs';
import { createPreviousStrategy } from './previous.mjs';
import { ENDPOINTS, WINDOW_MS, createBillingTally, createRequestTally } from './tally.mjs';
import { CLASSES, DAY_MS, buildWorld, populate, utcDay } from './world.mjs';

const SELF = fileURLToPath(import.meta.url);
const STEADY_DAYS = Number(process.env.BENCH_STEADY_DAYS ?? 1);
const WARMUP_H = Number(process.env.BENCH_WARMUP_H ?? 4);
const STEP_MS = Number(process.env.BENCH_STEP_S ?? 2) * 1000;
const PREVIOUS_HANDLES = Number(process.env.BENCH_PREVIOUS_HANDLES ?? 100);
const BACKFILL_DAYS = 7;
/** Day 0 of the run, a Monday 00:00 UTC (virtual). */
const ORIGIN = Date.UTC(2026, 10, 16);
/** The steady state measured: whole UTC days from day 1. */
const MEASURE_FROM = ORIGIN + DAY_MS;
const END = MEASURE_FROM + STEADY_DAYS * DAY_MS;
/** Handles are added this long before day 1, so the backfill and the cadence settle first. */
const START = MEASURE_FROM - WARMUP_H * 3_600_000;
/** The previous strategy starts an hour before day 1, so its polls have their cadence by then. */
const PREVIOUS_FROM = MEASURE_FROM - 3_600_000;
const MONTH_DAYS = 30;
/** The X_METRIC_REFRESH presets compared; the first runs in this process. */
const PRESETS = ['standard', 'economy'];
/** The issue's target for a typical handle under economy, USD a month. */
const ECONOMY_TARGET_USD = 2;
/**
 * The fake's per-app limits per 15 minutes (DEFAULT_LIMITS in fake-x-server.ts, X's documented
 * per-app limits), checked against the x-rate-limit-limit headers the source saw.
 */
const LIMITS = {
  'users/tweets': 10_000,
  tweets: 3_500,
  users: 300,
  'users/by/username': 300,
};
const REQUESTS = {
  'users/tweets': 'GET /2/users/:id/tweets',
  tweets: 'GET /2/tweets?ids=',
  users: 'GET /2/users?ids=',
  'users/by/username': 'GET /2/users/by/username/:name',
};
/**
 * The SQLite file goes to tmpfs where there is one: the bench counts requests and reads, and
 * the disk should not set its pace.
 */
const TMP = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();

if (!Number.isInteger(PREVIOUS_HANDLES / 10) || PREVIOUS_HANDLES < 10 || PREVIOUS_HANDLES > 1000) {
  throw new Error('BENCH_PREVIOUS_HANDLES must be a multiple of 10 from 10 to 1000');
}
if (WARMUP_H < 1 || WARMUP_H > 24) throw new Error('BENCH_WARMUP_H must be from 1 to 24');

const config = loadConfig({ LOG_LEVEL: 'silent' });
const PRICES = { post: config.X_PRICE_POST_READ_USD, user: config.X_PRICE_USER_READ_USD };

const round = (value, digits = 1) => Number(value.toFixed(digits));
const fmt = (value, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const pct = (share) => `${(share * 100).toFixed(1)}%`;
const progress = (text) => process.stderr.write(`${text}\n`);
const wallSince = (start) => round((performance.now() - start) / 1000);
const lastStepOfDay = (ms) => Math.floor(ms / DAY_MS) !== Math.floor((ms + STEP_MS) / DAY_MS);

const world = buildWorld({
  originMs: ORIGIN,
  fromDay: -(BACKFILL_DAYS + 1),
  toDay: 1 + STEADY_DAYS,
});
const measuredDays = Array.from({ length: STEADY_DAYS }, (_, d) =>
  utcDay(MEASURE_FROM + d * DAY_MS),
);
const warmupDay = utcDay(START);

/** Wraps a source to count its calls and the errors it threw (limits it refused on its own too). */
function counting(source) {
  const calls = {};
  const errors = {};
  return {
    source: tappedSource(source, {
      onCall: (name) => {
        calls[name] = (calls[name] ?? 0) + 1;
      },
      onError: (name, error) => {
        const key = `${name}: ${error?.kind ?? error?.name ?? 'error'}`;
        errors[key] = (errors[key] ?? 0) + 1;
      },
    }),
    calls,
    errors,
  };
}

/**
 * The X API source on `fake` at the virtual instant `now()`, counted, with billed reads going to
 * `onBilledReads`.
 */
function countedXApiSource(fake, now, onBilledReads) {
  return counting(
    createXApiSource({
      baseUrl: fake.baseUrl,
      bearerToken: fake.bearerToken,
      now,
      // For a spent window that resets within a minute the source would sleep in real time;
      // with 0 it refuses at once, with the reset as retry time, and the job is rescheduled.
      maxRateLimitWaitMs: 0,
      onBilledReads,
    }),
  );
}

/** Mean billed reads per handle per day of each class over `days`, and of all handles. */
function billedByClass(billing, handles, days) {
  const result = {};
  for (const cls of [...CLASSES.map((c) => c.name), 'all']) {
    const members = handles.filter((h) => cls === 'all' || h.cls === cls);
    let posts = 0;
    let users = 0;
    for (const handle of members) {
      for (const day of days) {
        const counts = billing.of(handle.xUserId, day);
        posts += counts.post;
        users += counts.user;
      }
    }
    const n = members.length * days.length;
    const postsPerDay = posts / n;
    const usersPerDay = users / n;
    result[cls] = {
      handles: members.length,
      postReadsPerDay: round(postsPerDay, 2),
      userReadsPerDay: round(usersPerDay, 2),
      usdPerDay: round(postsPerDay * PRICES.post + usersPerDay * PRICES.user, 4),
      usdPerMonth: round(MONTH_DAYS * (postsPerDay * PRICES.post + usersPerDay * PRICES.user), 2),
    };
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// 1. Today's strategy: the collector with the x-api source against the fake.

async function runToday(preset) {
  const started = performance.now();
  let clock = START;
  const now = () => clock;
  const dataDir = fs.mkdtempSync(path.join(TMP, 'perch-bench-x-budget-'));
  const appConfig = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    X_METRIC_REFRESH: preset,
  });
  const db = createDb(appConfig);
  const fake = await startFakeXServer({ now });
  try {
    await migrateToLatest(db);
    const releaseUntil = populate(fake, world);
    releaseUntil(clock);

    await followedByBenchUsers(db, world, { backfillDays: BACKFILL_DAYS, clock });

    const meter = createXUsageMeter(db, appConfig, { now: () => new Date(clock) });
    const billing = createBillingTally(now);
    const counted = countedXApiSource(fake, now, async (reads) => {
      billing.record(reads);
      await meter.record(reads);
    });
    const { logged, log } = countingLog();
    const collector = new Collector({
      db,
      source: counted.source,
      now: () => new Date(clock),
      tickMs: STEP_MS,
      monitorIntervalSeconds: appConfig.MONITOR_INTERVAL_SECONDS,
      concurrency: appConfig.COLLECTOR_CONCURRENCY,
      profileRefreshMinutes: appConfig.PROFILE_REFRESH_MINUTES,
      metricRefresh: appConfig.X_METRIC_REFRESH,
      budget: meter,
      log,
    });
    const backfill = { completed: 0, failed: 0, doneAt: null };
    collector.events.on('handle.status', ({ status }) => {
      if (status === 'completed') backfill.completed += 1;
      if (status === 'failed') backfill.failed += 1;
      if (backfill.completed === world.length && backfill.doneAt === null) backfill.doneAt = clock;
    });

    const requests = createRequestTally(ORIGIN);
    const meterDays = {};
    const fakeDays = {};
    await collector.start();
    // The scheduler is driven by hand: its own timer would fire in real time.
    clearTimeout(collector.timer);
    await collector.idle();
    requests.drain(fake);
    let lastReport = performance.now();
    for (clock = START + STEP_MS; clock < END; clock += STEP_MS) {
      releaseUntil(clock);
      await collector.tick();
      clearTimeout(collector.timer);
      await collector.idle();
      requests.drain(fake);
      if (lastStepOfDay(clock)) {
        // The last instant of a UTC day: what the meter and the fake say the day cost.
        const day = utcDay(clock);
        const summary = await meter.summary({ rateStatus: null, source: 'x-api' });
        meterDays[day] = { post: summary.today.post_reads, user: summary.today.user_reads };
        fakeDays[day] = fake.billing().byDay[day] ?? { posts: 0, users: 0 };
      }
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        progress(
          `today (${preset}): ${new Date(clock).toISOString()} virtual, ${wallSince(started)} s wall`,
        );
      }
    }
    await collector.stop();
    const rateStatus = counted.source.rateStatus();
    return summarizeToday(preset, {
      wallSeconds: wallSince(started),
      requests,
      billing,
      meterDays,
      fakeDays,
      backfill,
      calls: counted.calls,
      errors: counted.errors,
      logged,
      limitsSeen: Object.fromEntries(rateStatus.endpoints.map((e) => [e.endpoint, e.limit])),
      usageCard: (await meter.summary({ rateStatus: null, source: 'x-api' })).metric_refresh,
    });
  } finally {
    await fake.close();
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * What main() needs of one run of today's strategy, as plain data (a child process sends it):
 * requests per window, billed reads per class, the typical handle's target, the cross-checks.
 */
function summarizeToday(preset, run) {
  const crossCheck = [...new Set([warmupDay, ...measuredDays])].map((day) => ({
    day,
    tally: run.billing.day(day),
    meter: run.meterDays[day],
    fake: run.fakeDays[day],
  }));
  const billed = billedByClass(run.billing, world, measuredDays);
  return {
    preset,
    wallSeconds: run.wallSeconds,
    steady: run.requests.stats(MEASURE_FROM, END),
    warmup: run.requests.stats(START, MEASURE_FROM),
    statuses: run.requests.statuses(),
    rateLimited: run.requests.rateLimited(),
    billed,
    warmupBilled: billedByClass(run.billing, world, [warmupDay]),
    target: typicalTarget(run.billing, measuredDays, preset),
    model: estimateHandleMonth(preset, { postReadUsd: PRICES.post, userReadUsd: PRICES.user }),
    usageCard: run.usageCard,
    velocity: velocityReadings(preset),
    crossCheck,
    crossCheckOk: crossCheck.every(
      ({ tally, meter, fake }) =>
        meter &&
        fake &&
        tally.post === meter.post &&
        tally.post === fake.posts &&
        tally.user === meter.user &&
        tally.user === fake.users,
    ),
    backfill: run.backfill,
    calls: run.calls,
    errors: run.errors,
    logged: run.logged,
    limitsSeen: run.limitsSeen,
  };
}

/**
 * The share of the typical handles' posts of the measured days whose 1, 3 and 6 h readings the
 * preset keeps (schedule arithmetic on the posting times, not counted from the run): velocity
 * (avg_1h/3h/6h) is known for those posts.
 */
function velocityReadings(preset) {
  const posts = world
    .filter((h) => h.cls === 'typical')
    .flatMap((h) => h.posts)
    .filter((post) => measuredDays.includes(utcDay(post.createdMs)));
  const share = (hours) =>
    round(
      posts.filter((post) => metricReadAgesMs(preset, post.createdMs).includes(hours * 3_600_000))
        .length / posts.length,
      4,
    );
  return { posts: posts.length, h1: share(1), h3: share(3), h6: share(6) };
}

// ---------------------------------------------------------------------------------------------
// 2. The previous strategy, emulated on a sample of the same handles (in the child process).

async function runPrevious() {
  const started = performance.now();
  let clock = PREVIOUS_FROM;
  const now = () => clock;
  const fake = await startFakeXServer({ now });
  try {
    const releaseUntil = populate(fake, world);
    releaseUntil(clock);
    // Lifted limits: the bench measures what the strategy asks for, not what X would refuse.
    for (const endpoint of ENDPOINTS) {
      fake.setRateLimit(endpoint, {
        limit: 1_000_000_000,
        remaining: 1_000_000_000,
        resetInSeconds: 900,
      });
    }
    const every = 1000 / PREVIOUS_HANDLES;
    const seen = new Map();
    const sample = world.filter((handle) => {
      const n = seen.get(handle.cls) ?? 0;
      seen.set(handle.cls, n + 1);
      return n % every === 0;
    });
    const billing = createBillingTally(now);
    const counted = countedXApiSource(fake, now, (reads) => billing.record(reads));
    const strategy = createPreviousStrategy({
      source: counted.source,
      handles: sample,
      // Its backfill and earlier polls hold every post created before it starts.
      known: (handle) => handle.posts.filter((post) => post.createdMs <= PREVIOUS_FROM),
      now,
      monitorIntervalMs: config.MONITOR_INTERVAL_SECONDS * 1000,
      slots: config.COLLECTOR_CONCURRENCY,
    });
    const requests = createRequestTally(ORIGIN);
    const fakeDays = {};
    let lastReport = performance.now();
    for (; clock < END; clock += STEP_MS) {
      releaseUntil(clock);
      await strategy.step();
      requests.drain(fake);
      if (lastStepOfDay(clock)) {
        const day = utcDay(clock);
        fakeDays[day] = fake.billing().byDay[day] ?? { posts: 0, users: 0 };
      }
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        progress(
          `previous: ${new Date(clock).toISOString()} virtual, ${wallSince(started)} s wall`,
        );
      }
    }
    return {
      wallSeconds: wallSince(started),
      sampleHandles: sample.length,
      scale: every,
      polls: strategy.counters.polls,
      errors: { ...strategy.counters.errors, ...counted.errors },
      steady: requests.stats(MEASURE_FROM, END, every, LIMITS),
      billed: billedByClass(billing, sample, measuredDays),
      crossCheckOk: measuredDays.every((day) => {
        const tally = billing.day(day);
        const billed = fakeDays[day];
        return billed && tally.post === billed.posts && tally.user === billed.users;
      }),
    };
  } finally {
    await fake.close();
  }
}

if (process.argv[2] === '--previous') {
  const result = await runPrevious();
  process.send(result, () => process.disconnect());
} else if (process.argv[2] === '--today') {
  const result = await runToday(process.argv[3]);
  process.send(result, () => process.disconnect());
} else {
  await main();
}

// ---------------------------------------------------------------------------------------------
// Results

/** The result of a run in a child process beside this one (`args`: its mode). */
function startChild(args, name) {
  const child = fork(SELF, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let result;
    child.on('message', (message) => (result = message));
    child.on('error', reject);
    child.on('exit', (code) =>
      result ? resolve(result) : reject(new Error(`${name} exited with ${code}`)),
    );
  });
}

/**
 * The target of a typical handle on one day: billed post reads <= 2 x its new posts that day +
 * its scheduled metric re-reads that day (posts with a re-read of the preset's schedule, at 1, 3,
 * 6, 24 or 72 h after posting, that falls on that UTC day, each post once a day, as X bills
 * them). `floor` is what the schedule has to cost: the posts new that day or with a re-read that
 * day, each once.
 */
function typicalTarget(billing, days, preset) {
  const rows = [];
  for (const handle of world.filter((h) => h.cls === 'typical')) {
    for (const day of days) {
      let fresh = 0;
      let scheduled = 0;
      let floor = 0;
      for (const post of handle.posts) {
        const isNew = utcDay(post.createdMs) === day;
        const reread = metricReadAgesMs(preset, post.createdMs).some(
          (age) => utcDay(post.createdMs + age) === day,
        );
        if (isNew) fresh += 1;
        if (reread) scheduled += 1;
        if (isNew || reread) floor += 1;
      }
      const billed = billing.of(handle.xUserId, day).post;
      rows.push({ fresh, scheduled, floor, billed, bound: 2 * fresh + scheduled });
    }
  }
  const mean = (key) => rows.reduce((sum, row) => sum + row[key], 0) / rows.length;
  const over = rows.filter((row) => row.billed > row.bound).length;
  return {
    handleDays: rows.length,
    newPostsPerDay: round(mean('fresh'), 2),
    scheduledRereadsPerDay: round(mean('scheduled'), 2),
    boundPerDay: round(mean('bound'), 2),
    floorPerDay: round(mean('floor'), 2),
    billedPerDay: round(mean('billed'), 2),
    billedMin: Math.min(...rows.map((row) => row.billed)),
    billedMax: Math.max(...rows.map((row) => row.billed)),
    maxShareOfBound: round(Math.max(...rows.map((row) => row.billed / row.bound)), 3),
    handleDaysOverBound: over,
    met: over === 0,
  };
}

async function main() {
  progress(
    `x-budget: ${world.length} handles, ${WARMUP_H} h warm-up, ${STEADY_DAYS} steady day(s), ${STEP_MS / 1000} s steps, presets ${PRESETS.join(' and ')}`,
  );
  const previousRun = startChild(['--previous'], 'previous strategy');
  const otherRuns = PRESETS.slice(1).map((preset) =>
    startChild(['--today', preset], `today's strategy (${preset})`),
  );
  const runs = [await runToday(PRESETS[0]), ...(await Promise.all(otherRuns))];
  const previous = await previousRun;
  const today = runs[0];
  const economy = runs.find((run) => run.preset === 'economy');

  const limits = Object.fromEntries(
    ENDPOINTS.map((endpoint) => [endpoint, today.limitsSeen[endpoint] ?? LIMITS[endpoint]]),
  );
  const limitsMatch = runs.every((run) =>
    ENDPOINTS.every(
      (endpoint) => (run.limitsSeen[endpoint] ?? LIMITS[endpoint]) === LIMITS[endpoint],
    ),
  );
  const windows = Math.round((END - MEASURE_FROM) / WINDOW_MS);
  /** Every handle polled every MONITOR_INTERVAL_SECONDS, as the issue describes the old code. */
  const fixedPerWindow = (world.length * WINDOW_MS) / (config.MONITOR_INTERVAL_SECONDS * 1000);

  const endpointRows = ENDPOINTS.map((endpoint) => {
    const limit = limits[endpoint];
    const of = (stats) => ({
      max: stats.max,
      mean: round(stats.mean),
      maxShare: round(stats.max / limit, 4),
    });
    const p = previous.steady[endpoint];
    return {
      endpoint,
      limit,
      today: of(today.steady[endpoint]),
      todayWarmup: of(today.warmup[endpoint]),
      presets: Object.fromEntries(
        runs.map((run) => [
          run.preset,
          {
            steady: of(run.steady[endpoint]),
            warmup: of(run.warmup[endpoint]),
            rateLimited: run.statuses[endpoint]?.[429] ?? 0,
          },
        ]),
      ),
      previous: {
        max: p.max,
        mean: round(p.mean),
        maxShare: round(p.max / limit, 4),
        overLimitPerDay: round((p.overLimit ?? 0) / STEADY_DAYS),
        windowsOverLimit: p.windowsOver ?? 0,
        fixedIntervalPerWindow: endpoint === 'users' ? 0 : fixedPerWindow,
      },
      todayRateLimited: today.statuses[endpoint]?.[429] ?? 0,
    };
  });
  const perAppMet = endpointRows.every((row) =>
    Object.values(row.presets).every(
      (run) => run.steady.max <= row.limit && run.warmup.max <= row.limit,
    ),
  );
  const no429 = runs.every((run) => run.rateLimited.length === 0);
  const boundsMet = runs.every((run) => run.target.met);
  const economyTypicalUsd = economy.billed.typical.usdPerMonth;
  const economyMet = economyTypicalUsd <= ECONOMY_TARGET_USD;
  const crossCheckOk = runs.every((run) => run.crossCheckOk);
  const modelMatches = runs.every(
    (run) => Math.abs(run.billed.typical.usdPerMonth - run.model.usd) <= 0.05,
  );
  const cardMatches = runs.every(
    (run) =>
      run.usageCard.preset === run.preset &&
      run.usageCard.typical_handle.month_usd === run.model.usd,
  );

  const met = (ok) => (ok ? 'met' : '**not met**');
  const yes = (ok) => (ok ? 'yes' : '**no**');
  const doneH = (run) =>
    run.backfill.doneAt === null ? null : round((run.backfill.doneAt - START) / 3_600_000, 2);
  const startAt = new Date(START).toISOString().slice(11, 16);
  const days = STEADY_DAYS > 1 ? `days 1-${STEADY_DAYS}` : 'day 1';
  const classes = CLASSES.map((c) => `${c.count} ${c.name} at ${c.perDay}/day`).join(', ');
  const held = (run) =>
    Object.entries(run.errors).reduce(
      (sum, [key, n]) => sum + (key.endsWith('rate_limited') ? n : 0),
      0,
    );
  const presetCols = (fn) => runs.map(fn).join(' | ');
  const presetHead = (label) => runs.map((run) => `${label} ${run.preset}`).join(' | ');
  const presetSep = runs.map(() => '---').join('|');

  console.log(`
X budget: ${world.length} handles (${classes}), added at ${startAt} UTC on day 0 with a 7-day backfill (all backfilled ${runs.map((run) => `${run.preset} ${doneH(run) ?? '-'} h`).join(', ')} later); steady state: ${days} (${windows} windows of 15 min). Today's strategy once per X_METRIC_REFRESH preset (${PRESETS.join(', ')}), side by side. Previous strategy: ${previous.sampleHandles} of the handles, requests x${previous.scale}, limits lifted.

Metric-refresh presets side by side (${MONTH_DAYS} days at $${PRICES.post} a post read, $${PRICES.user} a user read, each once per UTC day)

| preset | typical handle (10/day) USD/month, measured | model (Admin card) | typical post reads/day | all ${world.length} handles USD/month | quiet / active USD/month | typical posts with a 1 h / 3 h / 6 h reading (schedule) | post lookups per window, max |
|---|---|---|---|---|---|---|---|
${runs
  .map(
    (run) =>
      `| ${run.preset} | $${run.billed.typical.usdPerMonth.toFixed(2)} | $${run.model.usd.toFixed(2)} | ${run.billed.typical.postReadsPerDay} | $${run.billed.all.usdPerMonth.toFixed(2)} | $${run.billed.quiet.usdPerMonth.toFixed(2)} / $${run.billed.active.usdPerMonth.toFixed(2)} | ${pct(run.velocity.h1)} / ${pct(run.velocity.h3)} / ${pct(run.velocity.h6)} | ${fmt(run.steady.tweets.max)} |`,
  )
  .join('\n')}

Requests per 15-min window, steady state (max and mean over the windows), against the per-app limits

| endpoint | per-app limit | ${presetHead('max')} | ${presetHead('mean')} | standard max / limit | warm-up max (backfill), standard | previous max (x${previous.scale}) | previous mean (x${previous.scale}) | previous max / limit | previous over the limit per day | previous at a fixed ${config.MONITOR_INTERVAL_SECONDS} s |
|---|---|${presetSep}|${presetSep}|---|---|---|---|---|---|---|
${endpointRows
  .map(
    (r) =>
      `| \`${REQUESTS[r.endpoint]}\` | ${fmt(r.limit)} | ${presetCols((run) => fmt(r.presets[run.preset].steady.max))} | ${presetCols((run) => fmt(r.presets[run.preset].steady.mean, 1))} | ${pct(r.today.maxShare)} | ${fmt(r.todayWarmup.max)} (${pct(r.todayWarmup.maxShare)}) | ${fmt(r.previous.max)} | ${fmt(r.previous.mean, 1)} | ${pct(r.previous.maxShare)} | ${fmt(r.previous.overLimitPerDay)} | ${fmt(r.previous.fixedIntervalPerWindow)} |`,
  )
  .join('\n')}

429 answers, whole run: ${runs.map((run) => `${run.preset} ${run.rateLimited.length}`).join(', ')}. Requests the source held back itself (spent window): ${runs.map((run) => `${run.preset} ${fmt(held(run))}`).join(', ')}.

Billed reads per handle per day, steady state, and USD per handle per month

| class | handles (previous sample) | ${presetHead('post reads/day')} | previous | ${presetHead('user reads/day')} | previous | ${presetHead('USD/month')} | previous | day 0 standard (backfill + ${WARMUP_H} h): posts / users / USD |
|---|---|${presetSep}|---|${presetSep}|---|${presetSep}|---|---|
${[...CLASSES.map((c) => c.name), 'all']
  .map((cls) => {
    const p = previous.billed[cls];
    const w = today.warmupBilled[cls];
    return `| ${cls} | ${today.billed[cls].handles} (${p.handles}) | ${presetCols((run) => run.billed[cls].postReadsPerDay)} | ${p.postReadsPerDay} | ${presetCols((run) => run.billed[cls].userReadsPerDay)} | ${p.userReadsPerDay} | ${presetCols((run) => `$${run.billed[cls].usdPerMonth.toFixed(2)}`)} | $${p.usdPerMonth.toFixed(2)} | ${w.postReadsPerDay} / ${w.userReadsPerDay} / $${w.usdPerDay.toFixed(3)} |`;
  })
  .join('\n')}

${runs
  .map(
    (run) =>
      `Typical handle, ${run.preset}, ${run.target.handleDays} handle-days: ${run.target.billedPerDay} billed post reads/day (min ${run.target.billedMin}, max ${run.target.billedMax}); bound 2 x ${run.target.newPostsPerDay} new + ${run.target.scheduledRereadsPerDay} scheduled re-reads = ${run.target.boundPerDay}; what the schedule has to cost (new or re-read that day, once each) ${run.target.floorPerDay}; worst handle-day at ${pct(run.target.maxShareOfBound)} of its bound, ${run.target.handleDaysOverBound} over it.`,
  )
  .join('\n')}

Targets: every per-app limit respected ${met(perAppMet)}; no 429 ${met(no429)}; typical handle's billed post reads within the bound ${met(boundsMet)}; typical handle under economy <= $${ECONOMY_TARGET_USD.toFixed(2)} a month ${met(economyMet)} ($${economyTypicalUsd.toFixed(2)})
Cross-checks: bench tally = cost meter = fake's bill each day ${yes(crossCheckOk)}; model within $0.05 of the measured typical handle ${yes(modelMatches)}; usage card's preset and estimate = the model ${yes(cardMatches)}; previous tally = its fake's bill ${yes(previous.crossCheckOk)}; limits in the headers = the fake's constants ${yes(limitsMatch)}
Wall time: ${runs.map((run) => `${run.preset} ${run.wallSeconds} s`).join(', ')}, previous ${previous.wallSeconds} s (in parallel)
`);
  console.log(
    JSON.stringify({
      machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
      handles: world.length,
      classes: CLASSES,
      warmupHours: WARMUP_H,
      steadyDays: STEADY_DAYS,
      stepSeconds: STEP_MS / 1000,
      prices: PRICES,
      limits,
      limitsSeenInHeaders: Object.fromEntries(runs.map((run) => [run.preset, run.limitsSeen])),
      endpoints: endpointRows,
      presets: Object.fromEntries(
        runs.map((run) => [
          run.preset,
          {
            typicalUsdPerMonth: run.billed.typical.usdPerMonth,
            allUsdPerMonth: run.billed.all.usdPerMonth,
            model: run.model,
            usageCard: run.usageCard,
            velocityReadings: run.velocity,
            billedPerHandlePerDay: run.billed,
            day0: run.warmupBilled,
            typicalTarget: run.target,
            rateLimited: run.rateLimited,
            statuses: run.statuses,
            backfill: { ...run.backfill, doneAfterHours: doneH(run) },
            crossCheck: run.crossCheck,
            wallSeconds: run.wallSeconds,
            sourceCalls: run.calls,
            sourceErrors: run.errors,
            logged: run.logged,
          },
        ]),
      ),
      previous: {
        billedPerHandlePerDay: previous.billed,
        wallSeconds: previous.wallSeconds,
        sampleHandles: previous.sampleHandles,
        scale: previous.scale,
        polls: previous.polls,
        errors: previous.errors,
      },
      targets: {
        perAppLimits: perAppMet,
        no429,
        typicalBilledPosts: boundsMet,
        economyTypicalAtMost2Usd: economyMet,
      },
    }),
  );
}
