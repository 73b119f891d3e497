// API benchmark (targets: Perch's authenticated GET /api/v1/auth/check reaches at least 80% of a
// bare Fastify route's throughput and anonymous GET /api/v1/config at least 90%, measured in the
// same run; a built app answers its first health check within 1 s, median).
// Usage: npm run bench            (prints a Markdown table, then one JSON line)
//        BENCH_BASELINE=/tmp/api-before npm run bench
//                                 (also loads the built app of another checkout, e.g. the previous
//                                 commit unpacked and built there, in the same rounds: before/after
//                                 side by side on the same machine state)
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { SERVER_BUNDLE } from '../../scripts/lib.mjs';
import { median } from '../lib/stats.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;
const WARM_UP_SECONDS = 2;

function load(url, headers = {}, duration = DURATION) {
  return autocannon({ url, headers, connections: CONNECTIONS, duration });
}

/** One servers.mjs child: the built app of `appRoot` (default this checkout) and a bare route. */
async function startServers(appRoot) {
  const child = fork(path.join(ROOT, 'bench/api/servers.mjs'), {
    stdio: 'inherit',
    env: appRoot ? { ...process.env, BENCH_APP_ROOT: appRoot } : process.env,
  });
  const ports = await new Promise((resolve) => child.once('message', resolve));
  const app = `http://127.0.0.1:${ports.app}/api/v1`;
  const cpu = () =>
    new Promise((resolve) => {
      child.once('message', (message) => resolve(message.cpu));
      child.send('cpu');
    });
  return {
    child,
    cpu,
    targets: {
      bare: (duration) => load(`http://127.0.0.1:${ports.bare}/bare`, {}, duration),
      authCheck: (duration) => load(`${app}/auth/check`, { cookie: ports.cookie }, duration),
      // Where the gap comes from: Perch's plugin stack alone, then with a session to resolve.
      configAnonymous: (duration) => load(`${app}/config`, { cookie: ports.csrfCookie }, duration),
      configSignedIn: (duration) => load(`${app}/config`, { cookie: ports.cookie }, duration),
    },
  };
}

