// x-web benchmark: what the x-web source costs in requests per handle, and how many handles one
// collector account keeps current at the default interval.
// Usage: npm run bench:x-web   (prints Markdown tables, then one JSON line; about 6 minutes on an
// idle 2-vCPU machine)
//
// Each run is the real collector with the x-web source and a pool of collector accounts added
// by cookies, against the loopback fake of X's web API (apps/server/test/fakes), which limits
// each account per operation per 15 minutes as X's web client is limited (UserTweetsAndReplies
// 50, UserByScreenName 95, UsersByRestIds and TweetResultsByRestIds 150) and checks every
// transaction id. Everything runs on a virtual clock (scenario.mjs says how the clock reaches the
// transaction ids) and a temp SQLite database, with the config defaults (MONITOR_INTERVAL_SECONDS
// 60, PROFILE_REFRESH_MINUTES 15, 4 job slots, metric re-reads at 1, 3, 6, 24 and 72 h).
//
// The handles are the x-budget world's typical handles (10 posts a day at random times, fixed
// seed), added at 12:00 UTC with a 7-day backfill, their older posts on the fake already and each
// later post added once the clock passes it. Every virtual second the scheduler runs once
// (`tick()`) and its jobs run to the end (`idle()`). The first BENCH_WARMUP_H hours hold the
// backfill; the BENCH_STEADY_H hours after it are measured.
//
// Runs, two at a time in child processes:
// - "demand": the most handles, 1 account, the fake's limits lifted: what the collector asks for.
// - 1 account with each count of BENCH_HANDLES.
// - 2 accounts with the most handles: how the pool spreads the reads.
//
// BENCH_WARMUP_H (default 1), BENCH_STEADY_H (default 6), BENCH_STEP_S (default 1),
// BENCH_HANDLES (default 1,2,3,4,6,8,12,16,20,24,32) and BENCH_PARALLEL (default 2) change the run.
import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { X_WEB_OPERATIONS } from '@perch/shared';
import { loadConfig } from '../../apps/server/src/config.ts';
import { buildWorld, DAY_MS } from '../x-budget/world.mjs';
import { runScenario } from './scenario.mjs';
import {
  TIMELINE,
  busiestWindows,
  pollStats,
  pollTimes,
  postDelays,
  requestsByAccount,
  requestsByOperation,
  statuses,
} from './tally.mjs';

const SELF = fileURLToPath(import.meta.url);
const HOUR_MS = 3_600_000;
const WARMUP_H = Number(process.env.BENCH_WARMUP_H ?? 1);
const STEADY_H = Number(process.env.BENCH_STEADY_H ?? 6);
const STEP_MS = Number(process.env.BENCH_STEP_S ?? 1) * 1000;
const COUNTS = (process.env.BENCH_HANDLES ?? '1,2,3,4,6,8,12,16,20,24,32')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? Math.min(2, os.cpus().length));
const BACKFILL_DAYS = 7;
/** Day 0 of the run, a Monday 00:00 UTC (virtual); the handles are added at noon. */
const ORIGIN = Date.UTC(2026, 10, 16);
const START = ORIGIN + 12 * HOUR_MS;
const MEASURE_FROM = START + WARMUP_H * HOUR_MS;
const END = MEASURE_FROM + STEADY_H * HOUR_MS;
/** The per-account limits per 15 minutes of the fake (X's web client), and the pool's margin. */
const LIMITS = {
  UserByScreenName: 95,
  UserTweets: 50,
  UserTweetsAndReplies: 50,
  UsersByRestIds: 150,
  TweetResultsByRestIds: 150,
};
/** REMAINING_MARGIN of x-web-pool.ts: an account rests with this many requests left. */
const MARGIN = 2;
/** What each operation is for, in the collector. */
const PURPOSE = {
  UserByScreenName: 'lookup by name, once per new handle',
  UserTweetsAndReplies: 'timeline: backfill pages and polls',
  UserTweets: 'not used',
  UsersByRestIds: 'profile round, 100 handles a request',
  TweetResultsByRestIds: 'metric re-reads, 100 posts a request',
};

