// Helpers of the scale-out benchmark (bench/scale-out/run.mjs): a private PostgreSQL schema per
// scenario, migrated by the built server; Perch processes of the built server started with a
// PERCH_ROLE and stopped again; the Redis keys of a prefix removed; and CPU time read from /proc
// (Linux) for the processes, PostgreSQL, Redis and the whole machine.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createPgSchema, dropPgSchema } from '../lib/pg-schema.mjs';
import { Redis } from 'ioredis';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The built server; BENCH_SERVER_DIST points at another build (e.g. one with a change to try). */
export const DIST = path.resolve(
  process.env.BENCH_SERVER_DIST ?? path.join(ROOT, 'apps/server/dist'),
);
export const dist = (module) => import(pathToFileURL(path.join(DIST, module)).href);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a schema per scenario

/**
 * Creates a schema in `baseUrl`'s database, migrates it with the built server's migrations and
 * returns the URL that puts it first on the search path (as createTestDb in the tests does), the
 * open Kysely database of the built server on it, and `drop()`.
 */
export async function createSchema(baseUrl, name) {
  const databaseUrl = await createPgSchema(baseUrl, name);
  const { loadConfig } = await dist('config.js');
  const { createDb } = await dist('db/index.js');
  const { migrateToLatest } = await dist('db/migrate.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bench-so-db-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
  const db = createDb(config);
  await migrateToLatest(db);
  return {
    url: databaseUrl,
    db,
    async drop() {
      await db.close().catch(() => undefined);
      fs.rmSync(dataDir, { recursive: true, force: true });
      await dropPgSchema(baseUrl, name);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Perch processes

/**
 * Starts `node <dist>/main.js` with `env` on top of the environment and resolves once it prints
 * its address (an API node: "Perch is running at ..."; a worker: "... (health: ...)").
 */
export async function startNode(name, env) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `perch-bench-so-${name}-`));
  const child = spawn(process.execPath, [path.join(DIST, 'main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      SECRET_KEY: 'scale-out-bench-secret-key-0123456789abcdef',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      TELEGRAM_POLL_UPDATES: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk) => {
    output += chunk.toString();
    if (output.length > 64_000) output = output.slice(-32_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const origin =
      /Perch is running at (http:\/\/[^/\s]+)/.exec(output)?.[1] ??
      /health: (http:\/\/[^/\s]+)\/api/.exec(output)?.[1];
    if (origin) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start:\n${output}`);
    }
    await sleep(20);
  }
  const origin =
    /Perch is running at (http:\/\/[^/\s]+)/.exec(output)?.[1] ??
    /health: (http:\/\/[^/\s]+)\/api/.exec(output)?.[1];
  return {
    name,
    pid: child.pid,
    origin,
    child,
    output: () => output,
    /** SIGTERM (the graceful shutdown of main.ts), SIGKILL after `graceMs`. */
    async stop(graceMs = 5_000) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Redis

/** Deletes every key of `prefix` (SCAN, not KEYS, so a shared Redis is not blocked). */
export async function deleteRedisKeys(url, prefix) {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
  return deleted;
}

// ---------------------------------------------------------------------------------------------
// CPU time from /proc

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // getconf missing: Linux's usual 100
}

/** Fields of /proc/<pid>/stat after the command name, or null (gone, or not Linux). */
function statFields(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far; 0 when it is gone. */
export function processCpuSeconds(pid) {
  const fields = statFields(pid);
  // Fields 14 and 15 of stat(5) (utime, stime) are at 11 and 12 after the name.
  return fields ? (Number(fields[11]) + Number(fields[12])) / clockTicks : 0;
}

/**
 * Seconds a process's threads have run on a CPU and waited for one in the run queue
 * (/proc/<pid>/task/<tid>/schedstat), summed over its threads, and the same for its main thread
 * alone (a Node process's event loop); zeros when it is gone.
 */
export function processSchedSeconds(pid) {
  const all = { onCpu: 0, waiting: 0 };
  const main = { onCpu: 0, waiting: 0 };
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const [run, wait] = fs
          .readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')
          .split(' ')
          .map((value) => Number(value) / 1e9);
        all.onCpu += run;
        all.waiting += wait;
        if (Number(tid) === pid) Object.assign(main, { onCpu: run, waiting: wait });
      } catch {
        // thread gone
      }
    }
  } catch {
    // process gone, or no schedstat
  }
  return { ...all, main };
}

/** Runnable tasks on the machine right now (procs_running of /proc/stat), or null. */
export function runnableTasks() {
  try {
    return Number(/procs_running (\d+)/.exec(fs.readFileSync('/proc/stat', 'utf8'))[1]);
  } catch {
    return null;
  }
}

/** Pids of processes whose command name is `comm` (e.g. 'postgres', 'redis-server'). */
function pidsNamed(comm) {
  const pids = [];
  let entries = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return pids; // not Linux
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/**
 * CPU seconds of every process named `comm` plus what its exited children used (cutime and
 * cstime of the parent of the group, which reaps them): PostgreSQL forks a backend per connection,
 * and a backend that exits between two reads is then still counted. Null when none runs here
 * (e.g. a database on another host).
 */
export function groupCpuSeconds(comm) {
  const pids = pidsNamed(comm);
  if (pids.length === 0) return null;
  let ticks = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    if (!fields) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
    // The group's parent (its own parent is not one of them) also carries its reaped children.
    if (!pids.includes(Number(fields[1]))) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticks / clockTicks;
}

/** The machine's CPU time so far: busy and total seconds over all cores (/proc/stat). */
export function machineCpuSeconds() {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest is inside user already).
    const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
    const idle = values[3] + values[4];
    return { busy: (total - idle) / clockTicks, total: total / clockTicks };
  } catch {
    return null;
  }
}

/** Run-queue wait so far of each process named `comm`, by pid (seconds); null when none. */
function groupWaitSeconds(comm) {
  const pids = pidsNamed(comm);
  if (pids.length === 0) return null;
  return new Map(pids.map((pid) => [pid, processSchedSeconds(pid).waiting]));
}

/** What the processes alive at `after` waited since `before` (exited ones are left out). */
function waitDelta(before, after) {
  if (!before || !after) return null;
  let sum = 0;
  for (const [pid, waited] of after) sum += waited - (before.get(pid) ?? 0);
  return sum;
}

/**
 * A CPU meter over a window: `start()` then `stop()` gives, for each named pid, PostgreSQL,
 * Redis, this process and the machine, the cores used on average (CPU seconds per second), and
 * for the named pids and PostgreSQL how many of their threads waited for a CPU on average (run
 * queue seconds per second: above 0 means they were ready to run and no core was free).
 */
export function cpuMeter(pids) {
  let before;
  const read = () => ({
    at: performance.now(),
    pids: Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, processCpuSeconds(pid)]),
    ),
    waits: Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, processSchedSeconds(pid)]),
    ),
    postgres: groupCpuSeconds('postgres'),
    postgresWait: groupWaitSeconds('postgres'),
    redis: groupCpuSeconds('redis-server'),
    self: (() => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1e6;
    })(),
    machine: machineCpuSeconds(),
  });
  return {
    start() {
      before = read();
    },
    stop() {
      const after = read();
      const seconds = (after.at - before.at) / 1000;
      const cores = (a, b) => (a === null || b === null ? null : round((b - a) / seconds, 2));
      const machine =
        before.machine && after.machine
          ? {
              cores: round((after.machine.busy - before.machine.busy) / seconds, 2),
              busyShare: round(
                (after.machine.busy - before.machine.busy) /
                  (after.machine.total - before.machine.total),
                3,
              ),
            }
          : null;
      const processes = Object.fromEntries(
        Object.keys(pids).map((name) => [name, cores(before.pids[name], after.pids[name])]),
      );
      const waits = Object.fromEntries(
        Object.keys(pids).map((name) => [
          name,
          cores(before.waits[name].waiting, after.waits[name].waiting),
        ]),
      );
      const mainWaits = Object.fromEntries(
        Object.keys(pids).map((name) => [
          name,
          cores(before.waits[name].main.waiting, after.waits[name].main.waiting),
        ]),
      );
      const sum = (values) =>
        round(
          Object.values(values).reduce((total, value) => total + (value ?? 0), 0),
          2,
        );
      return {
        seconds: round(seconds, 2),
        processes,
        runQueue: {
          processes: waits,
          perchProcesses: sum(waits),
          // The main threads alone: time each event loop was ready to run and had no core.
          mainThreads: mainWaits,
          perchMainThreads: sum(mainWaits),
          // Backends that exited inside the window are left out (the pools keep theirs open).
          postgres: (() => {
            const waited = waitDelta(before.postgresWait, after.postgresWait);
            return waited === null ? null : round(waited / seconds, 2);
          })(),
        },
        perchProcesses: round(
          Object.values(processes).reduce((sum, value) => sum + (value ?? 0), 0),
          2,
        ),
        postgres: cores(before.postgres, after.postgres),
        redis: cores(before.redis, after.redis),
        benchProcess: cores(before.self, after.self),
        machine,
      };
    },
  };
}

export const round = (value, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value)
    ? null
    : Number(value.toFixed(digits));