async function throughput() {
  const sets = { current: await startServers() };
  if (process.env.BENCH_BASELINE) sets.baseline = await startServers(process.env.BENCH_BASELINE);
  // Warm every route up (JIT), then alternate so that machine noise hits every target alike.
  for (const { targets } of Object.values(sets)) {
    for (const run of Object.values(targets)) await run(WARM_UP_SECONDS);
  }
  const samples = {};
  for (let round = 0; round < ROUNDS; round++) {
    // With a baseline, each build goes first every other round: whichever is loaded first in a
    // round measured a few µs cheaper per request, even with the same build on both sides.
    const order = Object.entries(sets);
    if (round % 2 === 1) order.reverse();
    for (const [set, { targets, cpu }] of order) {
      for (const [name, run] of Object.entries(targets)) {
        const before = await cpu();
        const result = await run();
        const after = await cpu();
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`${set} ${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        const cpuMicros = after.user - before.user + after.system - before.system;
        ((samples[set] ??= {})[name] ??= []).push({
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          // CPU of the servers' process (only the loaded server is busy) per answered request, µs,
          // and the kernel's part of it (reading the request, writing the answer).
          cpuUs: cpuMicros / result.requests.total,
          systemUs: (after.system - before.system) / result.requests.total,
        });
      }
    }
  }
  for (const { child } of Object.values(sets)) child.disconnect();
  const summary = (list) => ({
    rps: Math.round(median(list.map((s) => s.rps))),
    p50: median(list.map((s) => s.p50)),
    p99: median(list.map((s) => s.p99)),
    cpuUs: Number(median(list.map((s) => s.cpuUs)).toFixed(1)),
    systemUs: Number(median(list.map((s) => s.systemUs)).toFixed(1)),
  });
  return Object.fromEntries(
    Object.entries(samples).map(([set, byTarget]) => [
      set,
      withRatios(
        Object.fromEntries(Object.entries(byTarget).map(([name, list]) => [name, summary(list)])),
      ),
    ]),
  );
}

/**
 * The targets' ratios (throughput against the bare route's), and the same by server CPU per
 * request (the bare route's over the route's). The bare route keeps about one core busy, so the
 * server is what limits every target and the two agree on a quiet machine; on a busy one the
 * throughput ratios move with whatever else runs, the CPU ones much less.
 */
function withRatios(result) {
  const ratio = (route, key) => Number((route[key] / result.bare[key]).toFixed(3));
  const cpuRatio = (route) => Number((result.bare.cpuUs / route.cpuUs).toFixed(3));
  return {
    ...result,
    ratio: ratio(result.authCheck, 'rps'),
    configRatio: ratio(result.configAnonymous, 'rps'),
    cpuRatio: cpuRatio(result.authCheck),
    configCpuRatio: cpuRatio(result.configAnonymous),
  };
}

/** What `npm start` runs, and the tsc build it is bundled from (for comparison). */
const ENTRIES = {
  bundle: path.join(ROOT, SERVER_BUNDLE),
  unbundled: path.join(ROOT, 'apps/server/dist/main.js'),
};

async function startupOnce(entry, dataDir) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  let ms;
  while (ms === undefined) {
    const origin = /Perch is running at (http:\/\/[^/\s]+)/.exec(output)?.[1];
    if (origin) {
      const response = await fetch(`${origin}/api/v1/health`).catch(() => undefined);
      if (response?.ok) ms = Number(process.hrtime.bigint() - started) / 1e6;
    }
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return ms;
}

/** Five starts of each entry, taking turns, on a data folder the first start migrated. */
async function startup() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bench-start-'));
  // the first start migrates; the target is an already built, set-up app
  await startupOnce(ENTRIES.bundle, dataDir);
  const times = { bundle: [], unbundled: [] };
  for (let i = 0; i < 5; i++) {
    for (const [name, entry] of Object.entries(ENTRIES))
      times[name].push(await startupOnce(entry, dataDir));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  const summary = (list) => ({
    medianMs: Math.round(median(list)),
    maxMs: Math.round(Math.max(...list)),
  });
  return { ...summary(times.bundle), unbundled: summary(times.unbundled) };
}

const { current, baseline } = await throughput();
const result = {
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
  connections: CONNECTIONS,
  secondsPerRound: DURATION,
  rounds: ROUNDS,
  ...current,
  ...(baseline ? { baseline: { root: process.env.BENCH_BASELINE, ...baseline } } : {}),
  startup: await startup(),
};

const percent = (ratio) => `${(ratio * 100).toFixed(1)}%`;

function table(title, r) {
  const row = (label, t) =>
    `| ${label} | ${t.rps} | ${t.p50} | ${t.p99} | ${t.cpuUs} | ${t.systemUs} |`;
  return `${title}
| route | req/s (median of ${ROUNDS}) | p50 ms | p99 ms | server CPU µs/request | of which kernel |
|---|---|---|---|---|---|
${row('bare Fastify `GET /bare`', r.bare)}
${row('Perch `GET /api/v1/auth/check` (signed in)', r.authCheck)}
${row('Perch `GET /api/v1/config` (no session)', r.configAnonymous)}
${row('Perch `GET /api/v1/config` (session resolved)', r.configSignedIn)}

auth/check (signed in) throughput = ${percent(r.ratio)} of bare (target >= 80%); by server CPU per request ${percent(r.cpuRatio)}
config (no session) throughput = ${percent(r.configRatio)} of bare (target >= 90%); by server CPU per request ${percent(r.configCpuRatio)}`;
}

console.log(`
${table(baseline ? 'This checkout:' : '', result)}
${baseline ? `\n${table(`Baseline (${process.env.BENCH_BASELINE}):`, baseline)}\n` : ''}
start-up to first healthy response: median ${result.startup.medianMs} ms, max ${result.startup.maxMs} ms (target <= 1000 ms median)
  (the tsc build unbundled, in turns with it: median ${result.startup.unbundled.medianMs} ms, max ${result.startup.unbundled.maxMs} ms)
`);
console.log(JSON.stringify(result));
