// Instruments of the alerts benchmark. None of them changes what the server code does.
//
// - statementTimer: a Kysely plugin that counts and times every statement (from its compilation
//   to its result, so on PostgreSQL the round trip and any wait for a pooled connection are in
//   it), labelled by what it does and to which table: `insert alert_firings`.
// - cpuProfile: the V8 CPU profiler (what `node --cpu-prof` runs) around one stretch of work
//   only, through node:inspector, so setting up the database does not drown the part measured.
// - summarizeProfile: where a profile's time went, by library and by function.
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import path from 'node:path';

const VERB = {
  SelectQueryNode: 'select',
  InsertQueryNode: 'insert',
  UpdateQueryNode: 'update',
  DeleteQueryNode: 'delete',
};

/** The first table an operation node names (depth first), or undefined. */
function firstTable(node) {
  if (node === null || typeof node !== 'object') return undefined;
  if (node.kind === 'TableNode') return node.table?.identifier?.name;
  for (const value of Object.values(node)) {
    const found = Array.isArray(value)
      ? value.map(firstTable).find((name) => name !== undefined)
      : firstTable(value);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `select tweets`, `insert alert_firings`, ... */
function labelOf(node) {
  return `${VERB[node.kind] ?? node.kind} ${firstTable(node) ?? '?'}`;
}

/**
 * Counts and times the statements run through a database given `plugin` (Kysely's withPlugin),
 * per phase: set `phase` before each stretch of work; `byPhase` holds label -> { count, ms }.
 */
export function statementTimer() {
  const started = new WeakMap();
  const timer = {
    phase: 'other',
    byPhase: {},
    plugin: {
      transformQuery({ node, queryId }) {
        started.set(queryId, { at: performance.now(), label: labelOf(node), phase: timer.phase });
        return node;
      },
      async transformResult({ result, queryId }) {
        const start = started.get(queryId);
        if (start) {
          const phase = (timer.byPhase[start.phase] ??= {});
          const stats = (phase[start.label] ??= { count: 0, ms: 0 });
          stats.count += 1;
          stats.ms += performance.now() - start.at;
        }
        return result;
      },
    },
  };
  return timer;
}

/** Runs `work` under the V8 CPU profiler (sampling every 100 µs); returns its result and profile. */
export async function cpuProfile(work) {
  const session = new inspector.Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    return { result, profile };
  } finally {
    session.disconnect();
  }
}

/** Writes a profile where Chrome DevTools (Performance, Load profile) can open it. */
export function saveProfile(profile, dir, name) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.cpuprofile`);
  fs.writeFileSync(file, JSON.stringify(profile));
  return file;
}

/** The statement methods of better-sqlite3 (native: the SQLite library runs inside them). */
const SQLITE_NATIVE = new Set(['all', 'run', 'get', 'iterate', 'prepare', 'exec']);

/** Where a function of the profile belongs. */
function categoryOf({ functionName, url }) {
  if (functionName === '(idle)') return 'idle (waiting: PostgreSQL round trips, timers)';
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 itself (compiling, runtime)';
  if (url === '' && SQLITE_NATIVE.has(functionName)) return 'SQLite (better-sqlite3 statements)';
  if (url.includes('/better-sqlite3/')) return 'SQLite (better-sqlite3 statements)';
  if (url.includes('/kysely/')) return 'Kysely (building and compiling queries)';
  if (url.includes('/zod/')) return 'zod (parsing stored rule kinds)';
  if (/\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//.test(url)) return 'pg driver';
  if (url.includes('/dist/alerts/')) return 'alerts/ (evaluation.ts and the rules)';
  if (url.includes('/dist/notify/')) return 'notify/ (word filter, chats)';
  if (url.includes('/apps/server/dist/') || url.includes('/server/dist/')) return 'server, other';
  if (url.includes('/packages/shared/')) return '@perch/shared';
  if (url.startsWith('node:')) return 'Node internals';
  if (url === '') return 'native, other';
  return 'other';
}

/**
 * A profile's time by category and its `top` functions by self time, in ms and shares of the
 * profile's duration.
 */
export function summarizeProfile(profile, top = 12) {
  const counts = new Map();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const msPerSample = totalMs / profile.samples.length;
  const categories = new Map();
  const functions = new Map();
  for (const node of profile.nodes) {
    const hits = counts.get(node.id) ?? 0;
    if (hits === 0) continue;
    const ms = hits * msPerSample;
    const category = categoryOf(node.callFrame);
    categories.set(category, (categories.get(category) ?? 0) + ms);
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
    const entry = functions.get(key) ?? { ms: 0, category };
    entry.ms += ms;
    functions.set(key, entry);
  }
  const round = (ms) => Number(ms.toFixed(1));
  const share = (ms) => Number(((ms / totalMs) * 100).toFixed(1));
  return {
    totalMs: round(totalMs),
    categories: [...categories]
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => ({ name, ms: round(ms), share: share(ms) })),
    functions: [...functions]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, top)
      .map(([name, { ms, category }]) => ({ name, category, ms: round(ms), share: share(ms) })),
  };
}
