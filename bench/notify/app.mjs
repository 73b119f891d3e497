// The delivery side of the notify benchmark, in its own process as in production: the built
// server's database, outbox and DeliveryWorker, wired like apps/server/src/main.ts wires them
// (createNotifyChannels from the config, NOTIFY_CONCURRENCY, default tick), talking over HTTP to
// the fakes that bench/notify/run.mjs hosts. Run by run.mjs with fork(); it is told what to do
// over IPC:
//
//   parent -> { type: 'store', handle, tweets, createdAt? }   store new tweets as monitoring does
//   parent -> { type: 'stop' }                                 stop the worker, report, exit
//   child  -> { type: 'ready', setupMs, userIds, handleIds }
//   child  -> { type: 'stored', handle, tweetIds, at, upsertMs }
//   child  -> { type: 'report', ... }
//
// Setup (BENCH_NOTIFY_SETUP, JSON): `users` users, each with a Telegram chat and a Discord user
// connected, an X username and the bot running; `handles` handles that every user follows with
// both toggles on. The instruments below (SQLite time per statement, rate-gate waits, client
// calls, sends in flight, event-loop delay) watch the worker without changing what it does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';
import { outboxCounts } from '../lib/deliveries.mjs';
import { postMaker, seedSubscribedHandles } from '../lib/subscribers.mjs';

/** The built server; BENCH_SERVER_DIST points at another build (e.g. one with a change to try). */
const dist = process.env.BENCH_SERVER_DIST
  ? pathToFileURL(path.resolve(process.env.BENCH_SERVER_DIST)).href
  : '../../apps/server/dist';
const { loadConfig } = await import(`${dist}/config.js`);
const { createDb } = await import(`${dist}/db/index.js`);
const { migrateToLatest } = await import(`${dist}/db/migrate.js`);
const { insertUser } = await import(`${dist}/modules/users/users.repository.js`);
const { upsertUserSettings } = await import(`${dist}/modules/settings/settings.repository.js`);
const {
  insertHandle,
  insertLink,
  setLinkNotifications: setHandleNotifications,
} = await import(`${dist}/modules/handles/handles.repository.js`);
const { upsertTweets } = await import(`${dist}/modules/tweets/tweets.repository.js`);
const { createNotifyChannels } = await import(`${dist}/notify/channels.js`);
const { DeliveryWorker } = await import(`${dist}/notify/delivery-worker.js`);

const setup = JSON.parse(process.env.BENCH_NOTIFY_SETUP);
const send = (message) => process.send(message);

// ---------------------------------------------------------------------------------------------
// Measuring instruments. None of them changes what the worker does.

/** What a statement is for, from its SQL. */
function purposeOf(sql) {
  if (/^update "notification_outbox" set "status" = \?, "claimed_by" = \?/.test(sql))
    return 'claim';
  if (/^select .* from "delivery_chats"|"delivery_chat_locks"|^update "delivery_chats"/.test(sql)) {
    return 'claim';
  }
  if (/^select "id", "status", "next_attempt_at" from "notification_outbox"/.test(sql)) {
    return 'claim';
  }
  if (/^update "notification_outbox" set "status" = \?, "next_attempt_at" = \?/.test(sql)) {
    return 'retryOrRelease';
  }
  if (/^update "notification_outbox" set "status" = \?, "sent_at"/.test(sql)) return 'markSent';
  if (/^update "notification_outbox"/.test(sql)) return 'otherOutboxUpdate';
  if (/fanout_pending|^insert into "notification_outbox"|inner join "user_settings"/.test(sql)) {
    return 'fanOut';
  }
  if (/^select .* from "(tweets|handles|user_settings|user_handles)" where/.test(sql)) {
    return 'deliveryContext';
  }
  if (/^(begin|commit|rollback)/.test(sql)) return 'transaction';
  return 'other';
}

/**
 * SQLite execution time per statement, measured around better-sqlite3's own calls (so it is the
 * time the statement held the event loop, not time spent queueing for the connection). IN lists
 * of any length count as one statement.
 */
const statements = new Map();
{
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  for (const method of ['all', 'run', 'get']) {
    const original = proto[method];
    proto[method] = function timed(...args) {
      const at = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const ms = performance.now() - at;
        const key = this.source.replace(/\(\?(, \?)*\)/g, '(?...)');
        const stats = statements.get(key) ?? { count: 0, ms: 0, maxMs: 0 };
        stats.count += 1;
        stats.ms += ms;
        stats.maxMs = Math.max(stats.maxMs, ms);
        statements.set(key, stats);
      }
    };
  }
}

