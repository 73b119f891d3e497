// API benchmark (targets: Perch's authenticated GET /api/v1/auth/check reaches at least 80% of a
// bare Fastify route's throughput and anonymous GET /api/v1/config at least 90%, measured in the
// same run; a built app answers its first health check within 1 s, median).
// Usage: npm run bench            (prints a Markdown table, then one JSON line)
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;

function load(url, headers = {}) {
  return autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function throughput() {
  const child = fork(path.join(ROOT, 'bench/api/servers.mjs'), { stdio: 'inherit' });
  const ports = await new Promise((resolve) => child.once('message', resolve));
  const app = `http://127.0.0.1:${ports.app}/api/v1`;
  const targets = {
    bare: () => load(`http://127.0.0.1:${ports.bare}/bare`),
    authCheck: () => load(`${app}/auth/check`, { cookie: ports.cookie }),
    // Where the gap comes from: Perch's plugin stack alone, then with a session to resolve.
    configAnonymous: () => load(`${app}/config`, { cookie: ports.csrfCookie }),
    configSignedIn: () => load(`${app}/config`, { cookie: ports.cookie }),
  };
  // Warm up, then alternate so that machine noise hits every target alike.
  await load(`http://127.0.0.1:${ports.bare}/bare`);
  const samples = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(targets)) {
      const result = await targets[name]();
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      samples[name].push({
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
      });
    }
  }
  child.disconnect();
  const summary = (list) => ({
    rps: Math.round(median(list.map((s) => s.rps))),
    p50: median(list.map((s) => s.p50)),
    p99: median(list.map((s) => s.p99)),
  });
  return Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, summary(list)]));
}

async function startupOnce(dataDir) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [path.join(ROOT, 'apps/server/dist/main.js')], {
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

async function startup() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bench-start-'));
  await startupOnce(dataDir); // first start migrates; the target is an already built, set-up app
  const times = [];
  for (let i = 0; i < 5; i++) times.push(await startupOnce(dataDir));
  fs.rmSync(dataDir, { recursive: true, force: true });
  return { medianMs: Math.round(median(times)), maxMs: Math.round(Math.max(...times)) };
}

const result = {
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
  connections: CONNECTIONS,
  secondsPerRound: DURATION,
  rounds: ROUNDS,
  ...(await throughput()),
  startup: await startup(),
};
result.ratio = Number((result.authCheck.rps / result.bare.rps).toFixed(3));
result.configRatio = Number((result.configAnonymous.rps / result.bare.rps).toFixed(3));

console.log(`
| route | req/s (median of ${ROUNDS}) | p50 ms | p99 ms |
|---|---|---|---|
| bare Fastify \`GET /bare\` | ${result.bare.rps} | ${result.bare.p50} | ${result.bare.p99} |
| Perch \`GET /api/v1/auth/check\` (signed in) | ${result.authCheck.rps} | ${result.authCheck.p50} | ${result.authCheck.p99} |
| Perch \`GET /api/v1/config\` (no session) | ${result.configAnonymous.rps} | ${result.configAnonymous.p50} | ${result.configAnonymous.p99} |
| Perch \`GET /api/v1/config\` (session resolved) | ${result.configSignedIn.rps} | ${result.configSignedIn.p50} | ${result.configSignedIn.p99} |

auth/check (signed in) throughput = ${(result.ratio * 100).toFixed(1)}% of bare (target >= 80%)
config (no session) throughput = ${(result.configRatio * 100).toFixed(1)}% of bare (target >= 90%)
start-up to first healthy response: median ${result.startup.medianMs} ms, max ${result.startup.maxMs} ms (target <= 1000 ms median)
`);
console.log(JSON.stringify(result));
