// Soak benchmark: does the whole server stay flat over a long run under steady monitoring,
// live-event streams and forwarding, with rate limits and an outage of the messaging services?
// Targets: RSS and V8 heap grow < 5% over the last 20 minutes, no error-level log line, and every
// post that should reach a user's Telegram chat and Discord DM arrives exactly once.
// Usage: npm run bench:soak   (prints Markdown tables, then one JSON line; 30 minutes by default)
//        node --import tsx bench/soak/run.mjs   (the server must be built: apps/server/dist)
//
// The real server (`node apps/server/dist/main.js`, one process in the default role 'all', on
// SQLite in a temp DATA_DIR) is started with bench/scale-out/cluster.mjs startNode. Before it
// starts, the database is set up straight through the built repositories: 200 handles of the
// demo source, already backfilled (their window ends now, so monitoring stores only the posts the
// demo source makes from now on), and 20 users with Telegram and Discord connected and the bot
// running, each following 10 handles with both channels on. MONITOR_INTERVAL_SECONDS=5 (its
// minimum) and DEMO_PAGE_DELAY_MS=25. This process hosts the loopback fakes of
// apps/server/test/fakes (TypeScript, hence tsx) with their default limits, and injects a forced
// 429 into each of them about once a minute and one outage of both (502 pages) halfway through
// (2 minutes; BENCH_SOAK_OUTAGE_SECONDS). The 20 users sign in through the API
// (POST /api/v1/auth/login) and keep GET /api/v1/events open (Server-Sent Events, reconnecting
// like EventSource).
//
// Sampled every BENCH_SOAK_SAMPLE_SECONDS (20; 10 for runs of 5 minutes or less) from the child's
// GET /metrics (prom-client default metrics): process_resident_memory_bytes,
// nodejs_heap_size_used_bytes and nodejs_eventloop_lag_p99_seconds (prom-client resets the delay
// histogram at every scrape, so each sample is the p99 since the previous one); the database file
// and its WAL; the error-level lines the child printed (JSON with level >= 50, and any stderr line
// that is not JSON); the machine's CPU busy share and load average (other work included).
//
// At the end: every post stored by then is expected once at its follower's Telegram chat and
// Discord DM (the demo source's posts are all wanted under the default preferences); the run waits
// up to BENCH_SOAK_DRAIN_SECONDS (180) for them, then counts lost and duplicated deliveries at
// the fakes (post links in the message text and embeds), and the live-event stream's tweet.new
// events per user.
//
// BENCH_SOAK_MINUTES (30), BENCH_SOAK_WARMUP_MINUTES (10); BENCH_SERVER_DIST=<dir> runs another
// build of apps/server/dist. Linux only for the machine CPU column (/proc).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeDiscordServer } from '../../apps/server/test/fakes/fake-discord-server.ts';
import { startFakeTelegramServer } from '../../apps/server/test/fakes/fake-telegram-server.ts';
import {
  dist,
  machineCpuSeconds,
  processCpuSeconds,
  round,
  startNode,
  DIST,
} from '../scale-out/cluster.mjs';
import { apiSession } from '../lib/api-session.mjs';
import { outboxCounts } from '../lib/deliveries.mjs';
import { percentile, sleep } from '../lib/stats.mjs';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const WARMUP_MINUTES = Number(process.env.BENCH_SOAK_WARMUP_MINUTES ?? 10);
const SAMPLE_S = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? (MINUTES <= 5 ? 10 : 20));
const OUTAGE_S = Number(
  process.env.BENCH_SOAK_OUTAGE_SECONDS ?? Math.min(120, Math.round(MINUTES * 60 * 0.2)),
);
const DRAIN_S = Number(process.env.BENCH_SOAK_DRAIN_SECONDS ?? 180);
const HANDLES = 200;
const USERS = 20;
const PER_USER = HANDLES / USERS;
const MONITOR_INTERVAL_SECONDS = 5;
const DEMO_PAGE_DELAY_MS = 25;
/** A forced 429 is queued at each fake every 40-80 s. */
const RATE_LIMIT_EVERY_S = [40, 80];
/** The growth target covers the last 20 minutes (or what is left after warm-up, if shorter). */
const GROWTH_WINDOW_MINUTES = Math.min(20, MINUTES - WARMUP_MINUTES);
const TARGET_GROWTH = 0.05;
const PASSWORD = 'Soak-passw0rd!';