if (WARMUP_H < 1 || STEADY_H < 1) throw new Error('BENCH_WARMUP_H and BENCH_STEADY_H must be >= 1');
if (COUNTS.some((n) => !Number.isInteger(n) || n < 1 || n > 300)) {
  throw new Error('BENCH_HANDLES must be whole numbers from 1 to 300');
}

const config = loadConfig({ LOG_LEVEL: 'silent' });
const INTERVAL_MS = config.MONITOR_INTERVAL_SECONDS * 1000;
/** "Current": polled at least every 2 intervals, and no new post stored later than that. */
const CURRENT_MS = 2 * INTERVAL_MS;
/** What the collector's own schedule allows a quiet handle: 10 intervals between polls. */
const SLOWEST_MS = 10 * INTERVAL_MS;
const MAX_COUNT = COUNTS.at(-1);

const round = (value, digits = 1) => Number(value.toFixed(digits));
const progress = (text) => process.stderr.write(`${text}\n`);
const typicalHandles = (count) =>
  buildWorld({
    originMs: ORIGIN,
    fromDay: -(BACKFILL_DAYS + 1),
    toDay: Math.ceil((END - ORIGIN) / DAY_MS) + 1,
  })
    .filter((handle) => handle.cls === 'typical')
    .slice(0, count);

// ---------------------------------------------------------------------------------------------
// One run (in a child process): the scenario and what it measured.