/** How long sends waited in the clients' rate gates. */
function watchGate(gate, waits) {
  const acquire = gate.acquire.bind(gate);
  gate.acquire = async (key, signal, weight) => {
    const at = performance.now();
    await acquire(key, signal, weight);
    const ms = performance.now() - at;
    waits.count += 1;
    waits.ms += ms;
    if (ms >= 1) waits.waited += 1;
    waits.maxMs = Math.max(waits.maxMs, ms);
  };
}

/** Event-loop delay: a 10 ms timer's lateness (the histogram holds the interval plus the delay). */
const LOOP_RESOLUTION_MS = 10;
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });

// ---------------------------------------------------------------------------------------------
// The app.

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bench-notify-'));
const config = loadConfig({
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  TELEGRAM_BOT_TOKEN: setup.telegram.token,
  TELEGRAM_API_BASE_URL: setup.telegram.baseUrl,
  DISCORD_BOT_TOKEN: setup.discord.token,
  DISCORD_API_BASE_URL: setup.discord.baseUrl,
});
const plainDb = createDb(config, { checkpointer: true });
await migrateToLatest(plainDb);

const setupStarted = performance.now();
const { userIds, handleIds } = await seedSubscribedHandles(
  plainDb.db,
  { insertUser, upsertUserSettings, insertHandle, insertLink, setHandleNotifications },
  {
    users: setup.users,
    handles: setup.handles,
    userName: (i) => `bench${i}`,
    chatIdOf: (i) => setup.chatIds[i],
    discordIdOf: (i) => setup.discordIds[i],
    handleName: (h) => `bench_author${h}`,
    handleFields: (h) => ({
      display_name: `Bench Author ${h}`,
      x_user_id: `4242${h}`,
      backfill_status: 'completed',
      initial_backfill_complete: true,
      next_poll_at: '2999-01-01T00:00:00.000Z',
    }),
  },
);
const setupMs = performance.now() - setupStarted;

const channels = createNotifyChannels(config);
const gateWaits = {
  telegram: { count: 0, waited: 0, ms: 0, maxMs: 0 },
  discord: { count: 0, waited: 0, ms: 0, maxMs: 0 },
};
watchGate(channels.telegramGate, gateWaits.telegram);
watchGate(channels.discordGate, gateWaits.discord);
/** Time inside the clients' calls: rate-gate and bucket waits plus the HTTP round trip. */
const calls = {};
function watchCall(client, method, name) {
  const original = client[method].bind(client);
  const stats = (calls[name] = { count: 0, ms: 0, maxMs: 0, over1s: 0 });
  client[method] = async (...args) => {
    const at = performance.now();
    try {
      return await original(...args);
    } finally {
      const ms = performance.now() - at;
      stats.count += 1;
      stats.ms += ms;
      stats.maxMs = Math.max(stats.maxMs, ms);
      if (ms >= 1000) stats.over1s += 1;
    }
  };
}
watchCall(channels.telegram, 'sendMessage', 'telegram.sendMessage');
watchCall(channels.discord, 'openDm', 'discord.openDm');
watchCall(channels.discord, 'send', 'discord.send');
const worker = new DeliveryWorker({
  db: plainDb,
  channels,
  concurrency: config.NOTIFY_CONCURRENCY,
  // Throughput per message: every row goes as its own message, not as a digest.
  digestAfter: 0,
});
statements.clear();
const workerStarted = performance.now();
await worker.start();
loopDelay.enable();

/**
 * Sends in flight per channel, sampled every 20 ms (read from the worker's in-flight map; only
 * `busy`, the total, is public).
 */
const busy = {
  samples: 0,
  telegram: { sum: 0, full: 0 },
  discord: { sum: 0, full: 0 },
};
const sampler = setInterval(() => {
  busy.samples += 1;
  const counts = { telegram: 0, discord: 0 };
  for (const entry of worker.inFlight?.values() ?? []) counts[entry.channel] += 1;
  for (const channel of ['telegram', 'discord']) {
    busy[channel].sum += counts[channel];
    if (counts[channel] >= config.NOTIFY_CONCURRENCY) busy[channel].full += 1;
  }
}, 20);