const mb = (bytes) => (bytes === null || bytes === undefined ? null : round(bytes / 2 ** 20, 1));
const chatIdOf = (i) => String(300_000 + i);
const discordIdOf = (i) => String(82198898841039000n + BigInt(i));
const handleName = (h) => `soak_h${h}`;

const { loadConfig } = await dist('config.js');
const { createDb } = await dist('db/index.js');
const { migrateToLatest } = await dist('db/migrate.js');
const { insertUser } = await dist('modules/users/users.repository.js');
const {
  insertHandle,
  insertLink,
  setLinkNotifications: setHandleNotifications,
} = await dist('modules/handles/handles.repository.js');
const { upsertUserSettings } = await dist('modules/settings/settings.repository.js');
const { hashPassword } = await dist('modules/auth/passwords.js');
const { demoUserId } = await dist('sources/demo-source.js');

// ---------------------------------------------------------------------------------------------
// Set-up: the database before the server starts

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bench-soak-'));
const dbFile = path.join(dataDir, 'perch.db');
const openDb = async () => {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '' });
  return createDb(config);
};

async function seed() {
  const database = await openDb();
  await migrateToLatest(database);
  const { db } = database;
  const now = new Date().toISOString();
  const passwordHash = await hashPassword(PASSWORD);
  const users = [];
  for (let i = 0; i < USERS; i++) {
    const user = await insertUser(db, {
      username: `soak${i}`,
      email: `soak${i}@example.com`,
      passwordHash,
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: now,
    });
    await upsertUserSettings(db, user.id, {
      telegram_chat_id: chatIdOf(i),
      discord_user_id: discordIdOf(i),
      twitter_username: `soak${i}_x`,
      bot_running: true,
      updated_at: now,
    });
    users.push({ index: i, id: user.id, username: `soak${i}`, handleIds: [] });
  }
  for (let h = 0; h < HANDLES; h++) {
    const username = handleName(h);
    const handle = await insertHandle(db, { username, backfillDays: 1, now });
    // Backfilled up to now: monitoring stores (and forwards) only what is posted from now on.
    await db
      .updateTable('handles')
      .set({
        display_name: `Soak ${h}`,
        x_user_id: demoUserId(username),
        backfill_status: 'completed',
        backfill_progress: 100,
        initial_backfill_complete: true,
        backfill_window_end: now,
        profile_checked_at: now,
        next_poll_at: now,
      })
      .where('id', '=', handle.id)
      .execute();
    const user = users[Math.floor(h / PER_USER)];
    await insertLink(db, { userId: user.id, handleId: handle.id, backfillDays: 1, now });
    await setHandleNotifications(db, user.id, handle.id, {
      telegram_enabled: true,
      discord_enabled: true,
    });
    user.handleIds.push(handle.id);
  }
  await database.close();
  return { users, forwardingOnAt: now };
}

// ---------------------------------------------------------------------------------------------
// Signed-in users and their live-event streams

/** Signs a user in through the API; returns the cookie header of its session. */
async function signIn(origin, username) {
  const { cookies, cookieHeader, request } = apiSession(origin);
  await request('GET', '/api/v1/auth/check');
  for (let attempt = 0; ; attempt++) {
    const response = await request('POST', '/api/v1/auth/login', { username, password: PASSWORD });
    if (response.status === 200) break;
    if (response.status === 429 && attempt < 20) {
      const wait = Number(response.headers.get('retry-after') ?? 5);
      await sleep(Math.max(1, wait) * 1000);
      continue;
    }
    throw new Error(`login of ${username}: ${response.status} ${await response.text()}`);
  }
  if (!cookies.has('perch_session')) throw new Error(`login of ${username}: no session cookie`);
  return cookieHeader();
}

/**
 * GET /api/v1/events with the user's cookie, read as EventSource does: frames split on blank
 * lines, reconnecting `retry` ms after the stream ends or fails.
 */
