import type { TweetSource } from '../src/domain/tweet-source.js';
import type { SourceTweet } from '../src/domain/tweet-source.js';
import type { Dialect } from '../src/db/index.js';
import { insertHandle, insertLink } from '../src/modules/handles/handles.repository.js';
import { upsertTweets } from '../src/modules/tweets/tweets.repository.js';
import { DuplicateTestGuard } from '../src/modules/settings/duplicate-test-guard.js';
import os from 'node:os';
import { createAlertPass } from '../src/alerts/evaluation.js';
import { loadConfig } from '../src/config.js';
import { createTokenCipher } from '../src/lib/token-cipher.js';
import { webhookChannelClient, type NotifyChannels } from '../src/notify/channels.js';
import { webhookSecretContext } from '../src/notify/webhook/secret.js';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../src/notify/delivery-worker.js';
import { startFakeDiscordServer, type FakeDiscordServer } from './fakes/fake-discord-server.js';
import { startFakeTelegramServer, type FakeTelegramServer } from './fakes/fake-telegram-server.js';
import { makeTweet } from './factories.js';
import { channelsFor } from './notify-channels.js';
import { TestClient, buildTestApp, type TestApp } from './helpers.js';

/** Re-exported: the notify tests take their tweets and channels from here. */
export { makeTweet, channelsFor };

export interface NotifyTestOptions {
  /**
   * Lift the services' rate limits (the fakes' and the clients' gates), so tests of volume do
   * not wait a second per message and chat. Off: Telegram's and Discord's real limits.
   */
  fast?: boolean;
  /** With `fast`: messages a second each client lets through (default 10,000). */
  ratePerSecond?: number;
  /** Leave the bot tokens unset: both channels unavailable. */
  withoutTokens?: boolean;
  /** Tweet source of the collector (default: the demo source). */
  source?: TweetSource;
  /** Options of the delivery workers this app makes. */
  worker?: Partial<DeliveryWorkerOptions>;
  /**
   * Deliver webhooks, to loopback receivers (WEBHOOK_ALLOW_LOOPBACK), with secrets sealed under
   * TEST_SECRET_KEY (sealWebhookSecret).
   */
  webhooks?: boolean;
  /** How often the workers evaluate handle alert rules (default 60 s; 0: every round). */
  alertSweepMs?: number;
  /** Repeated channel tests within this are sent once (default DUPLICATE_TEST_WINDOW_MS, 2 s). */
  duplicateTestWindowMs?: number;
}

/** SECRET_KEY of a notify test app with webhooks. */
export const TEST_SECRET_KEY = 'notify-test-secret-key-of-32-characters!';

/** An endpoint's secret as stored (webhook_endpoints.secret_sealed) in a webhooks test app. */
export function sealWebhookSecret(secret: string, endpointId: number): string {
  return createTokenCipher({ secretKey: TEST_SECRET_KEY, dataDir: os.tmpdir() }).encrypt(
    secret,
    webhookSecretContext(endpointId),
  );
}

