/**
 * Deliveries when things go wrong, against the loopback Telegram and Discord fakes: floods after
 * downtime, outages, refused messages, moved chats. Each on SQLite and PostgreSQL.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { upsertTweets } from '../src/modules/tweets/tweets.repository.js';
import { unlockChat } from '../src/notify/delivery-chats.repository.js';
import { claimNextDelivery } from '../src/notify/outbox-claims.repository.js';
import { fanOutPending } from '../src/notify/outbox-fan-out.repository.js';
import { markSent } from '../src/notify/outbox.repository.js';
import { DIALECTS, type TestClient } from './helpers.js';
import {
  buildNotifyTestApp,
  handleFollowedBy,
  monitorFinds,
  outboxCounts,
  tweetsInOrder,
  userWithChannels,
  waitUntil,
  type NotifyTestApp,
  type NotifyTestOptions,
} from './notify-helpers.js';
import { spawnFromSource, type SpawnedServer } from './processes.js';

describe.each(DIALECTS)('deliveries under faults (%s)', (dialect) => {
  let t: NotifyTestApp;

  afterEach(async () => {
    await t?.close();
  });

  async function setUp(options: NotifyTestOptions = {}) {
    t = await buildNotifyTestApp(dialect, { fast: true, ...options });
  }

  /** One user with both channels connected and the bot running. */
  async function person(name = 'reader') {
    const chat = '700001';
    const discord = '82198898841029999';
    const { client, userId } = await userWithChannels(t, name, { telegram: chat, discord });
    const started = await client.post('/api/v1/bot/start');
    expect(started.statusCode, started.body).toBe(200);
    return { client: client as TestClient, userId, chat, discord };
  }

  it('a refused photo: the notice goes once as plain text with the link, and the chat carries on', async () => {
    await setUp();
    const reader = await person();
    const handleId = await handleFollowedBy(t, 'photo_author', [reader.userId]);
    const photo = 'https://pbs.twimg.com/media/refused.jpg';
    t.telegram.refusePhotoUrl(photo);
    t.discord.refuseImageUrl(photo);
    await t.worker.start();
    const [pictured] = tweetsInOrder(1, {
      text: 'A picture <worth> a thousand words',
      media: [{ type: 'photo', url: photo, previewUrl: null }],
    });
    await monitorFinds(t, handleId, [pictured!]);
    await waitUntil(async () => (await outboxCounts(t)).sent === 2, 15_000, 'both deliveries');
    const telegram = t.telegram.messagesTo(reader.chat);
    expect(telegram).toHaveLength(1);
    expect(telegram[0]?.method).toBe('sendMessage');
    expect(telegram[0]?.text).toContain('A picture <worth> a thousand words');
    expect(telegram[0]?.text).toContain(`status/${pictured!.id}`);
    const discord = t.discord.messagesTo(reader.discord);
    expect(discord).toHaveLength(1);
    expect(discord[0]?.content).toContain(`status/${pictured!.id}`);
    // The delivery log says how they went.
    const log = (await reader.client.get('/api/v1/settings/deliveries')).json().data.deliveries;
    expect(log).toHaveLength(2);
    for (const row of log) {
      expect(row).toMatchObject({ status: 'sent', error: null });
      expect(row.note).toMatch(/^Sent as plain text: /);
    }
    // Not a chat problem: nothing stopped, and the next tweet goes as usual.
    await monitorFinds(t, handleId, tweetsInOrder(1));
    await waitUntil(async () => (await outboxCounts(t)).sent === 4, 15_000, 'the next ones');
    const settings = await reader.client.get('/api/v1/settings');
    expect(settings.json().data.settings.telegram.stoppedReason).toBeNull();
    expect(settings.json().data.settings.discord.stoppedReason).toBeNull();
  }, 30_000);

  it('an outage of both services: nothing lost, each tweet once and in order soon after', async () => {
    await setUp({ worker: { circuitAfter: 2, probeEveryMs: 500 } });
    const reader = await person();
    const handleId = await handleFollowedBy(t, 'steady_author', [reader.userId]);
    await t.worker.start();
    t.telegram.setDown(true);
    t.discord.setDown(true);
    const during = tweetsInOrder(4);
    for (const tweet of during) await monitorFinds(t, handleId, [tweet]);
    await waitUntil(
      () => t.worker.isDown('telegram') && t.worker.isDown('discord'),
      15_000,
      'both circuits to open',
    );
    // Down for a while: until each service has refused two more probes (one every 500 ms).
    const sends = () => t.telegram.requests.filter((r) => r.method.startsWith('send')).length;
    const [telegramSoFar, discordSoFar] = [sends(), t.discord.requests.length];
    await waitUntil(
      () => sends() >= telegramSoFar + 2 && t.discord.requests.length >= discordSoFar + 2,
      15_000,
      'two probes of each service',
    );
    expect((await outboxCounts(t)).sent ?? 0).toBe(0);
    expect((await outboxCounts(t)).failed ?? 0).toBe(0);
    t.telegram.setDown(false);
    t.discord.setDown(false);
    const backAt = Date.now();
    await waitUntil(async () => (await outboxCounts(t)).sent === 8, 15_000, 'the backlog');
    // Within two probe periods of the end, plus pacing (1 message a second per Telegram chat).
    expect(Date.now() - backAt).toBeLessThan(2 * 500 + 4 * 1_000 + 1_500);
    const ids = during.map((tweet) => tweet.id);
    expect(t.telegram.messagesTo(reader.chat).map((m) => /status\/(\d+)/.exec(m.raw)?.[1])).toEqual(
      ids,
    );
    expect(
      t.discord
        .messagesTo(reader.discord)
        .map((m) => /status\/(\d+)/.exec(String(m.embeds[0]?.url ?? ''))?.[1]),
    ).toEqual(ids);
    expect(t.worker.isDown('telegram')).toBe(false);
  }, 40_000);

  it('a group that became a supergroup is followed to its new chat id', async () => {
    await setUp();
    const group = '-4001234567';
    const { client, userId } = await userWithChannels(t, 'team', { telegram: group });
    expect((await client.post('/api/v1/bot/start')).statusCode).toBe(200);
    const handleId = await handleFollowedBy(t, 'team_feed', [userId], { telegram: true });
    const moved = t.telegram.migrateChat(group);
    await t.worker.start();
    await monitorFinds(t, handleId, tweetsInOrder(2));
    await waitUntil(async () => (await outboxCounts(t)).sent === 2, 15_000, 'both deliveries');
    expect(t.telegram.messagesTo(moved)).toHaveLength(2);
    expect(t.telegram.messagesTo(group)).toHaveLength(0);
    const settings = await client.get('/api/v1/settings');
    expect(settings.json().data.settings.telegram_chat_id).toBe(moved);
  }, 30_000);

  it('more than NOTIFY_DIGEST_AFTER waiting notices of a handle go as one digest per chat', async () => {
    await setUp({ worker: { digestAfter: 5 } });
    const reader = await person();
    const busy = await handleFollowedBy(t, 'busy_author', [reader.userId]);
    const calm = await handleFollowedBy(t, 'calm_author', [reader.userId]);
    const flood = tweetsInOrder(8);
    const few = tweetsInOrder(2);
    // Queued while the worker was not running (an outage, a restart).
    await monitorFinds(t, busy, flood);
    await monitorFinds(t, calm, few);
    await t.worker.start();
    await waitUntil(async () => (await outboxCounts(t)).sent === 20, 15_000, 'every delivery');

    // Telegram: one digest for the 8, and the 2 of the calm handle one by one.
    const telegram = t.telegram.messagesTo(reader.chat);
    expect(telegram).toHaveLength(3);
    const digest = telegram.find((message) => message.text.includes('8 new posts'));
    expect(digest?.text).toContain('busy_author');
    for (const tweet of flood) expect(digest?.raw).toContain(`status/${tweet.id}`);
    // Discord: the same, as plain content.
    const discord = t.discord.messagesTo(reader.discord);
    expect(discord).toHaveLength(3);
    const discordDigest = discord.find((message) => message.content?.includes('8 new posts'));
    for (const tweet of flood) expect(discordDigest?.content).toContain(`status/${tweet.id}`);
    // Each row of the digest is sent, and says it went as part of one.
    const rows = await t.db.db
      .selectFrom('notification_outbox')
      .select(['status', 'digest_of', 'handle_id', 'channel'])
      .where('handle_id', '=', busy)
      .execute();
    expect(rows.every((row) => row.status === 'sent' && row.digest_of !== null)).toBe(true);
    expect(new Set(rows.filter((r) => r.channel === 'telegram').map((r) => r.digest_of)).size).toBe(
      1,
    );
    const log = (await reader.client.get('/api/v1/settings/deliveries?limit=100')).json().data
      .deliveries as { handle: string; note: string | null }[];
    expect(log.filter((row) => row.note === 'Sent in one digest of 8 posts.')).toHaveLength(16);
    expect(log.filter((row) => row.handle === 'calm_author').map((row) => row.note)).toEqual([
      null,
      null,
      null,
      null,
    ]);
  }, 30_000);
});