function openEvents(origin, cookie) {
  const state = {
    connects: 0,
    ends: 0,
    failures: 0,
    keepAlives: 0,
    events: {},
    tweetIds: [],
    lastStatus: null,
  };
  const controller = new AbortController();
  let retryMs = 5000;
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(`${origin}/api/v1/events`, {
          headers: { cookie, accept: 'text/event-stream' },
          signal: controller.signal,
        });
        state.lastStatus = response.status;
        if (response.status !== 200) {
          state.failures += 1;
          await response.body?.cancel();
        } else {
          state.connects += 1;
          const decoder = new TextDecoder();
          let buffer = '';
          for await (const chunk of response.body) {
            buffer += decoder.decode(chunk, { stream: true });
            let end;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              let name = 'message';
              const data = [];
              for (const line of frame.split('\n')) {
                if (line.startsWith(':')) state.keepAlives += 1;
                else if (line.startsWith('event: ')) name = line.slice(7);
                else if (line.startsWith('data: ')) data.push(line.slice(6));
                else if (line.startsWith('retry: ')) retryMs = Number(line.slice(7)) || retryMs;
              }
              if (data.length === 0) continue;
              state.events[name] = (state.events[name] ?? 0) + 1;
              if (name === 'tweet.new') {
                const payload = JSON.parse(data.join('\n'));
                state.tweetIds.push(String(payload.tweet?.id));
              }
            }
          }
          if (!controller.signal.aborted) state.ends += 1;
        }
      } catch (error) {
        if (controller.signal.aborted) break;
        state.failures += 1;
        state.lastError = String(error?.cause?.code ?? error?.message ?? error);
      }
      if (!controller.signal.aborted) await sleep(retryMs);
    }
  };
  const done = run();
  return {
    state,
    async close() {
      controller.abort();
      await done;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The server's output: error-level lines

function watchOutput(node) {
  const counts = { errorLines: 0, stderrOther: 0, warnLines: 0, lines: 0 };
  const examples = [];
  const warnExamples = [];
  const seen = (line, fromStderr) => {
    if (!line.trim()) return;
    counts.lines += 1;
    let level = null;
    try {
      const parsed = JSON.parse(line);
      if (parsed && typeof parsed === 'object') level = Number(parsed.level);
    } catch {
      level = null;
    }
    if (level !== null && Number.isFinite(level)) {
      if (level >= 50) {
        counts.errorLines += 1;
        if (examples.length < 5) examples.push(line.slice(0, 600));
      } else if (level >= 40) {
        counts.warnLines += 1;
        if (warnExamples.length < 5) warnExamples.push(line.slice(0, 600));
      }
    } else if (fromStderr) {
      counts.stderrOther += 1;
      if (examples.length < 5) examples.push(`stderr: ${line.slice(0, 600)}`);
    }
  };
  // What startNode kept of the output printed before it returned (JSON lines go to stdout).
  for (const line of node.output().split('\n')) seen(line, false);
  for (const [stream, fromStderr] of [
    [node.child.stdout, false],
    [node.child.stderr, true],
  ]) {
    let rest = '';
    stream.on('data', (chunk) => {
      rest += chunk.toString();
      const lines = rest.split('\n');
      rest = lines.pop();
      for (const line of lines) seen(line, fromStderr);
    });
  }
  return { counts, examples, warnExamples };
}

// ---------------------------------------------------------------------------------------------
// Sampling

function parseMetrics(text) {
  const values = new Map();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.trim()) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match) values.set(match[1] + (match[2] ?? ''), Number(match[3]));
  }
  return values;
}

const fileSize = (file) => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
};