const makeTweet = postMaker(
  1_900_000_000_000_000_000n + BigInt(process.pid) * 1_000_000n,
  (id) => `Benchmark tweet ${id}: fan-out & pacing <check>`,
);

async function store({ handle, tweets, createdAt }) {
  const base = createdAt ?? Date.now();
  const batch = Array.from({ length: tweets }, (_, i) =>
    makeTweet(new Date(base - (tweets - i) * 1000).toISOString()),
  );
  const t0 = performance.now();
  // What monitoring does on a poll that found new tweets: one upsert with the fan-out marker,
  // then the collector's 'tweet.new' event wakes the worker (main.ts).
  await upsertTweets(plainDb.db, handleIds[handle], batch, new Date().toISOString(), {
    markForFanout: true,
  });
  const at = Date.now();
  worker.wake();
  send({
    type: 'stored',
    handle,
    tweetIds: batch.map((t) => t.id),
    at,
    upsertMs: performance.now() - t0,
  });
}

async function stop() {
  clearInterval(sampler);
  loopDelay.disable();
  const stopStarted = performance.now();
  const workerMs = stopStarted - workerStarted;
  await worker.stop();
  const measured = [...statements];
  const stopMs = performance.now() - stopStarted;
  const outbox = await outboxCounts(plainDb.db);
  const sentPairs = await plainDb.db
    .selectFrom('notification_outbox')
    .select(['channel', 'user_id', 'tweet_id', 'sent_at'])
    .where('status', '=', 'sent')
    .execute();
  const fanoutLeft = await plainDb.db
    .selectFrom('tweets')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('fanout_pending', '=', true)
    .executeTakeFirstOrThrow();
  const ms = (value) => Math.round(value * 100) / 100;
  send({
    type: 'report',
    setupMs: ms(setupMs),
    workerMs: ms(workerMs),
    stopMs: ms(stopMs),
    concurrency: config.NOTIFY_CONCURRENCY,
    outbox: outbox.map((row) => ({ ...row, count: Number(row.count) })),
    sent: sentPairs.length,
    fanoutLeft: Number(fanoutLeft.count),
    sqlite: (() => {
      const byPurpose = {};
      for (const [sql, s] of measured) {
        const purpose = purposeOf(sql);
        const entry = (byPurpose[purpose] ??= { count: 0, totalMs: 0, maxMs: 0 });
        entry.count += s.count;
        entry.totalMs += s.ms;
        entry.maxMs = Math.max(entry.maxMs, s.maxMs);
      }
      for (const entry of Object.values(byPurpose)) {
        entry.meanMs = ms(entry.totalMs / entry.count);
        entry.totalMs = ms(entry.totalMs);
        entry.maxMs = ms(entry.maxMs);
      }
      return byPurpose;
    })(),
    gateWaits: Object.fromEntries(
      Object.entries(gateWaits).map(([channel, w]) => [
        channel,
        {
          acquires: w.count,
          waited: w.waited,
          meanMs: ms(w.count ? w.ms / w.count : 0),
          maxMs: ms(w.maxMs),
        },
      ]),
    ),
    calls: Object.fromEntries(
      Object.entries(calls).map(([name, c]) => [
        name,
        {
          count: c.count,
          meanMs: ms(c.count ? c.ms / c.count : 0),
          maxMs: ms(c.maxMs),
          over1s: c.over1s,
          totalS: ms(c.ms / 1000),
        },
      ]),
    ),
    inFlight: Object.fromEntries(
      ['telegram', 'discord'].map((channel) => [
        channel,
        {
          mean: ms(busy.samples ? busy[channel].sum / busy.samples : 0),
          allSlotsBusyShare: ms(busy.samples ? busy[channel].full / busy.samples : 0),
        },
      ]),
    ),
    eventLoopDelayMs: {
      p50: ms(Math.max(0, loopDelay.percentile(50) / 1e6 - LOOP_RESOLUTION_MS)),
      p99: ms(Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_RESOLUTION_MS)),
      max: ms(Math.max(0, loopDelay.max / 1e6 - LOOP_RESOLUTION_MS)),
    },
  });
  await plainDb.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.disconnect();
}

process.on('message', (message) => {
  const task = message.type === 'store' ? store(message) : message.type === 'stop' ? stop() : null;
  task?.catch((error) => {
    send({ type: 'error', error: String(error?.stack ?? error) });
    process.exit(1);
  });
});
send({ type: 'ready', setupMs, userIds, handleIds });