describe.each(DIALECTS)('a chat held after a send (%s)', (dialect) => {
  let t: NotifyTestApp;

  afterEach(async () => {
    await t?.close();
  });

  it('keeps other processes off the chat until its spacing has passed', async () => {
    t = await buildNotifyTestApp(dialect, { fast: true });
    const { client, userId } = await userWithChannels(t, 'held_reader', { telegram: '700101' });
    expect((await client.post('/api/v1/bot/start')).statusCode).toBe(200);
    const handleId = await handleFollowedBy(t, 'held_author', [userId], { telegram: true });
    await monitorFinds(t, handleId, tweetsInOrder(2));
    const now = () => new Date().toISOString();
    const later = (ms: number) => new Date(Date.now() + ms).toISOString();
    await fanOutPending(t.db, { now: now(), channels: ['telegram'] });
    const first = await claimNextDelivery(t.db, {
      now: now(),
      leaseUntil: later(60_000),
      owner: 'a',
    });
    expect(first?.rows).toHaveLength(1);
    await markSent(t.db.db, [first!.rows[0]!.id], 'a', { now: now(), attempts: 1 });
    await unlockChat(t.db.db, 'telegram', userId, 'a', later(600));
    // Another process finds nothing to claim while the chat rests, then its next notice.
    expect(
      await claimNextDelivery(t.db, { now: now(), leaseUntil: later(60_000), owner: 'b' }),
    ).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 700));
    const second = await claimNextDelivery(t.db, {
      now: now(),
      leaseUntil: later(60_000),
      owner: 'b',
    });
    expect(second?.rows[0]?.tweet_id).not.toBe(first!.rows[0]!.tweet_id);
  });
});

