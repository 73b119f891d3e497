// Ingest benchmark (issue targets: a 30-day backfill stores at least 20,000 tweets/s, on
// PostgreSQL too, and the collector's memory does not grow with the number of tweets it has
// stored).
// Usage: npm run bench:ingest   (prints a Markdown table, then one JSON line)
//        BENCH_DATABASE_URL=postgres://... npm run bench:ingest   (adds a Postgres row)
//        BENCH_SCENARIOS=sqlite30,postgres30 npm run bench:ingest   (only those scenarios)
//
// Every scenario runs in its own child process (fresh heap, fresh database) and drives the real
// collector of the built server: demo source without page delay, handles added through the same
// service the API uses, default concurrency (4).
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPgSchema, dropPgSchema } from '../lib/pg-schema.mjs';
import { median } from '../lib/stats.mjs';

const SELF = fileURLToPath(import.meta.url);
const SAMPLE_MS = 50;
/** Fresh-process runs of each single-handle SQLite backfill; the table shows the median run. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

// Handles named 'bench*' are the demo's ~2,000 tweets/day persona, 'typical*' the typical one.
const ALL_SCENARIOS = [
  {
    key: 'sqlite15',
    label: '1 handle x 15 days',
    dialect: 'sqlite',
    days: 15,
    handles: ['bench_half'],
  },
  {
    key: 'sqlite30',
    label: '1 handle x 30 days',
    dialect: 'sqlite',
    days: 30,
    handles: ['bench_full'],
  },
  {
    key: 'sqlite10x15',
    label: '10 typical handles x 15 days at once',
    dialect: 'sqlite',
    days: 15,
    handles: Array.from({ length: 10 }, (_, i) => `typical_bench${i}`),
  },
  {
    key: 'sqlite10x15bench',
    label: '10 bench handles x 15 days at once',
    dialect: 'sqlite',
    days: 15,
    handles: Array.from({ length: 10 }, (_, i) => `bench_many${i}`),
  },
  ...(process.env.BENCH_DATABASE_URL
    ? [
        {
          key: 'postgres30',
          label: '1 handle x 30 days',
          dialect: 'postgres',
          days: 30,
          handles: ['bench_full'],
        },
      ]
    : []),
];
const ONLY = process.env.BENCH_SCENARIOS?.split(',');
const SCENARIOS = ALL_SCENARIOS.filter((s) => !ONLY || ONLY.includes(s.key));

// ---------------------------------------------------------------------------------------------
// Child: one scenario.
async function runScenario(scenario) {
  const dist = process.env.BENCH_SERVER_DIST ?? '../../apps/server/dist';
  const { loadConfig } = await import(`${dist}/config.js`);
  const { createDb } = await import(`${dist}/db/index.js`);
  const { migrateToLatest } = await import(`${dist}/db/migrate.js`);
  const { Collector } = await import(`${dist}/collector/collector.js`);
  const { createDemoSource } = await import(`${dist}/sources/index.js`);
  const { addHandle } = await import(`${dist}/modules/handles/handles.service.js`);
  const { insertUser } = await import(`${dist}/modules/users/users.repository.js`);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bench-ingest-'));
  let databaseUrl;
  let schema;
  const base = process.env.BENCH_DATABASE_URL;
  if (scenario.dialect === 'postgres') {
    schema = `bench_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    databaseUrl = await createPgSchema(base, schema);
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    DEMO_PAGE_DELAY_MS: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  // As the server opens it: SQLite checkpoints from a thread of their own.
  const db = createDb(config, { checkpointer: true });
  try {
    await migrateToLatest(db);
    const user = await insertUser(db.db, {
      username: 'bench',
      email: 'bench@example.com',
      passwordHash: 'x',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: new Date().toISOString(),
    });
    const collector = new Collector({
      db,
      source: createDemoSource({ pageDelayMs: 0 }),
      monitorIntervalSeconds: config.MONITOR_INTERVAL_SECONDS,
    });
    await collector.start();

    const pending = new Set(scenario.handles);
    let failure;
    const finished = new Promise((resolve) => {
      const check = (event) => {
        if (event.status === 'failed') failure ??= `${event.username}: ${event.error ?? 'failed'}`;
        if (event.status === 'completed' || event.status === 'failed')
          pending.delete(event.username);
        if (pending.size === 0) resolve();
      };
      collector.events.on('handle.progress', check);
      collector.events.on('handle.status', check);
    });

    globalThis.gc?.();
    const baseline = process.memoryUsage();
    const peak = { rss: baseline.rss, heapUsed: baseline.heapUsed };
    const sample = () => {
      const { rss, heapUsed } = process.memoryUsage();
      if (rss > peak.rss) peak.rss = rss;
      if (heapUsed > peak.heapUsed) peak.heapUsed = heapUsed;
    };
    const sampler = setInterval(sample, SAMPLE_MS);
    collector.events.on('handle.progress', sample); // also between pages, should the loop be busy

    const started = process.hrtime.bigint();
    for (const username of scenario.handles) {
      await addHandle(db, collector, user, { username, backfillDays: scenario.days });
    }
    await finished;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    sample();
    await collector.stop();
    if (failure) throw new Error(`backfill failed: ${failure}`);

    const { count } = await db.db
      .selectFrom('tweets')
      .select((eb) => eb.fn.countAll().as('count'))
      .executeTakeFirstOrThrow();
    const tweets = Number(count);
    const mb = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
    return {
      key: scenario.key,
      label: scenario.label,
      dialect: scenario.dialect,
      handles: scenario.handles.length,
      days: scenario.days,
      tweets,
      seconds: Math.round(seconds * 100) / 100,
      tweetsPerSecond: Math.round(tweets / seconds),
      baselineRssMb: mb(baseline.rss),
      baselineHeapMb: mb(baseline.heapUsed),
      peakRssMb: mb(peak.rss),
      peakHeapMb: mb(peak.heapUsed),
    };
  } finally {
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropPgSchema(base, schema);
  }
}

if (process.argv[2] === '--scenario') {
  const scenario = SCENARIOS.find((s) => s.key === process.argv[3]);
  try {
    process.send({ ok: true, result: await runScenario(scenario) });
  } catch (error) {
    process.send({ ok: false, error: String(error?.stack ?? error) });
  }
  process.disconnect();
} else {
  // -------------------------------------------------------------------------------------------
  // Parent: run each scenario in a fresh process and report.
  const runChild = (key) =>
    new Promise((resolve, reject) => {
      const child = fork(SELF, ['--scenario', key], {
        execArgv: ['--expose-gc'],
        stdio: 'inherit',
      });
      let message;
      child.on('message', (m) => (message = m));
      child.on('exit', (code) => {
        if (message?.ok) resolve(message.result);
        else reject(new Error(`${key}: ${message?.error ?? `exited with ${code}`}`));
      });
    });

  const results = {};
  for (const scenario of SCENARIOS) {
    const rounds = scenario.dialect === 'sqlite' && scenario.handles.length === 1 ? ROUNDS : 1;
    const runs = [];
    for (let i = 0; i < rounds; i++) runs.push(await runChild(scenario.key));
    // The median run by throughput; peaks are the highest seen in any run.
    const mid = median(runs.map((r) => r.tweetsPerSecond));
    results[scenario.key] = {
      ...runs.find((r) => r.tweetsPerSecond === mid),
      rounds,
      tweetsPerSecondRuns: runs.map((r) => r.tweetsPerSecond),
      peakHeapMb: Math.max(...runs.map((r) => r.peakHeapMb)),
      peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    };
  }

  const half = results.sqlite15;
  const full = results.sqlite30;
  const pg = results.postgres30;
  const result = {
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
    loadAverage: os.loadavg().map((load) => Number(load.toFixed(2))),
    sampleMs: SAMPLE_MS,
    ...results,
  };
  const lines = [];
  if (half && full) {
    result.tweetRatio30to15 = Number((full.tweets / half.tweets).toFixed(2));
    result.peakHeapRatio30to15 = Number((full.peakHeapMb / half.peakHeapMb).toFixed(2));
    result.peakRssRatio30to15 = Number((full.peakRssMb / half.peakRssMb).toFixed(2));
    result.memoryFlat = result.peakHeapRatio30to15 < 1.3;
    lines.push(
      `30-day vs 15-day backfill: ${result.tweetRatio30to15}x the tweets, peak heap ${result.peakHeapRatio30to15}x, peak RSS ${result.peakRssRatio30to15}x (memory flat: ${result.memoryFlat ? 'yes' : 'no'})`,
    );
  }
  for (const r of [full, pg].filter(Boolean)) {
    const met = r.tweetsPerSecond >= 20_000;
    result[`${r.dialect}TargetMet`] = met;
    lines.push(
      `30-day ${r.dialect} backfill: ${r.tweetsPerSecond.toLocaleString('en-US')} tweets/s (target >= 20,000: ${met ? 'met' : 'not met'})`,
    );
  }
  if (full && pg) {
    result.postgresToSqlite = Number((pg.tweetsPerSecond / full.tweetsPerSecond).toFixed(2));
    lines.push(`PostgreSQL / SQLite, 30-day backfill: ${result.postgresToSqlite}x`);
  }

  const row = (r) =>
    `| ${r.dialect} | ${r.label} | ${r.tweets.toLocaleString('en-US')} | ${r.seconds} | ` +
    `${r.tweetsPerSecond.toLocaleString('en-US')} (${r.rounds}) | ${r.peakHeapMb} (${r.baselineHeapMb}) | ` +
    `${r.peakRssMb} (${r.baselineRssMb}) |`;
  console.log(`
| database | backfill | tweets stored | wall s | tweets/s (median of runs) | peak heap MB (before) | peak RSS MB (before) |
|---|---|---|---|---|---|---|
${SCENARIOS.map((s) => row(results[s.key])).join('\n')}

${lines.join('\n')}
load average (1, 5, 15 min): ${result.loadAverage.join(', ')}
`);
  console.log(JSON.stringify(result));
}
