// Notify benchmark (issue 5 targets: new tweets fanned out to 100 users on Telegram and Discord
// go out at >= 90% of the rate the services allow, with zero duplicates, and a tweet reaches an
// unthrottled chat within a p95 of 1 s of being stored).
// Usage: npm run bench:notify   (prints Markdown tables, then one JSON line; about 3 minutes)
//        node --import tsx bench/notify/run.mjs   (the server must be built)
//
// This process hosts the loopback fakes of apps/server/test/fakes (TypeScript, hence tsx) with
// their default limits: Telegram 30 msg/s overall and 1 msg/s per chat, Discord 50 req/s, DM
// opening 10 per 10 s and 5 messages per 5 s per DM channel. bench/notify/app.mjs runs the built
// delivery system in a child process, wired like main.ts, and stores tweets when told to.
//
// 1. Throughput: 100 users, each with Telegram and Discord connected and enabled, follow 10
//    handles; 100 new tweets of each handle are stored as monitoring stores them (1,000 tweets,
//    100,000 deliveries per channel). At the allowed rates that backlog takes about an hour on
//    Telegram, so the run is cut off: once every user's Discord DM is open (the fake lets 10
//    open per 10 s) it goes on for STEADY seconds more, then the worker is stopped. The rates
//    are counted at the fakes over a steady window, apart from the start-up burst and the DM
//    opening phase, which is reported on its own.
//
// 2. Latency: 5 users follow one handle; one new tweet is stored every 1.5 s (slower than the
//    1 msg/s per chat, so nothing is throttled); the time from the tweet stored to each message
//    accepted by a fake.
//
// BENCH_SERVER_DIST=<dir> runs another build of apps/server/dist (to measure a change before it
// goes in); BENCH_USERS, BENCH_STEADY_S, BENCH_MAX_S and BENCH_LATENCY_TWEETS shorten a trial run.
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeDiscordServer } from '../../apps/server/test/fakes/fake-discord-server.ts';
import { startFakeTelegramServer } from '../../apps/server/test/fakes/fake-telegram-server.ts';
import {
  busiestWindow,
  deliveryPairs,
  discordTweetId,
  isDmOpen,
  telegramTweetId,
} from '../lib/deliveries.mjs';
import { percentile, sleep } from '../lib/stats.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

const USERS = Number(process.env.BENCH_USERS ?? 100);
const HANDLES = 10;
const TWEETS_PER_HANDLE = 100;
/** Seconds of steady state after the last Discord DM opened. */
const STEADY_S = Number(process.env.BENCH_STEADY_S ?? 30);
/** The throughput run stops after this many seconds whatever happened. */
const MAX_S = Number(process.env.BENCH_MAX_S ?? 150);
/** The Telegram window starts this long after the first message (the gate's first burst). */
const TELEGRAM_SKIP_MS = 5_000;
/** The Discord steady window starts this long after the last DM opened. */
const DISCORD_SKIP_MS = 2_000;
const LATENCY_USERS = 5;
/** Outage scenario: users, tweets stored while both services are down, and how long (s). */
const OUTAGE_USERS = 20;
const OUTAGE_TWEETS = 3;
const OUTAGE_SECONDS = Number(process.env.BENCH_OUTAGE_SECONDS ?? 180);
/** The backlog must be out within this long after the services come back. */
const TARGET_DRAIN_S = 120;
const LATENCY_TWEETS = Number(process.env.BENCH_LATENCY_TWEETS ?? 20);
const LATENCY_SPACING_MS = 1_500;

/**
 * What the services allow for USERS targets: Telegram 30 msg/s overall and 1 msg/s per chat;
 * Discord 50 req/s overall and 5 messages per 5 s per DM channel.
 */
const ALLOWED = { telegram: Math.min(30, USERS), discord: Math.min(50, USERS) };
const TARGET_SHARE = 0.9;
const TARGET_P95_MS = 1_000;

const chatIdOf = (i) => String(100_000 + i);
const discordIdOf = (i) => String(82198898841029460n + BigInt(i));

const round = (value, digits = 1) => (value === null ? null : Number(value.toFixed(digits)));
const pct = (share) => `${(share * 100).toFixed(1)}%`;