function sampler(node, output, startedAt) {
  const samples = [];
  let lastMachine = machineCpuSeconds();
  let lastServer = { at: performance.now(), cpu: processCpuSeconds(node.pid) };
  const take = async () => {
    let metrics = null;
    try {
      const response = await fetch(`${node.origin}/metrics`);
      metrics = parseMetrics(await response.text());
    } catch {
      metrics = null;
    }
    const machine = machineCpuSeconds();
    const server = { at: performance.now(), cpu: processCpuSeconds(node.pid) };
    const busy =
      machine && lastMachine
        ? (machine.busy - lastMachine.busy) / Math.max(1e-9, machine.total - lastMachine.total)
        : null;
    const serverCores = (server.cpu - lastServer.cpu) / ((server.at - lastServer.at) / 1000);
    lastMachine = machine;
    lastServer = server;
    const get = (name) => metrics?.get(name) ?? null;
    const deliveries = {};
    const jobs = {};
    for (const [key, value] of metrics ?? []) {
      const match = /^perch_deliveries\{(.*)\}$/.exec(key);
      if (match && value > 0) deliveries[match[1].replace(/"/g, '')] = value;
      const job = /^perch_jobs_total\{(.*)\}$/.exec(key);
      if (job) jobs[job[1].replace(/"/g, '')] = value;
    }
    samples.push({
      t: round((Date.now() - startedAt) / 1000, 0),
      rss: get('process_resident_memory_bytes'),
      heapUsed: get('nodejs_heap_size_used_bytes'),
      heapTotal: get('nodejs_heap_size_total_bytes'),
      lagP99Ms: get('nodejs_eventloop_lag_p99_seconds') * 1000,
      lagMaxMs: get('nodejs_eventloop_lag_max_seconds') * 1000,
      db: fileSize(dbFile),
      wal: fileSize(`${dbFile}-wal`),
      errorLines: output.counts.errorLines + output.counts.stderrOther,
      serverCores: round(serverCores, 2),
      machineBusy: busy === null ? null : round(busy, 3),
      load1: round(os.loadavg()[0], 2),
      deliveries,
      jobs,
    });
  };
  return { samples, take };
}

/** Least-squares line through (x, y). */
function fit(points) {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, at: (x) => my + slope * (x - mx) };
}

function trend(samples, key, warmupS, windowS, endS) {
  const after = samples.filter((s) => s.t >= warmupS && s[key] !== null);
  const line = fit(after.map((s) => [s.t / 60, s[key]]));
  const windowSamples = samples.filter((s) => s.t >= endS - windowS && s[key] !== null);
  const windowLine = fit(windowSamples.map((s) => [s.t / 60, s[key]]));
  const from = (endS - windowS) / 60;
  const to = endS / 60;
  const growth = windowLine ? windowLine.at(to) / windowLine.at(from) - 1 : null;
  const first = windowSamples[0]?.[key] ?? null;
  const last = windowSamples.at(-1)?.[key] ?? null;
  return {
    slopeMbPerMin: line ? round(line.slope / 2 ** 20, 3) : null,
    growthFitted: growth === null ? null : round(growth, 4),
    firstInWindow: mb(first),
    lastInWindow: mb(last),
    growthRaw: first ? round(last / first - 1, 4) : null,
    min: mb(Math.min(...after.map((s) => s[key]))),
    max: mb(Math.max(...after.map((s) => s[key]))),
  };
}

// ---------------------------------------------------------------------------------------------
// Deliveries: what the database says should have arrived, and what the fakes got

const postIdsIn = (text) =>
  new Set([...String(text ?? '').matchAll(/status\/(\d+)/g)].map((m) => m[1]));
const telegramIds = (m) => postIdsIn(m.raw);
const discordIds = (m) =>
  postIdsIn([m.content ?? '', ...m.embeds.map((e) => JSON.stringify(e))].join('\n'));

async function storedPosts() {
  const database = await openDb();
  try {
    const rows = await database.db
      .selectFrom('tweets')
      .select(['tweet_id', 'handle_id', 'first_seen_at', 'fanout_pending'])
      .execute();
    const outbox = await outboxCounts(database.db);
    return { rows, outbox: outbox.map((r) => ({ ...r, count: Number(r.count) })) };
  } finally {
    await database.close();
  }
}

function tally(users, expectedRows, telegram, discord) {
  const ownerOf = new Map();
  for (const user of users) for (const id of user.handleIds) ownerOf.set(id, user);
  const expected = new Map(); // tweet id -> user index
  for (const row of expectedRows) expected.set(row.tweet_id, ownerOf.get(row.handle_id).index);
  const channel = (messages, targetOf, idsOf, targetIndex) => {
    const counts = new Map();
    let messagesWithPosts = 0;
    let multiPost = 0;
    let stray = 0;
    for (const message of messages) {
      const user = targetIndex.get(targetOf(message));
      const ids = [...idsOf(message)].filter((id) => expected.has(id));
      if (ids.length > 0) messagesWithPosts += 1;
      if (ids.length > 1) multiPost += 1;
      for (const id of idsOf(message)) {
        if (!expected.has(id)) continue;
        if (expected.get(id) !== user) {
          stray += 1;
          continue;
        }
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    }
    let lost = 0;
    let duplicated = 0;
    const lostIds = [];
    const duplicatedIds = [];
    for (const id of expected.keys()) {
      const n = counts.get(id) ?? 0;
      if (n === 0) {
        lost += 1;
        if (lostIds.length < 10) lostIds.push(id);
      }
      if (n > 1) {
        duplicated += n - 1;
        if (duplicatedIds.length < 10) duplicatedIds.push(id);
      }
    }
    return {
      expected: expected.size,
      delivered: [...counts.values()].filter((n) => n > 0).length,
      messages: messages.length,
      messagesWithPosts,
      digests: multiPost,
      lost,
      duplicated,
      toWrongUser: stray,
      lostIds,
      duplicatedIds,
    };
  };
  const chatIndex = new Map(users.map((u) => [chatIdOf(u.index), u.index]));
  const discordIndex = new Map(users.map((u) => [discordIdOf(u.index), u.index]));
  return {
    telegram: channel(telegram.messages, (m) => String(m.chatId), telegramIds, chatIndex),
    discord: channel(discord.messages, (m) => String(m.userId), discordIds, discordIndex),
  };
}

function countReceived(messages, idsOf, expected) {
  let n = 0;
  for (const message of messages) for (const id of idsOf(message)) if (expected.has(id)) n += 1;
  return n;
}

// ---------------------------------------------------------------------------------------------
// The run

const runStarted = new Date();
const { users, forwardingOnAt } = await seed();
const dbStartBytes = fileSize(dbFile) + fileSize(`${dbFile}-wal`);
const telegram = await startFakeTelegramServer();
const discord = await startFakeDiscordServer();
const node = await startNode('soak', {
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  REDIS_URL: '',
  PERCH_ROLE: 'all',
  TWEET_SOURCE: 'demo',
  X_BEARER_TOKEN: '',
  MONITOR_INTERVAL_SECONDS: String(MONITOR_INTERVAL_SECONDS),
  DEMO_PAGE_DELAY_MS: String(DEMO_PAGE_DELAY_MS),
  TELEGRAM_BOT_TOKEN: telegram.token,
  TELEGRAM_API_BASE_URL: telegram.baseUrl,
  TELEGRAM_POLL_UPDATES: 'false',
  DISCORD_BOT_TOKEN: discord.token,
  DISCORD_API_BASE_URL: discord.baseUrl,
  LOG_LEVEL: 'warn',
});
const output = watchOutput(node);
const startedAt = Date.now();
console.error(`soak: server pid ${node.pid} at ${node.origin}, DATA_DIR ${dataDir}`);

const sessions = [];
for (const user of users) sessions.push(await signIn(node.origin, user.username));
const streams = sessions.map((cookie) => openEvents(node.origin, cookie));

const { samples, take } = sampler(node, output, startedAt);
await take();
const durationMs = MINUTES * 60_000;
const outageAt = startedAt + durationMs / 2;
let outage = null;
const injected = { telegram429: 0, discord429: 0 };
const nextRateLimit = () =>
  Date.now() +
  1000 * (RATE_LIMIT_EVERY_S[0] + Math.random() * (RATE_LIMIT_EVERY_S[1] - RATE_LIMIT_EVERY_S[0]));
let rateLimitAt = nextRateLimit();
let nextSample = startedAt + SAMPLE_S * 1000;
while (Date.now() < startedAt + durationMs) {
  await sleep(250);
  const now = Date.now();
  if (outage === null && OUTAGE_S > 0 && now >= outageAt) {
    telegram.setDown(true);
    discord.setDown(true);
    outage = { fromS: round((now - startedAt) / 1000, 0), toS: null };
    console.error(`soak: outage of both services from ${outage.fromS} s`);
  }
  if (outage && outage.toS === null && now >= outageAt + OUTAGE_S * 1000) {
    telegram.setDown(false);
    discord.setDown(false);
    outage.toS = round((now - startedAt) / 1000, 0);
    console.error(`soak: services back at ${outage.toS} s`);
  }
  if (now >= rateLimitAt && !(outage && outage.toS === null)) {
    telegram.rateLimitNext(1, 2);
    discord.rateLimitNext(1, { retryAfter: 1.5 });
    injected.telegram429 += 1;
    injected.discord429 += 1;
    rateLimitAt = nextRateLimit();
  }
  if (now >= nextSample) {
    nextSample += SAMPLE_S * 1000;
    await take();
    const s = samples.at(-1);
    console.error(
      `soak: ${s.t} s rss ${mb(s.rss)} MB heap ${mb(s.heapUsed)} MB lag p99 ${round(s.lagP99Ms, 1)} ms db ${mb(s.db + s.wal)} MB errors ${s.errorLines} tg ${telegram.messages.length} dc ${discord.messages.length}`,
    );
  }
}
const endS = (Date.now() - startedAt) / 1000;
await take();

// Posts stored by the end: each one is owed to its follower on both channels.
const atEnd = await storedPosts();
const expectedRows = atEnd.rows;
const expectedIds = new Set(expectedRows.map((r) => r.tweet_id));
const drainStarted = Date.now();
while (Date.now() - drainStarted < DRAIN_S * 1000) {
  const tg = countReceived(telegram.messages, telegramIds, expectedIds);
  const dc = countReceived(discord.messages, discordIds, expectedIds);
  if (tg >= expectedIds.size && dc >= expectedIds.size) break;
  await sleep(1000);
}
const drainSeconds = round((Date.now() - drainStarted) / 1000, 1);
const afterDrain = await storedPosts();
const deliveries = tally(users, expectedRows, telegram, discord);

// Live events: tweet.new per user, for the posts of its handles.
const ownerOf = new Map();
for (const user of users) for (const id of user.handleIds) ownerOf.set(id, user.index);
const live = streams.map((stream, i) => {
  const mine = new Set(
    expectedRows.filter((r) => ownerOf.get(r.handle_id) === i).map((r) => r.tweet_id),
  );
  const got = new Set(stream.state.tweetIds);
  let missed = 0;
  for (const id of mine) if (!got.has(id)) missed += 1;
  const foreign = stream.state.tweetIds.filter((id) => expectedIds.has(id) && !mine.has(id)).length;
  return {
    expected: mine.size,
    received: stream.state.tweetIds.length,
    missed,
    foreign,
    ...stream.state,
  };
});
await Promise.all(streams.map((s) => s.close()));
const serverOutput = node.output();
await node.stop(10_000);
await telegram.close();
await discord.close();
fs.rmSync(dataDir, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------
// Report

const warmupS = WARMUP_MINUTES * 60;
const windowS = GROWTH_WINDOW_MINUTES * 60;
const rss = trend(samples, 'rss', warmupS, windowS, endS);
const heap = trend(samples, 'heapUsed', warmupS, windowS, endS);
const lagAfter = samples.filter((s) => s.t >= warmupS && Number.isFinite(s.lagP99Ms));
const lag = {
  p99MedianMs: round(
    percentile(
      lagAfter.map((s) => s.lagP99Ms),
      50,
    ),
    1,
  ),
  p99WorstMs: round(Math.max(...lagAfter.map((s) => s.lagP99Ms)), 1),
  maxMs: round(Math.max(...lagAfter.map((s) => s.lagMaxMs)), 1),
};
const busy = samples.map((s) => s.machineBusy).filter((v) => v !== null);
const load = {
  machineBusyMean: round(busy.reduce((a, b) => a + b, 0) / Math.max(1, busy.length), 3),
  serverCoresMean: round(
    samples.slice(1).reduce((a, s) => a + s.serverCores, 0) / Math.max(1, samples.length - 1),
    2,
  ),
  load1Mean: round(samples.reduce((a, s) => a + s.load1, 0) / samples.length, 2),
  load1Max: round(Math.max(...samples.map((s) => s.load1)), 2),
  cpus: os.cpus().length,
};
const lastSample = samples.at(-1);
const errorLines = output.counts.errorLines + output.counts.stderrOther;
const lost = deliveries.telegram.lost + deliveries.discord.lost;
const duplicated = deliveries.telegram.duplicated + deliveries.discord.duplicated;
const targets = {
  rssGrowth: rss.growthFitted !== null && rss.growthFitted < TARGET_GROWTH,
  heapGrowth: heap.growthFitted !== null && heap.growthFitted < TARGET_GROWTH,
  errorLines: errorLines === 0,
  lost: lost === 0,
  duplicated: duplicated === 0,
};
const met = (ok) => (ok ? 'met' : '**not met**');
const pct = (v) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);

// The table: about 12 rows, evenly spread over the run.
const step = Math.max(1, Math.round(samples.length / 12));
const rows = samples.filter((_, i) => i % step === 0 || i === samples.length - 1);
const liveTotals = {
  expected: live.reduce((a, l) => a + l.expected, 0),
  received: live.reduce((a, l) => a + l.received, 0),
  missed: live.reduce((a, l) => a + l.missed, 0),
  foreign: live.reduce((a, l) => a + l.foreign, 0),
  connects: live.reduce((a, l) => a + l.connects, 0),
  failures: live.reduce((a, l) => a + l.failures, 0),
};
const outboxLine = (outbox) =>
  outbox.map((r) => `${r.channel} ${r.status} ${r.count}`).join(', ') || 'empty';

console.log(`
Soak: ${HANDLES} handles (demo source, MONITOR_INTERVAL_SECONDS=${MONITOR_INTERVAL_SECONDS}, DEMO_PAGE_DELAY_MS=${DEMO_PAGE_DELAY_MS}), ${USERS} users x ${PER_USER} handles with live events open and Telegram + Discord forwarding; ${round(endS / 60, 1)} minutes, warm-up ${WARMUP_MINUTES} min, a sample every ${SAMPLE_S} s

| minute | RSS MB | V8 heap used MB | event-loop p99 ms | database + WAL MB | error lines | server CPU cores | machine busy |
|---|---|---|---|---|---|---|---|
${rows
  .map(
    (s) =>
      `| ${(s.t / 60).toFixed(1)} | ${mb(s.rss)} | ${mb(s.heapUsed)} | ${round(s.lagP99Ms, 1)} | ${mb(s.db + s.wal)} | ${s.errorLines} | ${s.serverCores ?? ''} | ${s.machineBusy === null ? '' : pct(s.machineBusy)} |`,
  )
  .join('\n')}

| measure | RSS | V8 heap used | target |
|---|---|---|---|
| slope after warm-up (MB/min, least squares) | ${rss.slopeMbPerMin} | ${heap.slopeMbPerMin} | |
| range after warm-up (MB) | ${rss.min} - ${rss.max} | ${heap.min} - ${heap.max} | |
| last ${GROWTH_WINDOW_MINUTES} min: first / last sample (MB) | ${rss.firstInWindow} / ${rss.lastInWindow} (${pct(rss.growthRaw)}) | ${heap.firstInWindow} / ${heap.lastInWindow} (${pct(heap.growthRaw)}) | |
| growth over the last ${GROWTH_WINDOW_MINUTES} min (fitted line) | ${pct(rss.growthFitted)} | ${pct(heap.growthFitted)} | < 5%: ${met(targets.rssGrowth)} / ${met(targets.heapGrowth)} |

| measure | value | target |
|---|---|---|
| event-loop delay p99 after warm-up (median of samples / worst sample / max) | ${lag.p99MedianMs} / ${lag.p99WorstMs} / ${lag.maxMs} ms | |
| database + WAL, start / end | ${mb(dbStartBytes)} / ${mb(lastSample.db + lastSample.wal)} MB (file ${mb(lastSample.db)}, WAL ${mb(lastSample.wal)}) | |
| posts stored (all forwarded) | ${expectedRows.length} | |
| error-level log lines (JSON level >= 50 + other stderr lines) | ${output.counts.errorLines} + ${output.counts.stderrOther} (warn lines: ${output.counts.warnLines}) | 0: ${met(targets.errorLines)} |
| Telegram: delivered / expected, lost, duplicated | ${deliveries.telegram.delivered} / ${deliveries.telegram.expected}, ${deliveries.telegram.lost}, ${deliveries.telegram.duplicated} (${deliveries.telegram.messages} messages, ${deliveries.telegram.digests} with several posts) | |
| Discord: delivered / expected, lost, duplicated | ${deliveries.discord.delivered} / ${deliveries.discord.expected}, ${deliveries.discord.lost}, ${deliveries.discord.duplicated} (${deliveries.discord.messages} messages, ${deliveries.discord.digests} with several posts) | |
| lost / duplicated, both channels | ${lost} / ${duplicated} | 0 / 0: ${met(targets.lost)} / ${met(targets.duplicated)} |
| drain after the end (until all arrived, at most ${DRAIN_S} s) | ${drainSeconds} s | |
| outbox at the end / after the drain | ${outboxLine(atEnd.outbox)} / ${outboxLine(afterDrain.outbox)} | |
| injected: forced 429s (Telegram / Discord), outage | ${injected.telegram429} / ${injected.discord429}, both down ${outage ? `${outage.fromS}-${outage.toS} s` : 'none'}; 429s answered: Telegram ${telegram.requests.filter((r) => r.status === 429).length}, Discord ${discord.requests.filter((r) => r.status === 429).length} | |
| live events (tweet.new for own handles): received / expected, missed, other users' | ${liveTotals.received} / ${liveTotals.expected}, ${liveTotals.missed}, ${liveTotals.foreign} (${liveTotals.connects} connections, ${liveTotals.failures} failed) | |
| machine during the run | ${load.cpus} CPUs, ${pct(load.machineBusyMean)} busy on average (Perch ${load.serverCoresMean} cores), load average 1 min mean ${load.load1Mean}, max ${load.load1Max} | |

Targets: RSS growth < 5% ${met(targets.rssGrowth)}, heap growth < 5% ${met(targets.heapGrowth)}, 0 error lines ${met(targets.errorLines)}, 0 lost ${met(targets.lost)}, 0 duplicated ${met(targets.duplicated)}
${output.examples.length ? `\nError lines (first ${output.examples.length}):\n${output.examples.map((l) => `    ${l}`).join('\n')}\n` : ''}`);
console.log(
  JSON.stringify({
    startedAt: runStarted.toISOString(),
    forwardingOnAt,
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
    server: DIST,
    minutes: round(endS / 60, 2),
    warmupMinutes: WARMUP_MINUTES,
    growthWindowMinutes: GROWTH_WINDOW_MINUTES,
    sampleSeconds: SAMPLE_S,
    rss,
    heap,
    eventLoop: lag,
    database: {
      startBytes: dbStartBytes,
      endBytes: lastSample.db + lastSample.wal,
      fileBytes: lastSample.db,
      walBytes: lastSample.wal,
    },
    errorLines: { ...output.counts, examples: output.examples, warnExamples: output.warnExamples },
    posts: expectedRows.length,
    deliveries,
    drainSeconds,
    outbox: { atEnd: atEnd.outbox, afterDrain: afterDrain.outbox },
    injected: { ...injected, outage },
    live: liveTotals,
    load,
    targets,
    samples: samples.map(({ deliveries: d, jobs: j, ...s }) => ({
      ...s,
      jobs: j,
      rss: mb(s.rss),
      heapUsed: mb(s.heapUsed),
      heapTotal: mb(s.heapTotal),
      lagP99Ms: round(s.lagP99Ms, 2),
      lagMaxMs: round(s.lagMaxMs, 2),
      pending: d,
    })),
    serverOutputTail: errorLines > 0 ? serverOutput.slice(-2000) : undefined,
  }),
);