/** A run's counts over the steady period, with each handle's polls and posts. */
function summarize(result, handles) {
  const hours = (END - MEASURE_FROM) / HOUR_MS;
  const byOperation = requestsByOperation(result.entries, MEASURE_FROM, END);
  const times = pollTimes(result.entries, result.handles);
  const storedAt = new Map(result.storedAt);
  const perHandle = handles.map((handle) => {
    const polls = pollStats(times.get(handle.xUserId), MEASURE_FROM, END);
    const posts = postDelays(handle.posts, storedAt, MEASURE_FROM, END);
    return {
      username: handle.username,
      pollsPerHour: round(polls.count / hours, 2),
      maxGapS: polls.maxGap / 1000,
      posts: posts.delays.length,
      within2: posts.delays.filter((ms) => ms <= CURRENT_MS).length,
      within10: posts.delays.filter((ms) => ms <= SLOWEST_MS).length,
      maxDelayS: Math.max(0, ...posts.delays) / 1000,
      unstored: posts.unstored,
    };
  });
  const errorsIn = (from, to) => {
    const counts = {};
    for (const error of result.errors) {
      if (error.at < from || error.at >= to) continue;
      const key = `${error.method}: ${error.key}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  };
  const rateLimited429 = (from, to) =>
    result.entries.filter((e) => e.status === 429 && e.at >= from && e.at < to).length;
  const done = result.handles.map((h) => h.backfillDoneAt);
  return {
    wallSeconds: result.wallSeconds,
    hours,
    byOperation,
    accountsUsed: result.accounts,
    byAccount: requestsByAccount(result.entries, MEASURE_FROM, END),
    statuses: statuses(result.entries),
    busiest: busiestWindows(result.entries),
    busiestSteady: busiestWindows(result.entries, MEASURE_FROM),
    invalidIds: result.entries.filter((e) => !e.valid && e.path.startsWith('/i/api/graphql/'))
      .length,
    limitsSeen: result.limitsSeen,
    backfillDoneAfterMin: done.includes(null)
      ? null
      : round((Math.max(...done) - START) / 60_000, 1),
    status429: { steady: rateLimited429(MEASURE_FROM, END), all: rateLimited429(START, END) },
    errors: { steady: errorsIn(MEASURE_FROM, END), all: errorsIn(START, END) },
    logged: result.logged,
    leasesLeft: result.leasesLeft,
    perHandle,
  };
}

async function runChild(spec) {
  const handles = typicalHandles(spec.handles);
  const result = await runScenario({
    handles,
    accounts: spec.accounts,
    lifted: spec.lifted,
    start: START,
    end: END,
    stepMs: STEP_MS,
    backfillDays: BACKFILL_DAYS,
    progress: (text) => progress(`${spec.name}: ${text}`),
  });
  return { ...spec, ...summarize(result, handles) };
}

// ---------------------------------------------------------------------------------------------
// The runs, and the tables.

function startChild(spec) {
  const child = fork(SELF, ['--scenario', JSON.stringify(spec)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let result;
    child.on('message', (message) => (result = message));
    child.on('error', reject);
    child.on('exit', (code) =>
      result ? resolve(result) : reject(new Error(`run ${spec.name} exited with ${code}`)),
    );
  });
}

/** Runs the specs `PARALLEL` at a time, the biggest first; results in the specs' order. */
async function runAll(specs) {
  const order = [...specs.keys()].sort((a, b) => specs[b].handles - specs[a].handles);
  const results = new Array(specs.length);
  let next = 0;
  const worker = async () => {
    while (next < order.length) {
      const index = order[next++];
      const spec = specs[index];
      results[index] = await startChild(spec);
      progress(`${spec.name}: done in ${results[index].wallSeconds} s`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, PARALLEL) }, worker));
  return results;
}

/** Totals of a run's handles (or of its first `count`). */
function totals(run, count = run.perHandle.length) {
  const handles = run.perHandle.slice(0, count);
  const posts = handles.reduce((sum, h) => sum + h.posts, 0);
  const within2 = handles.reduce((sum, h) => sum + h.within2, 0);
  const within10 = handles.reduce((sum, h) => sum + h.within10, 0);
  const polls = handles.map((h) => h.pollsPerHour);
  return {
    pollsPerHour: round(polls.reduce((sum, n) => sum + n, 0) / handles.length, 2),
    pollsPerHourMin: Math.min(...polls),
    maxGapS: Math.max(...handles.map((h) => h.maxGapS)),
    posts,
    within2,
    within10,
    maxDelayS: Math.max(0, ...handles.map((h) => h.maxDelayS)),
    unstored: handles.reduce((sum, h) => sum + h.unstored, 0),
  };
}

const restedOf = (errors) =>
  Object.entries(errors)
    .filter(([key]) => key.includes('rate_limited'))
    .reduce((total, [, n]) => total + n, 0);
const yes = (ok) => (ok ? 'yes' : '**no**');
const minutes = (seconds) => `${round(seconds / 60, 1)} min`;
const perHourAtInterval = 3600 / config.MONITOR_INTERVAL_SECONDS;

/** The runs: the demand, 1 account at each count, 2 accounts at the most handles. */
function specsOfTheRun() {
  return [
    {
      name: `demand (${MAX_COUNT} handles, limits lifted)`,
      handles: MAX_COUNT,
      accounts: 1,
      lifted: true,
    },
    ...COUNTS.map((n) => ({
      name: `1 account, ${n} handle${n === 1 ? '' : 's'}`,
      handles: n,
      accounts: 1,
      lifted: false,
    })),
    { name: `2 accounts, ${MAX_COUNT} handles`, handles: MAX_COUNT, accounts: 2, lifted: false },
  ];
}

/** Requests per hour by operation in the demand run (nothing held back), and per handle. */
function operationRows(demand) {
  return [...X_WEB_OPERATIONS, 'client'].map((op) => {
    const total = demand.byOperation[op] ?? 0;
    return {
      op,
      limitPerHour: LIMITS[op] ? (LIMITS[op] - MARGIN) * 4 : null,
      perHour: round(total / demand.hours, 1),
      perHandlePerHour: round(total / demand.hours / demand.handles, 2),
    };
  });
}

/**
 * One account and N handles, each against the demand run's first N handles (the same handles
 * and posts). Current in the strict sense: every gap between polls and every post's wait within
 * 2 intervals. Kept to the schedule: no read held back by a limit in the steady period.
 */
function capacityRows(oneAccount, demand) {
  return oneAccount.map((run) => {
    const t = totals(run);
    const rested = restedOf(run.errors.steady);
    return {
      run,
      t,
      asked: totals(demand, run.handles),
      rested,
      keepsCurrent: t.maxGapS <= CURRENT_MS / 1000 && t.within2 === t.posts,
      keepsSchedule: rested === 0 && run.status429.steady === 0,
    };
  });
}

/**
 * What no run may show: a 429, an account past limit - margin, a lease left, a refused id, or
 * limits in X's headers other than the bench's constants.
 */
function checksOf(runs) {
  const limited = runs.filter((run) => !run.lifted);
  return {
    no429: runs.every((run) => run.status429.all === 0),
    withinMargin: limited.every((run) =>
      Object.entries(run.busiest).every(([op, used]) => used <= LIMITS[op] - MARGIN),
    ),
    leasesLeft: runs.reduce((total, run) => total + run.leasesLeft, 0),
    invalidIds: runs.reduce((total, run) => total + run.invalidIds, 0),
    limitsMatch: limited.every((run) =>
      Object.entries(run.limitsSeen).every(([op, limit]) => limit === LIMITS[op]),
    ),
  };
}

function operationTable(demand, rows) {
  const timeline = rows.find((row) => row.op === TIMELINE);
  const usable = (LIMITS[TIMELINE] - MARGIN) * 4;
  const polls = totals(demand).pollsPerHour;
  return `Requests per hour by operation, steady state, ${demand.handles} typical handles, 1 account, the fake's limits lifted (what the collector asks for)

| operation | what for | one account's usable reads per hour (limit - ${MARGIN}, x4) | requests per hour, ${demand.handles} handles | per handle per hour |
|---|---|---|---|---|
${rows
  .map((r) =>
    r.op === 'client'
      ? `| x.com's page and scripts (transaction ids, operations) | per process, not per handle | - | ${r.perHour} | - |`
      : `| \`${r.op}\` | ${PURPOSE[r.op]} | ${r.limitPerHour} | ${r.perHour} | ${r.perHandlePerHour} |`,
  )
  .join('\n')}

Timeline polls per handle per hour in the demand run: ${polls} (the interval alone would ask for ${perHourAtInterval}; quiet polls back off to ${SLOWEST_MS / 60_000} min). ${usable} usable timeline reads per hour per account / ${timeline.perHandlePerHour} per handle = ${round(usable / timeline.perHandlePerHour, 1)} handles per account by arithmetic; at a fixed ${config.MONITOR_INTERVAL_SECONDS} s it would be ${round(usable / perHourAtInterval, 1)}.`;
}

function capacityTable(rows) {
  return `One account, N typical handles, steady state (the collector's own schedule for the same handles, limits lifted, in brackets)

| handles | timeline polls / handle / h: mean (schedule) | min | vs ${perHourAtInterval} / h | largest gap between polls (schedule) | 429s | pool's rate_limited answers | new posts | stored within 2 intervals | within 10 intervals | latest post (schedule) | most timeline reads of a window: steady (whole run) | keeps current (strict) | keeps to the schedule |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows
  .map(
    ({ run, t, asked, rested, keepsCurrent, keepsSchedule }) =>
      `| ${run.handles} | ${t.pollsPerHour} (${asked.pollsPerHour}) | ${t.pollsPerHourMin} | ${Math.round((t.pollsPerHour / perHourAtInterval) * 100)}% | ${minutes(t.maxGapS)} (${minutes(asked.maxGapS)}) | ${run.status429.steady} | ${rested} | ${t.posts} | ${t.within2} | ${t.within10} | ${minutes(t.maxDelayS)} (${minutes(asked.maxDelayS)})${t.unstored ? `, ${t.unstored} not stored` : ''} | ${run.busiestSteady[TIMELINE] ?? 0} (${run.busiest[TIMELINE] ?? 0}) of ${LIMITS[TIMELINE]} | ${yes(keepsCurrent)} | ${yes(keepsSchedule)} |`,
  )
  .join('\n')}`;
}

function spreadTable(run, demand) {
  const ops = X_WEB_OPERATIONS.filter((op) => op !== 'UserTweets');
  const t = totals(run);
  return `${run.accounts} accounts, ${run.handles} handles: steady-state requests per account

| account | ${ops.join(' | ')} |
|---|${ops.map(() => '---|').join('')}
${run.accountsUsed
  .map(
    (account) =>
      `| ${account} | ${ops.map((op) => run.byAccount[account]?.[op] ?? 0).join(' | ')} |`,
  )
  .join('\n')}

${run.accounts} accounts, ${run.handles} handles: ${t.pollsPerHour} polls / handle / h (schedule ${totals(demand).pollsPerHour}), largest gap ${minutes(t.maxGapS)}, ${run.status429.steady} 429s, ${restedOf(run.errors.steady)} rate_limited answers, ${t.within2} of ${t.posts} posts within 2 intervals, ${t.within10} within 10, latest ${minutes(t.maxDelayS)}; most timeline reads of one account in one window ${run.busiestSteady[TIMELINE] ?? 0} (whole run ${run.busiest[TIMELINE] ?? 0}).`;
}

/** The largest count kept to the schedule before the first that is not. */
function largestKept(rows) {
  const first = rows.findIndex((row) => !row.keepsSchedule);
  if (first === -1) return COUNTS.at(-1);
  return first === 0 ? 0 : COUNTS[first - 1];
}

async function main() {
  const started = performance.now();
  const specs = specsOfTheRun();
  progress(
    `x-web: ${specs.length} runs, ${WARMUP_H} h warm-up + ${STEADY_H} h steady, ${STEP_MS / 1000} s steps, ${PARALLEL} at a time`,
  );
  const runs = await runAll(specs);
  const [demand, ...rest] = runs;
  const twoAccounts = rest.at(-1);
  const operations = operationRows(demand);
  const capacity = capacityRows(rest.slice(0, COUNTS.length), demand);
  const kept = largestKept(capacity);
  const checks = checksOf(runs);
  const keptList = (key) =>
    capacity
      .filter((row) => row[key])
      .map((row) => row.run.handles)
      .join(', ') || 'none of the counts';
  const backfills = rest
    .map((run) => `${run.name}: ${run.backfillDoneAfterMin ?? 'not done'}`)
    .join('; ');
  const wall = round((performance.now() - started) / 1000);

  console.log(`
x-web: ${WARMUP_H} h warm-up (7-day backfill), then ${STEADY_H} steady hours measured; typical handles (10 posts a day); MONITOR_INTERVAL_SECONDS ${config.MONITOR_INTERVAL_SECONDS}, PROFILE_REFRESH_MINUTES ${config.PROFILE_REFRESH_MINUTES}.

${operationTable(demand, operations)}

${capacityTable(capacity)}

${spreadTable(twoAccounts, demand)}

Handles one account keeps to the collector's schedule (no read held back): ${keptList('keepsSchedule')}; the largest count before the first that is held back: ${kept}. Current in the strict sense (every poll and every new post within ${CURRENT_MS / 60_000} min): ${keptList('keepsCurrent')}.
Checks: no 429 in any run ${yes(checks.no429)}; no account past limit - ${MARGIN} in a window ${yes(checks.withinMargin)}; leases left at the end ${checks.leasesLeft}; requests with a refused transaction id ${checks.invalidIds}; limits in X's headers = the bench's constants ${yes(checks.limitsMatch)}.
Backfills done, minutes after the handles were added: ${backfills}.
Wall time: ${wall} s.
`);
  console.log(
    JSON.stringify({
      machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
      warmupHours: WARMUP_H,
      steadyHours: STEADY_H,
      stepSeconds: STEP_MS / 1000,
      counts: COUNTS,
      operations,
      runs: runs.map(({ perHandle, ...run }) => ({ ...run, totals: totals({ perHandle }) })),
      largestKept: kept,
      checks,
      wallSeconds: wall,
    }),
  );
}

if (process.argv[2] === '--scenario') {
  const result = await runChild(JSON.parse(process.argv[3]));
  process.send(result, () => process.disconnect());
} else {
  await main();
}