/** The built delivery system in a child process, driven over IPC (see app.mjs). */
function startApp(setup) {
  const child = fork(path.join(HERE, 'app.mjs'), [], {
    execArgv: [],
    env: { ...process.env, BENCH_NOTIFY_SETUP: JSON.stringify(setup) },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  // Node warns once when more than 10 sends wait on the worker's shared abort signal at once;
  // that is expected with 8 slots per channel and not worth printing in the middle of the table.
  child.stderr.on('data', (chunk) => {
    const text = String(chunk);
    if (!/MaxListenersExceededWarning|--trace-warnings/.test(text)) process.stderr.write(text);
  });
  const inbox = [];
  let wake = () => {};
  let exited = null;
  child.on('message', (message) => {
    inbox.push(message);
    wake();
  });
  child.on('exit', (code) => {
    exited = code;
    wake();
  });
  return {
    send: (message) => child.send(message),
    async next(type) {
      for (;;) {
        const index = inbox.findIndex((m) => m.type === type || m.type === 'error');
        if (index >= 0) {
          const [message] = inbox.splice(index, 1);
          if (message.type === 'error') throw new Error(`bench app: ${message.error}`);
          return message;
        }
        if (exited !== null) throw new Error(`bench app exited with ${exited}`);
        await new Promise((resolve) => (wake = resolve));
      }
    },
  };
}

async function startFakes() {
  const telegram = await startFakeTelegramServer();
  const discord = await startFakeDiscordServer();
  return {
    telegram,
    discord,
    async close() {
      await telegram.close();
      await discord.close();
    },
  };
}

function setupFor(fakes, users, handles) {
  return {
    users,
    handles,
    chatIds: Array.from({ length: users }, (_, i) => chatIdOf(i)),
    discordIds: Array.from({ length: users }, (_, i) => discordIdOf(i)),
    telegram: { baseUrl: fakes.telegram.baseUrl, token: fakes.telegram.token },
    discord: { baseUrl: fakes.discord.baseUrl, token: fakes.discord.token },
  };
}

const countIn = (items, from, to) => items.filter((m) => m.at >= from && m.at < to).length;

/** Shortest gap between two messages to the same target. */
function minGapPerTarget(items, targetOf) {
  const last = new Map();
  let min = Infinity;
  for (const m of [...items].sort((a, b) => a.at - b.at)) {
    const key = targetOf(m);
    if (last.has(key)) min = Math.min(min, m.at - last.get(key));
    last.set(key, m.at);
  }
  return Number.isFinite(min) ? min : null;
}

// ---------------------------------------------------------------------------------------------
// 1. Throughput

async function throughput() {
  const fakes = await startFakes();
  const { telegram, discord } = fakes;
  const app = startApp(setupFor(fakes, USERS, HANDLES));
  const ready = await app.next('ready');
  const storeStarted = Date.now();
  let upsertMs = 0;
  for (let handle = 0; handle < HANDLES; handle++) {
    app.send({ type: 'store', handle, tweets: TWEETS_PER_HANDLE });
    upsertMs += (await app.next('stored')).upsertMs;
  }
  const storedAt = Date.now();

  let dmsOpenAt = null;
  for (;;) {
    await sleep(200);
    const now = Date.now();
    if (dmsOpenAt === null) {
      const opened = discord.requests.filter((r) => isDmOpen(r) && r.status === 200);
      if (opened.length >= USERS) dmsOpenAt = opened[USERS - 1].at;
    }
    if (dmsOpenAt !== null && now >= dmsOpenAt + STEADY_S * 1000) break;
    if (now - storedAt >= MAX_S * 1000) break;
  }
  const stopAt = Date.now();
  app.send({ type: 'stop' });
  const report = await app.next('report');
  await fakes.close();

  const tg = telegram.messages;
  const dc = discord.messages;
  const firstTelegram = tg[0]?.at ?? stopAt;
  const firstDiscord = dc[0]?.at ?? stopAt;
  const tgFrom = firstTelegram + TELEGRAM_SKIP_MS;
  const tgSeconds = (stopAt - tgFrom) / 1000;
  const tgRate = countIn(tg, tgFrom, stopAt) / tgSeconds;

  let discordSteady = null;
  if (dmsOpenAt !== null && stopAt - dmsOpenAt > DISCORD_SKIP_MS + 5_000) {
    const from = dmsOpenAt + DISCORD_SKIP_MS;
    const seconds = (stopAt - from) / 1000;
    const requests = discord.requests.filter(
      (r) => r.at >= from && r.at < stopAt && r.status !== 0,
    ).length;
    discordSteady = {
      seconds: round(seconds),
      messagesPerSecond: round(countIn(dc, from, stopAt) / seconds, 2),
      requestsPerSecond: round(requests / seconds, 2),
    };
    discordSteady.share = round(discordSteady.messagesPerSecond / ALLOWED.discord, 4);
  }
  // DM opening phase: from the first Discord message to the last DM opened. What an ideal
  // scheduler could send meanwhile: every user whose DM is open can take 1 message a second
  // (5 per 5 s per DM channel), at most 50 requests a second in all.
  const openEnd = dmsOpenAt ?? stopAt;
  const openSeconds = (openEnd - firstDiscord) / 1000;
  const firstTo = new Map();
  for (const m of dc) if (!firstTo.has(m.userId)) firstTo.set(m.userId, m.at);
  const openMessages = countIn(dc, firstDiscord, openEnd);
  let capacity = 0;
  for (const at of firstTo.values()) capacity += Math.max(0, (openEnd - at) / 1000);
  capacity = Math.min(capacity + firstTo.size, ALLOWED.discord * openSeconds);

  const dmOpens = discord.requests.filter((r) => isDmOpen(r));
  const result = {
    users: USERS,
    handles: HANDLES,
    tweets: HANDLES * TWEETS_PER_HANDLE,
    deliveriesQueued: report.outbox.reduce((sum, row) => sum + row.count, 0),
    setupMs: round(ready.setupMs),
    upsertMs: round(upsertMs),
    storeToFirstTelegramMs: firstTelegram - storeStarted,
    storeToFirstDiscordMs: firstDiscord - storeStarted,
    runSeconds: round((stopAt - storedAt) / 1000),
    telegram: {
      windowSeconds: round(tgSeconds),
      messagesPerSecond: round(tgRate, 2),
      share: round(tgRate / ALLOWED.telegram, 4),
      busiest1s: busiestWindow(tg, 1000),
      minGapPerChatMs: minGapPerTarget(tg, (m) => m.chatId),
      delivered: tg.length,
      rateLimited: telegram.requests.filter((r) => r.status === 429).length,
      rateLimitedAtS: telegram.requests
        .filter((r) => r.status === 429)
        .map((r) => round((r.at - storeStarted) / 1000)),
      ...deliveryPairs(tg, (m) => m.chatId, telegramTweetId),
    },
    discord: {
      steady: discordSteady,
      dmOpening: {
        seconds: round(openSeconds),
        dmsOpened: firstTo.size,
        messages: openMessages,
        messagesPerSecond: round(openMessages / openSeconds, 2),
        idealMessages: Math.round(capacity),
      },
      busiest1s: busiestWindow(
        discord.requests.filter((r) => r.status === 200),
        1000,
      ),
      delivered: dc.length,
      dmOpenRequests: dmOpens.length,
      rateLimited: discord.requests.filter((r) => r.status === 429).length,
      rateLimitedDmOpens: dmOpens.filter((r) => r.status === 429).length,
      rateLimitedAtS: discord.requests
        .filter((r) => r.status === 429)
        .map((r) => round((r.at - storeStarted) / 1000)),
      ...deliveryPairs(dc, (m) => m.userId, discordTweetId),
    },
    outbox: report.outbox,
    outboxSent: report.sent,
    fanoutLeft: report.fanoutLeft,
    worker: {
      concurrency: report.concurrency,
      runMs: report.workerMs,
      sqlite: report.sqlite,
      gateWaits: report.gateWaits,
      calls: report.calls,
      inFlight: report.inFlight,
      eventLoopDelayMs: report.eventLoopDelayMs,
      stopMs: report.stopMs,
    },
  };
  const sentBy = (channel) =>
    report.outbox.find((row) => row.channel === channel && row.status === 'sent')?.count ?? 0;
  result.telegram.outboxSent = sentBy('telegram');
  result.discord.outboxSent = sentBy('discord');
  return result;
}

// ---------------------------------------------------------------------------------------------
// 2. Latency

async function latency() {
  const fakes = await startFakes();
  const { telegram, discord } = fakes;
  const app = startApp(setupFor(fakes, LATENCY_USERS, 1));
  await app.next('ready');
  const stored = new Map();
  for (let i = 0; i < LATENCY_TWEETS; i++) {
    const started = Date.now();
    app.send({ type: 'store', handle: 0, tweets: 1, createdAt: Date.now() + 1000 });
    const message = await app.next('stored');
    stored.set(message.tweetIds[0], message.at);
    await sleep(Math.max(0, LATENCY_SPACING_MS - (Date.now() - started)));
  }
  const expected = LATENCY_TWEETS * LATENCY_USERS;
  const deadline = Date.now() + 10_000;
  while (
    (telegram.messages.length < expected || discord.messages.length < expected) &&
    Date.now() < deadline
  ) {
    await sleep(50);
  }
  app.send({ type: 'stop' });
  const report = await app.next('report');
  await fakes.close();

  const of = (messages, tweetOf) =>
    messages.map((m) => m.at - stored.get(tweetOf(m))).filter((ms) => Number.isFinite(ms));
  const stats = (samples) => ({
    samples: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    max: samples.length ? Math.max(...samples) : null,
  });
  const tgSamples = of(telegram.messages, telegramTweetId);
  const dcSamples = of(discord.messages, discordTweetId);
  return {
    users: LATENCY_USERS,
    tweets: LATENCY_TWEETS,
    spacingMs: LATENCY_SPACING_MS,
    expectedPerChannel: expected,
    telegram: {
      ...stats(tgSamples),
      rateLimited: telegram.requests.filter((r) => r.status === 429).length,
    },
    discord: {
      ...stats(dcSamples),
      rateLimited: discord.requests.filter((r) => r.status === 429).length,
    },
    all: stats([...tgSamples, ...dcSamples]),
    gateWaits: report.gateWaits,
    duplicates:
      deliveryPairs(telegram.messages, (m) => m.chatId, telegramTweetId).duplicates +
      deliveryPairs(discord.messages, (m) => m.userId, discordTweetId).duplicates,
  };
}

/**
 * Outage: both services go down (a proxy's 502 on every call) for OUTAGE_SECONDS while tweets
 * keep arriving; then they come back. Reported: time from recovery to the last backlog message,
 * and whether every message arrived exactly once, in order per chat, without a 429.
 */
async function outage() {
  const fakes = await startFakes();
  const { telegram, discord } = fakes;
  const app = startApp(setupFor(fakes, OUTAGE_USERS, 1));
  await app.next('ready');
  telegram.setDown(true);
  discord.setDown(true);
  const order = [];
  for (let i = 0; i < OUTAGE_TWEETS; i++) {
    app.send({ type: 'store', handle: 0, tweets: 1, createdAt: Date.now() + 1000 });
    const message = await app.next('stored');
    order.push(...message.tweetIds);
    await sleep(1_000);
  }
  await sleep(Math.max(0, OUTAGE_SECONDS * 1000 - OUTAGE_TWEETS * 1_000));
  const downRequests = telegram.requests.length + discord.requests.length;
  telegram.setDown(false);
  discord.setDown(false);
  const backAt = Date.now();
  const expected = OUTAGE_TWEETS * OUTAGE_USERS;
  const deadline = backAt + 5 * 60_000;
  while (
    (telegram.messages.length < expected || discord.messages.length < expected) &&
    Date.now() < deadline
  ) {
    await sleep(50);
  }
  const drainedAt = Math.max(
    ...telegram.messages.map((m) => m.at),
    ...discord.messages.map((m) => m.at),
  );
  app.send({ type: 'stop' });
  await app.next('report');
  await fakes.close();
  const inOrder = (messages, targetOf, tweetOf) => {
    const byTarget = new Map();
    for (const m of messages) {
      const list = byTarget.get(targetOf(m)) ?? [];
      list.push(order.indexOf(tweetOf(m)));
      byTarget.set(targetOf(m), list);
    }
    return [...byTarget.values()].every((list) => list.every((v, i) => i === 0 || v > list[i - 1]));
  };
  return {
    users: OUTAGE_USERS,
    tweets: OUTAGE_TWEETS,
    outageSeconds: OUTAGE_SECONDS,
    requestsWhileDown: downRequests,
    drainSeconds: round((drainedAt - backAt) / 1000, 1),
    telegram: {
      delivered: telegram.messages.length,
      expected,
      duplicates: deliveryPairs(telegram.messages, (m) => m.chatId, telegramTweetId).duplicates,
      inOrder: inOrder(telegram.messages, (m) => m.chatId, telegramTweetId),
      rateLimited: telegram.requests.filter((r) => r.status === 429).length,
    },
    discord: {
      delivered: discord.messages.length,
      expected,
      duplicates: deliveryPairs(discord.messages, (m) => m.userId, discordTweetId).duplicates,
      inOrder: inOrder(discord.messages, (m) => m.userId, discordTweetId),
      rateLimited: discord.requests.filter((r) => r.status === 429 && !isDmOpen(r)).length,
    },
  };
}

// ---------------------------------------------------------------------------------------------

const t = await throughput();
const l = await latency();
const o = await outage();

const targets = {
  telegramShare: t.telegram.share >= TARGET_SHARE,
  discordShare: t.discord.steady !== null && t.discord.steady.share >= TARGET_SHARE,
  noDuplicates:
    t.telegram.duplicates === 0 &&
    t.discord.duplicates === 0 &&
    l.duplicates === 0 &&
    t.telegram.delivered === t.telegram.outboxSent &&
    t.discord.delivered === t.discord.outboxSent,
  no429:
    t.telegram.rateLimited +
      t.discord.rateLimited +
      l.telegram.rateLimited +
      l.discord.rateLimited ===
    0,
  latencyP95: l.all.p95 !== null && l.all.p95 <= TARGET_P95_MS,
  outageDrain:
    o.drainSeconds <= TARGET_DRAIN_S &&
    o.telegram.delivered === o.telegram.expected &&
    o.discord.delivered === o.discord.expected &&
    o.telegram.duplicates + o.discord.duplicates === 0 &&
    o.telegram.inOrder &&
    o.discord.inOrder,
};
const met = (ok) => (ok ? 'met' : '**not met**');
const sq = t.worker.sqlite;
const sqliteMs = Object.values(sq).reduce((sum, s) => sum + s.totalMs, 0);
const share = (ms) => pct(ms / t.worker.runMs);
const ds = t.discord.steady;

console.log(`
Throughput: ${t.tweets.toLocaleString('en-US')} new tweets (${t.handles} handles x ${TWEETS_PER_HANDLE}) x ${t.users} users x 2 channels = ${t.deliveriesQueued.toLocaleString('en-US')} deliveries queued; run cut off after ${t.runSeconds} s

| measure | Telegram | Discord | target |
|---|---|---|---|
| allowed rate (fakes' defaults) | ${ALLOWED.telegram} msg/s (30/s overall; 1/s per chat x ${t.users} chats) | ${ALLOWED.discord} msg/s (50 req/s overall; 1/s per DM channel x ${t.users}) | |
| steady window | ${t.telegram.windowSeconds} s | ${ds ? `${ds.seconds} s, after the last DM opened` : 'not reached'} | |
| achieved | ${t.telegram.messagesPerSecond} msg/s | ${ds ? `${ds.messagesPerSecond} msg/s (${ds.requestsPerSecond} req/s)` : '-'} | |
| share of the allowed rate | ${pct(t.telegram.share)} | ${ds ? pct(ds.share) : '-'} | >= 90%: ${met(targets.telegramShare)} / ${met(targets.discordShare)} |
| busiest 1 s at the fake | ${t.telegram.busiest1s} msg | ${t.discord.busiest1s} req | |
| DM opening phase | | ${t.discord.dmOpening.seconds} s to open ${t.discord.dmOpening.dmsOpened} DMs: ${t.discord.dmOpening.messages} msg (${t.discord.dmOpening.messagesPerSecond}/s); an ideal scheduler ~${t.discord.dmOpening.idealMessages.toLocaleString('en-US')} | |
| from store to first message | ${t.storeToFirstTelegramMs} ms | ${t.storeToFirstDiscordMs} ms | |
| messages delivered / outbox 'sent' | ${t.telegram.delivered} / ${t.telegram.outboxSent} | ${t.discord.delivered} / ${t.discord.outboxSent} | equal |
| duplicates (messages - unique pairs) | ${t.telegram.duplicates} | ${t.discord.duplicates} | 0 |
| 429 answers | ${t.telegram.rateLimited} | ${t.discord.rateLimited} (${t.discord.rateLimitedDmOpens} on DM opening) | 0 |
| shortest gap between 2 messages to one chat | ${t.telegram.minGapPerChatMs} ms | | >= ~1000 ms |

Delivery process during the throughput run (${(t.worker.runMs / 1000).toFixed(1)} s, ${t.worker.concurrency} slots per channel)

| what | count | mean ms | max ms | share of the run |
|---|---|---|---|---|
${Object.entries(sq)
  .sort((a, b) => b[1].totalMs - a[1].totalMs)
  .map(
    ([purpose, s]) =>
      `| SQLite: ${purpose} | ${s.count} | ${s.meanMs} | ${s.maxMs} | ${share(s.totalMs)} |`,
  )
  .join('\n')}
| SQLite, all statements | | | | ${share(sqliteMs)} |
| Telegram gate waits | ${t.worker.gateWaits.telegram.waited} of ${t.worker.gateWaits.telegram.acquires} sends | ${t.worker.gateWaits.telegram.meanMs} | ${t.worker.gateWaits.telegram.maxMs} | |
| Discord gate waits | ${t.worker.gateWaits.discord.waited} of ${t.worker.gateWaits.discord.acquires} requests | ${t.worker.gateWaits.discord.meanMs} | ${t.worker.gateWaits.discord.maxMs} | |
${Object.entries(t.worker.calls)
  .map(
    ([name, c]) =>
      `| client call \`${name}\` (waits + HTTP) | ${c.count} (${c.over1s} took >= 1 s) | ${c.meanMs} | ${c.maxMs} | ${c.totalS} s in all |`,
  )
  .join('\n')}
| event-loop delay (ms late) | p50 ${t.worker.eventLoopDelayMs.p50}, p99 ${t.worker.eventLoopDelayMs.p99} | | ${t.worker.eventLoopDelayMs.max} | |
| sends in flight (mean) | Telegram ${t.worker.inFlight.telegram.mean}, Discord ${t.worker.inFlight.discord.mean} | | | all ${t.worker.concurrency} slots busy: Telegram ${pct(t.worker.inFlight.telegram.allSlotsBusyShare)}, Discord ${pct(t.worker.inFlight.discord.allSlotsBusyShare)} of the time |

Latency: ${l.users} users, ${l.tweets} tweets stored ${l.spacingMs} ms apart (not throttled), time from the tweet stored to the fake accepting the message

| channel | messages | p50 ms | p95 ms | max ms | 429s | target p95 <= 1000 ms |
|---|---|---|---|---|---|---|
| Telegram | ${l.telegram.samples} / ${l.expectedPerChannel} | ${l.telegram.p50} | ${l.telegram.p95} | ${l.telegram.max} | ${l.telegram.rateLimited} | |
| Discord | ${l.discord.samples} / ${l.expectedPerChannel} | ${l.discord.p50} | ${l.discord.p95} | ${l.discord.max} | ${l.discord.rateLimited} | |
| both | ${l.all.samples} | ${l.all.p50} | ${l.all.p95} | ${l.all.max} | | ${met(targets.latencyP95)} |

Outage: both services down ${o.outageSeconds} s while ${o.tweets} tweets x ${o.users} users arrived (${o.requestsWhileDown} requests reached them while down)

| channel | delivered | duplicates | in order per chat | 429s |
|---|---|---|---|---|
| Telegram | ${o.telegram.delivered} / ${o.telegram.expected} | ${o.telegram.duplicates} | ${o.telegram.inOrder ? 'yes' : 'no'} | ${o.telegram.rateLimited} |
| Discord | ${o.discord.delivered} / ${o.discord.expected} | ${o.discord.duplicates} | ${o.discord.inOrder ? 'yes' : 'no'} | ${o.discord.rateLimited} |

Backlog out ${o.drainSeconds} s after the services came back (target <= ${TARGET_DRAIN_S} s)

Targets: rate >= 90% Telegram ${met(targets.telegramShare)}, Discord ${met(targets.discordShare)}; zero duplicates ${met(targets.noDuplicates)}; zero 429s ${met(targets.no429)}; p95 <= 1 s ${met(targets.latencyP95)}; outage drained in time, once, in order ${met(targets.outageDrain)}
`);
console.log(
  JSON.stringify({
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
    server: process.env.BENCH_SERVER_DIST ?? 'apps/server/dist',
    throughput: t,
    latency: l,
    outage: o,
    targets,
  }),
);