describe.each(DIALECTS)('two worker processes on one database (%s)', (dialect) => {
  let t: NotifyTestApp;
  /** The worker processes, with what each printed (warnings and errors). */
  const workers: SpawnedServer[] = [];

  afterEach(async () => {
    for (const { child } of workers.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
    await t?.close();
  });

  function startWorkerProcess(name: string): Promise<ChildProcess> {
    const worker = spawnFromSource('test/fixtures/delivery-worker-process.ts', {
      WORKER_ID: name,
      DATA_DIR: t.config.DATA_DIR,
      DATABASE_URL: t.config.DATABASE_URL ?? '',
      LOG_LEVEL: 'warn',
      TELEGRAM_BOT_TOKEN: t.telegram.token,
      TELEGRAM_API_BASE_URL: t.telegram.baseUrl,
      DISCORD_BOT_TOKEN: t.discord.token,
      DISCORD_API_BASE_URL: t.discord.baseUrl,
      // The fakes of this rig enforce no limits (`fast`); the processes' clients pace as little.
      FAST_GATES: 'true',
    });
    workers.push(worker);
    const { child, output } = worker;
    return new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        if (output().includes('ready')) {
          clearInterval(timer);
          resolve(child);
        } else if (child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`worker ${name} exited:\n${output()}`));
        }
      }, 25);
    });
  }

  it('deliver 1,000 notices: every one exactly once, none lost', async () => {
    t = await buildNotifyTestApp(dialect, { fast: true });
    const USERS = 50;
    const TWEETS = 10;
    const people: { userId: number; chat: string; discord: string }[] = [];
    for (let i = 0; i < USERS; i++) {
      const chat = String(800_000 + i);
      const discord = String(82198898841030000n + BigInt(i));
      const { client, userId } = await userWithChannels(t, `pair${i}`, { telegram: chat, discord });
      expect((await client.post('/api/v1/bot/start')).statusCode).toBe(200);
      people.push({ userId, chat, discord });
    }
    const handleId = await handleFollowedBy(
      t,
      'shared_author',
      people.map((p) => p.userId),
    );
    const tweets = tweetsInOrder(TWEETS);
    await upsertTweets(t.db.db, handleId, tweets, new Date().toISOString(), {
      markForFanout: true,
    });
    await Promise.all([startWorkerProcess('worker-a'), startWorkerProcess('worker-b')]);
    await waitUntil(
      async () => (await outboxCounts(t)).sent === USERS * TWEETS * 2,
      60_000,
      '1,000 deliveries',
      async () => ({
        outbox: await t.db.db
          .selectFrom('notification_outbox')
          .select(['status', 'claimed_by'])
          .select((eb) => [
            eb.fn.countAll<number>().as('rows'),
            eb.fn.min('next_attempt_at').as('next'),
          ])
          .groupBy(['status', 'claimed_by'])
          .execute(),
        chatLocks: await t.db.db.selectFrom('delivery_chat_locks').selectAll().limit(5).execute(),
        now: new Date().toISOString(),
        workers: workers.map(({ child, output }) => ({
          exit: child.exitCode ?? child.signalCode,
          output: output().slice(-2_000),
        })),
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await outboxCounts(t)).toEqual({ sent: 1_000 });
    const ids = tweets.map((tweet) => tweet.id);
    for (const p of people) {
      const telegram = t.telegram.messagesTo(p.chat).map((m) => /status\/(\d+)/.exec(m.raw)?.[1]);
      // Exactly once each, in order.
      expect(telegram).toEqual(ids);
      const discord = t.discord
        .messagesTo(p.discord)
        .map((m) => /status\/(\d+)/.exec(String(m.embeds[0]?.url ?? ''))?.[1]);
      expect(discord).toEqual(ids);
    }
    // Both processes took part.
    const owners = await t.db.db
      .selectFrom('notification_outbox')
      .select('claimed_by')
      .distinct()
      .execute();
    expect(owners.map((row) => row.claimed_by).sort()).toEqual(['worker-a', 'worker-b']);
  }, 90_000);
});