/** Stores a webhook endpoint of a webhooks test app, its secret sealed for it; returns its id. */
export async function insertWebhookEndpoint(
  app: TestApp,
  endpoint: { userId: number; name: string; url: string; secret: string },
): Promise<number> {
  const now = new Date().toISOString();
  const { id } = await app.db.db
    .insertInto('webhook_endpoints')
    .values({
      user_id: endpoint.userId,
      name: endpoint.name,
      url: endpoint.url,
      preset: 'generic',
      secret_sealed: '',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await app.db.db
    .updateTable('webhook_endpoints')
    .set({ secret_sealed: sealWebhookSecret(endpoint.secret, id) })
    .where('id', '=', id)
    .execute();
  return id;
}

export interface NotifyTestApp extends TestApp {
  telegram: FakeTelegramServer;
  discord: FakeDiscordServer;
  channels: NotifyChannels;
  /** The current worker (made, not started, by buildNotifyTestApp; replaced by newWorker). */
  worker: DeliveryWorker;
  /** A new worker on the same database and clients (a restarted process), not started. */
  newWorker(options?: Partial<DeliveryWorkerOptions>): DeliveryWorker;
}

/** The real app with clients of loopback Telegram and Discord fakes, and a delivery worker. */
export async function buildNotifyTestApp(
  dialect: Dialect,
  options: NotifyTestOptions = {},
): Promise<NotifyTestApp> {
  const telegram = await startFakeTelegramServer(options.fast ? { floodLimits: null } : {});
  const discord = await startFakeDiscordServer(options.fast ? { globalPerSecond: 100_000 } : {});
  if (options.fast) {
    discord.setBucket('messages', 100_000, 1);
    discord.setBucket('dm', 100_000, 1);
  }
  const channels = channelsFor(telegram, discord, options);
  const env: Record<string, string> = options.webhooks
    ? { SECRET_KEY: TEST_SECRET_KEY, WEBHOOK_ALLOW_LOOPBACK: 'true' }
    : {};
  if (options.webhooks)
    channels.webhook = webhookChannelClient(loadConfig({ ...env, DATA_DIR: os.tmpdir() }));
  const workers: DeliveryWorker[] = [];
  const current = () => workers[workers.length - 1];
  const t = await buildTestApp(dialect, env, {
    ...(options.source ? { source: options.source } : {}),
    tickMs: 50,
    notify: {
      channels,
      wakeWorker: () => current()?.wake(),
      duplicateTests: new DuplicateTestGuard(options.duplicateTestWindowMs),
    },
  });
  const newWorker = (extra: Partial<DeliveryWorkerOptions> = {}) => {
    const worker = new DeliveryWorker({
      db: t.db,
      channels,
      tickMs: 50,
      retryDelayMs: () => 100,
      // Tests count one message per tweet; the digest tests switch digests on.
      digestAfter: 0,
      evaluateAlerts: createAlertPass(t.db, { sweepMs: options.alertSweepMs }),
      ...options.worker,
      ...extra,
    });
    workers.push(worker);
    return worker;
  };
  newWorker();
  t.collector.events.on('tweet.new', () => current()?.wake());
  const app: NotifyTestApp = {
    ...t,
    telegram,
    discord,
    channels,
    get worker() {
      return current()!;
    },
    newWorker,
    async close() {
      for (const worker of workers) await worker.stop();
      await t.close();
      await telegram.close();
      await discord.close();
    },
  };
  return app;
}

/** Registers a user and saves their channels and X username; returns the signed-in client. */
export async function userWithChannels(
  t: NotifyTestApp,
  username: string,
  channels: { telegram?: string; discord?: string; twitter?: string } = {},
): Promise<{ client: TestClient; userId: number }> {
  const client = new TestClient(t.app);
  const registered = await client.register(t.db, username);
  const body: Record<string, string> = { twitter_username: channels.twitter ?? `${username}_x` };
  if (channels.telegram) body.telegram_chat_id = channels.telegram;
  if (channels.discord) body.discord_user_id = channels.discord;
  const saved = await client.post('/api/v1/settings', body);
  if (saved.statusCode !== 200) throw new Error(`settings not saved: ${saved.body}`);
  return { client, userId: registered.data.user.id };
}

/** A handle row and links to the given users (no collection: tests store its tweets). */
export async function handleFollowedBy(
  t: TestApp,
  username: string,
  userIds: number[],
  toggles: { telegram?: boolean; discord?: boolean } = { telegram: true, discord: true },
): Promise<number> {
  const now = new Date().toISOString();
  const handle = await insertHandle(t.db.db, { username, backfillDays: 7, now });
  await t.db.db
    .updateTable('handles')
    .set({
      display_name: `${username} & Co <b>`,
      x_user_id: `90${handle.id}`,
      backfill_status: 'completed',
      initial_backfill_complete: true,
      // Far ahead: the collector leaves this handle alone; tests store its tweets.
      next_poll_at: '2999-01-01T00:00:00.000Z',
    })
    .where('id', '=', handle.id)
    .execute();
  for (const userId of userIds) {
    await insertLink(t.db.db, { userId, handleId: handle.id, backfillDays: 7, now });
    await t.db.db
      .updateTable('user_handles')
      .set({
        telegram_enabled: toggles.telegram ?? false,
        discord_enabled: toggles.discord ?? false,
      })
      .where('user_id', '=', userId)
      .where('handle_id', '=', handle.id)
      .execute();
  }
  return handle.id;
}

/** Tweets created one minute apart, oldest first, ending now. */
export function tweetsInOrder(count: number, extra: Partial<SourceTweet> = {}): SourceTweet[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, index) =>
    makeTweet({ createdAt: new Date(now - (count - index) * 60_000).toISOString(), ...extra }),
  );
}

/**
 * Three posts of one second (a thread), in posting order. Their ids differ in length, so text
 * order of the ids ('999…' after '1000…') is not their order.
 */
export function postsOfOneSecond(at = Date.now()): SourceTweet[] {
  const second = new Date(Math.floor(at / 1000) * 1000).toISOString();
  return ['999999999999999999', '1000000000000000000', '1000000000000000001'].map((id, index) =>
    makeTweet({ id, createdAt: second, text: `Thread part ${index + 1}` }),
  );
}

/**
 * Stores posts one at a time, newest first, as a source lists them: storage ids then run
 * against posting order. Marked for fan-out when `fanout` (as monitoring stores them).
 */
export async function storeNewestFirst(
  t: TestApp,
  handleId: number,
  posts: readonly SourceTweet[],
  fanout = false,
): Promise<void> {
  for (const post of [...posts].reverse()) {
    await upsertTweets(t.db.db, handleId, [post], new Date().toISOString(), {
      markForFanout: fanout,
    });
  }
}

/** Stores tweets as monitoring does (marked for fan-out) and wakes the worker. */
export async function monitorFinds(
  t: NotifyTestApp,
  handleId: number,
  tweets: SourceTweet[],
): Promise<void> {
  await upsertTweets(t.db.db, handleId, tweets, new Date().toISOString(), {
    markForFanout: true,
  });
  t.worker.wake();
}

/** Outbox rows by status. */
export async function outboxCounts(t: TestApp): Promise<Record<string, number>> {
  const rows = await t.db.db
    .selectFrom('notification_outbox')
    .select(['status'])
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
}

/**
 * Polls `check` until it returns true (or fails the test after `timeoutMs`). `state`, when given,
 * describes what there was instead, for the failure message.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  what = 'condition',
  state?: () => Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) {
      const seen = state ? `; last seen: ${JSON.stringify(await state())}` : '';
      throw new Error(`timed out waiting for ${what}${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
