import { afterEach, describe, expect, it } from 'vitest';
import {
  deliveryLogResponseSchema,
  settingsResponseSchema,
  type Delivery,
  type Settings,
} from '@perch/shared';
import { createXApiSource } from '../src/sources/index.js';
import { upsertTweets } from '../src/modules/tweets/tweets.repository.js';
import { dataOf, expectError } from './assertions.js';
import { startFakeXServer, type FakeXServer } from './fakes/fake-x-server.js';
import { DIALECTS, TestClient } from './helpers.js';
import {
  buildNotifyTestApp,
  handleFollowedBy,
  monitorFinds,
  outboxCounts,
  postsOfOneSecond,
  storeNewestFirst,
  tweetsInOrder,
  userWithChannels,
  waitUntil,
  type NotifyTestApp,
  type NotifyTestOptions,
} from './notify-helpers.js';

/** The tweet id a delivered Telegram message links to (from its HTML). */
const tweetIdOfTelegram = (raw: string) => /status\/(\d+)/.exec(raw)?.[1];
const tweetIdOfDiscord = (embeds: Record<string, unknown>[]) =>
  /status\/(\d+)/.exec(String(embeds[0]?.url ?? ''))?.[1];

async function settingsOf(client: TestClient): Promise<Settings> {
  return dataOf(await client.get('/api/v1/settings'), settingsResponseSchema).settings;
}

async function deliveriesOf(client: TestClient, query = ''): Promise<Delivery[]> {
  return dataOf(await client.get(`/api/v1/settings/deliveries${query}`), deliveryLogResponseSchema)
    .deliveries;
}

describe.each(DIALECTS)('delivery of new tweets (%s)', (dialect) => {
  let t: NotifyTestApp;

  afterEach(async () => {
    await t?.close();
  });

  async function setUp(options: NotifyTestOptions = {}) {
    t = await buildNotifyTestApp(dialect, options);
  }

  /** `count` users with both channels connected and the bot running. */
  async function users(count: number) {
    const made = [];
    for (let i = 0; i < count; i++) {
      const chat = String(100_000 + i);
      const discord = String(82198898841029460n + BigInt(i));
      const { client, userId } = await userWithChannels(t, `user${i}`, {
        telegram: chat,
        discord,
      });
      const started = await client.post('/api/v1/bot/start');
      expect(started.statusCode, started.body).toBe(200);
      made.push({ client, userId, chat, discord });
    }
    return made;
  }

  const sentCount = async () => (await outboxCounts(t)).sent ?? 0;

  it('50 new tweets x 5 users x 2 channels: exactly one message per user, tweet and channel', async () => {
    await setUp({ fast: true });
    const people = await users(5);
    const handleId = await handleFollowedBy(
      t,
      'busy_author',
      people.map((p) => p.userId),
    );
    await t.worker.start();
    const tweets = tweetsInOrder(50);
    await monitorFinds(t, handleId, tweets);
    await waitUntil(async () => (await sentCount()) === 500, 60_000, '500 deliveries');
    expect(await outboxCounts(t)).toEqual({ sent: 500 });
    // Settle: nothing more arrives later.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const ids = tweets.map((tweet) => tweet.id);
    for (const person of people) {
      const telegram = t.telegram.messagesTo(person.chat).map((m) => tweetIdOfTelegram(m.raw));
      // Each tweet once, oldest first.
      expect(telegram).toEqual(ids);
      const discord = t.discord.messagesTo(person.discord).map((m) => tweetIdOfDiscord(m.embeds));
      expect([...discord].sort()).toEqual([...ids].sort());
    }
    expect(t.telegram.messages).toHaveLength(250);
    expect(t.discord.messages).toHaveLength(250);
    const stored = await t.db.db
      .selectFrom('tweets')
      .select('id')
      .where('fanout_pending', '=', true)
      .execute();
    expect(stored).toHaveLength(0);
  }, 90_000);

  /**
   * One user with both channels connected and the bot running, following `author` with
   * `toggles` (both channels on unless given); the worker runs.
   */
  async function onePersonFollowing(
    options: NotifyTestOptions,
    author: string,
    toggles?: { telegram?: boolean; discord?: boolean },
  ) {
    await setUp(options);
    const [person] = await users(1);
    const handleId = await handleFollowedBy(t, author, [person!.userId], toggles);
    await t.worker.start();
    return { person: person!, handleId };
  }

  /**
   * One user on both channels following an author whose posts of one second were found by
   * monitoring before the worker runs, stored newest first (one fan-out takes all); waits for
   * the 6 deliveries and returns the user and the posts' ids in posting order.
   */
  async function postsOfOneSecondDelivered(options: NotifyTestOptions) {
    await setUp(options);
    const [person] = await users(1);
    const handleId = await handleFollowedBy(t, 'thread_author', [person!.userId]);
    const posts = postsOfOneSecond();
    await storeNewestFirst(t, handleId, posts, true);
    await t.worker.start();
    await waitUntil(async () => (await sentCount()) === 6, 15_000, '6 deliveries');
    return { person: person!, ids: posts.map((post) => post.id) };
  }

  /** Waits until nothing is pending or being sent. */
  const outboxSettled = () =>
    waitUntil(
      async () => {
        const counts = await outboxCounts(t);
        return (counts.pending ?? 0) === 0 && (counts.sending ?? 0) === 0;
      },
      15_000,
      'the outbox to settle',
    );

  it('delivers posts of one second in posting order, whatever order they were stored in', async () => {
    const { person, ids } = await postsOfOneSecondDelivered({ fast: true });
    expect(t.telegram.messagesTo(person.chat).map((m) => tweetIdOfTelegram(m.raw))).toEqual(ids);
    expect(t.discord.messagesTo(person.discord).map((m) => tweetIdOfDiscord(m.embeds))).toEqual(
      ids,
    );
  }, 30_000);

  it('a digest lists posts of one second oldest first', async () => {
    const { person, ids } = await postsOfOneSecondDelivered({
      fast: true,
      worker: { digestAfter: 2 },
    });
    const linked = (text: string) => [...text.matchAll(/status\/(\d+)/g)].map((match) => match[1]);
    const telegram = t.telegram.messagesTo(person.chat);
    expect(telegram).toHaveLength(1);
    expect(linked(telegram[0]!.raw)).toEqual(ids);
    const discord = t.discord.messagesTo(person.discord);
    expect(discord).toHaveLength(1);
    expect(linked(discord[0]!.content ?? '')).toEqual(ids);
  }, 30_000);

  it('paces to 1 message a second per Telegram chat without a single 429, chats in parallel', async () => {
    await setUp();
    const people = await users(2);
    const handleId = await handleFollowedBy(
      t,
      'paced_author',
      people.map((p) => p.userId),
      { telegram: true },
    );
    await t.worker.start();
    const started = Date.now();
    await monitorFinds(t, handleId, tweetsInOrder(3));
    await waitUntil(async () => (await sentCount()) === 6, 20_000, '6 deliveries');
    const elapsed = Date.now() - started;
    // Two chats in parallel: about 2 s, not 5 s.
    expect(elapsed).toBeGreaterThan(1_800);
    expect(elapsed).toBeLessThan(4_500);
    for (const person of people) {
      const times = t.telegram.messagesTo(person.chat).map((m) => m.at);
      expect(times).toHaveLength(3);
      for (let i = 1; i < times.length; i++) {
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(900);
      }
    }
    expect(t.telegram.requests.filter((r) => r.status === 429)).toHaveLength(0);
  }, 30_000);

  it('a 429 with retry_after: delivered once, after the wait', async () => {
    const { person, handleId } = await onePersonFollowing({ fast: true }, 'limited_author', {
      telegram: true,
    });
    t.telegram.rateLimitNext(1, 2);
    const [tweet] = tweetsInOrder(1);
    await monitorFinds(t, handleId, [tweet!]);
    await waitUntil(async () => (await sentCount()) === 1, 15_000, 'the delivery');
    const limited = t.telegram.requests.find((r) => r.status === 429);
    expect(limited).toBeDefined();
    const delivered = t.telegram.messagesTo(person.chat);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.at - limited!.at).toBeGreaterThanOrEqual(2_000);
    const [row] = await deliveriesOf(person.client);
    // A rate limit does not use up an attempt.
    expect(row).toMatchObject({ status: 'sent', attempts: 1, error: null });
  }, 30_000);

  it('retries transient failures with backoff, then delivers once', async () => {
    const { person, handleId } = await onePersonFollowing({ fast: true }, 'flaky_author', {
      telegram: true,
      discord: true,
    });
    t.telegram.failNext(2, 500);
    t.discord.failNext(1, 502);
    await monitorFinds(t, handleId, tweetsInOrder(1));
    await waitUntil(async () => (await sentCount()) === 2, 15_000, 'both deliveries');
    expect(t.telegram.messagesTo(person.chat)).toHaveLength(1);
    expect(t.discord.messagesTo(person.discord)).toHaveLength(1);
    const log = await deliveriesOf(person.client, '?channel=telegram');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: 'sent', attempts: 3, channel: 'telegram' });
  }, 30_000);

  it('a channel that stays down holds its notifications, probes rarely and expires them only by age', async () => {
    const { person, handleId } = await onePersonFollowing(
      {
        fast: true,
        worker: { circuitAfter: 2, probeEveryMs: 400, maxAgeMs: 3_000 },
      },
      'down_author',
      {
        telegram: true,
      },
    );
    t.telegram.failNext(1_000, 500);
    const before = t.telegram.requests.length;
    await monitorFinds(t, handleId, tweetsInOrder(1));
    await waitUntil(async () => t.worker.isDown('telegram'), 10_000, 'the circuit to open');
    const openedAt = Date.now();
    const [waiting] = await deliveriesOf(person.client);
    expect(waiting).toMatchObject({ status: 'pending' });
    await waitUntil(async () => (await outboxCounts(t)).expired === 1, 15_000, 'expiry');
    // Two failures opened the circuit; after that one probe per 400 ms, not a retry storm.
    const sends = t.telegram.requests.slice(before).filter((r) => r.method === 'sendMessage');
    const probes = sends.length - 2;
    expect(probes).toBeLessThanOrEqual(Math.ceil((Date.now() - openedAt) / 400) + 1);
    const [row] = await deliveriesOf(person.client);
    expect(row).toMatchObject({ status: 'expired' });
    expect(row!.error).toMatch(/^Given up: not delivered within 3 s\. Last error: /);
    expect(row!.note).toBeNull();
    // A transient failure does not stop the channel.
    expect((await settingsOf(person.client)).telegram.stoppedReason).toBeNull();
  }, 30_000);

  it('a blocked bot stops the channel with the reason shown, and nothing more is sent to it', async () => {
    await setUp({ fast: true });
    const [person] = await users(1);
    const handleId = await handleFollowedBy(t, 'blocked_author', [person!.userId]);
    t.telegram.setChat(person!.chat, 'blocked');
    await t.worker.start();
    await monitorFinds(t, handleId, tweetsInOrder(5));
    await waitUntil(
      async () => (await outboxCounts(t)).sent === 5,
      15_000,
      'the Discord deliveries',
    );
    await waitUntil(async () => (await outboxCounts(t)).cancelled === 4, 15_000, 'cancellation');
    expect(await outboxCounts(t)).toEqual({ sent: 5, failed: 1, cancelled: 4 });
    const settings = await settingsOf(person!.client);
    expect(settings.telegram.stoppedReason).toBe(
      'You blocked the bot in Telegram: unblock it and test again',
    );
    expect(settings.telegramConnected).toBe(true);
    const attempts = () =>
      t.telegram.requests.filter((r) => r.chatId === person!.chat && r.method === 'sendMessage');
    expect(attempts()).toHaveLength(1);

    // Later tweets are not even queued for the stopped channel; Discord carries on.
    await monitorFinds(t, handleId, tweetsInOrder(2));
    await waitUntil(async () => (await outboxCounts(t)).sent === 7, 15_000, 'more Discord');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(attempts()).toHaveLength(1);
    const log = await deliveriesOf(person!.client, '?channel=telegram&limit=100');
    expect(log.filter((row) => row.status === 'failed')).toHaveLength(1);
    expect(log.filter((row) => row.status === 'cancelled')).toHaveLength(4);

    // Saving the chat again resumes delivery.
    t.telegram.setChat(person!.chat, 'ok');
    await person!.client.post('/api/v1/settings', { telegram_chat_id: person!.chat });
    expect((await settingsOf(person!.client)).telegram.stoppedReason).toBeNull();
    await monitorFinds(t, handleId, tweetsInOrder(1));
    await waitUntil(async () => t.telegram.messagesTo(person!.chat).length === 1, 15_000, 'resume');
  }, 30_000);

  it('closed Discord DMs stop Discord for that user only', async () => {
    await setUp({ fast: true });
    const [ann, ben] = await users(2);
    const handleId = await handleFollowedBy(t, 'dm_author', [ann!.userId, ben!.userId], {
      discord: true,
    });
    t.discord.setUser(ann!.discord, 'dms_closed');
    await t.worker.start();
    await monitorFinds(t, handleId, tweetsInOrder(3));
    await waitUntil(async () => (await outboxCounts(t)).sent === 3, 15_000, "ben's deliveries");
    await waitUntil(async () => (await outboxCounts(t)).cancelled === 2, 15_000, 'cancel');
    expect((await settingsOf(ann!.client)).discord.stoppedReason).toMatch(
      /share a server with the bot/,
    );
    expect((await settingsOf(ben!.client)).discord.stoppedReason).toBeNull();
    expect(t.discord.messagesTo(ben!.discord)).toHaveLength(3);
  }, 30_000);

  it('delivers HTML special characters as written and a 5,000-character text in full', async () => {
    const { person, handleId } = await onePersonFollowing({ fast: true }, 'html_author');
    const special = `Ship it <b>now</b> & "then" <script>alert('x')</script> 5 > 3 < 4 &amp; done`;
    const words = Array.from({ length: 1000 }, (_, i) => `word${i}`).join(' ');
    const long = words.slice(0, 5_000);
    expect(long.length).toBe(5_000);
    const [first, second] = tweetsInOrder(2);
    await monitorFinds(t, handleId, [
      { ...first!, text: special },
      { ...second!, text: long },
    ]);
    await waitUntil(async () => (await sentCount()) === 4, 15_000, 'deliveries');

    const messages = t.telegram.messagesTo(person.chat);
    // The special one in one message, the long one in two (4096 is Telegram's limit).
    expect(messages).toHaveLength(3);
    expect(messages[0]!.parseMode).toBe('HTML');
    expect(messages[0]!.text).toContain(special);
    expect(messages[0]!.text).toContain('html_author & Co <b>');
    const longParts = messages.slice(1).map((m) => m.text);
    expect(longParts.every((text) => [...text].length <= 4096)).toBe(true);
    const squash = (text: string) => text.replace(/\s+/g, ' ');
    expect(squash(longParts.join(' '))).toContain(squash(long));

    const discord = t.discord.messagesTo(person.discord);
    expect(discord).toHaveLength(2);
    expect(discord[0]!.embeds[0]!.description).toBe(special);
    const trimmed = String(discord[1]!.embeds[0]!.description);
    expect([...trimmed].length).toBeLessThanOrEqual(4096);
    expect(trimmed.endsWith('…')).toBe(true);
    expect(long.startsWith(trimmed.slice(0, -1))).toBe(true);
  }, 30_000);

  it('a restart mid-delivery loses nothing and doubles nothing', async () => {
    // 100 messages a second per service: about 1.2 s of sending, so a stop lands mid-way.
    await setUp({ fast: true, ratePerSecond: 100 });
    const people = await users(3);
    const handleId = await handleFollowedBy(
      t,
      'restart_author',
      people.map((p) => p.userId),
    );
    const first = t.worker;
    await first.start();
    const tweets = tweetsInOrder(40);
    await monitorFinds(t, handleId, tweets);
    await waitUntil(async () => (await sentCount()) >= 30, 30_000, 'some deliveries');
    await first.stop();
    const stoppedAt = await sentCount();
    expect(stoppedAt).toBeLessThan(240);
    // A crash would also leave rows claimed but never sent: put some back in that state.
    const pending = await t.db.db
      .selectFrom('notification_outbox')
      .select('id')
      .where('status', '=', 'pending')
      .limit(5)
      .execute();
    // Claimed by a worker that died: its lease runs out a moment later.
    await t.db.db
      .updateTable('notification_outbox')
      .set({
        status: 'sending',
        claimed_by: 'dead-worker',
        next_attempt_at: new Date(Date.now() + 500).toISOString(),
      })
      .where(
        'id',
        'in',
        pending.map((row) => row.id),
      )
      .execute();

    const second = t.newWorker();
    await second.start();
    await waitUntil(async () => (await sentCount()) === 240, 60_000, 'all deliveries');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await outboxCounts(t)).toEqual({ sent: 240 });
    for (const person of people) {
      const telegram = t.telegram.messagesTo(person.chat).map((m) => tweetIdOfTelegram(m.raw));
      expect([...telegram].sort()).toEqual(tweets.map((tw) => tw.id).sort());
      const discord = t.discord.messagesTo(person.discord).map((m) => tweetIdOfDiscord(m.embeds));
      expect([...discord].sort()).toEqual(tweets.map((tw) => tw.id).sort());
    }
  }, 90_000);

  it('fans out only to followers who want it: bot, channel, toggle, preferences', async () => {
    await setUp({ fast: true });
    const made = [];
    for (const [i, name] of ['on', 'nobot', 'notoggle', 'stopped', 'noreplies'].entries()) {
      const { client, userId } = await userWithChannels(t, `fan_${name}`, {
        telegram: String(200_000 + i),
      });
      // Forwarding starts by itself with X and a channel; 'nobot' has it off.
      if (name === 'nobot') {
        await t.db.db
          .updateTable('user_settings')
          .set({ bot_running: false })
          .where('user_id', '=', userId)
          .execute();
      }
      made.push({ client, userId, chat: String(200_000 + i) });
    }
    const [on, noBot, noToggle, stopped, noReplies] = made;
    const handleId = await handleFollowedBy(
      t,
      'fan_author',
      [on!.userId, noBot!.userId, stopped!.userId, noReplies!.userId],
      { telegram: true },
    );
    await t.db.db
      .insertInto('user_handles')
      .values({
        user_id: noToggle!.userId,
        handle_id: handleId,
        added_at: new Date().toISOString(),
        backfill_days: 7,
        telegram_enabled: false,
        discord_enabled: false,
      })
      .execute();
    await t.db.db
      .updateTable('user_settings')
      .set({ telegram_stopped_reason: 'blocked' })
      .where('user_id', '=', stopped!.userId)
      .execute();
    await noReplies!.client.request({
      method: 'PUT',
      url: '/api/v1/settings/notifications',
      payload: { include_replies: false },
    });
    const xUserId = (
      await t.db.db
        .selectFrom('handles')
        .select('x_user_id')
        .where('id', '=', handleId)
        .executeTakeFirstOrThrow()
    ).x_user_id;

    await t.worker.start();
    // A backfilled tweet (not marked) is never announced.
    await upsertTweets(t.db.db, handleId, tweetsInOrder(1), new Date().toISOString());
    const [plain, reply, selfReply] = tweetsInOrder(3);
    await monitorFinds(t, handleId, [
      plain!,
      { ...reply!, referencedTypes: ['replied_to'], inReplyToUserId: '12345' },
      { ...selfReply!, referencedTypes: ['replied_to'], inReplyToUserId: xUserId },
    ]);
    await waitUntil(async () => (await sentCount()) === 5, 15_000, 'deliveries');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await outboxCounts(t)).toEqual({ sent: 5 });
    expect(t.telegram.messagesTo(on!.chat)).toHaveLength(3);
    expect(t.telegram.messagesTo(noReplies!.chat).map((m) => tweetIdOfTelegram(m.raw))).toEqual([
      plain!.id,
      selfReply!.id,
    ]);
    for (const person of [noBot, noToggle, stopped]) {
      expect(t.telegram.messagesTo(person!.chat)).toHaveLength(0);
    }
  }, 30_000);

  it('switching a channel off cancels what was still waiting for it', async () => {
    const { person, handleId } = await onePersonFollowing({}, 'cancel_author', {
      telegram: true,
      discord: true,
    });
    // One message a second per chat: most of these are still pending a moment later.
    await monitorFinds(t, handleId, tweetsInOrder(8));
    await waitUntil(async () => t.telegram.messagesTo(person.chat).length >= 1, 15_000, 'first');
    const toggled = await person.client.request({
      method: 'PUT',
      url: `/api/v1/handles/${handleId}/notifications`,
      payload: { telegramEnabled: false },
    });
    expect(toggled.statusCode).toBe(200);
    await person.client.post('/api/v1/settings', { discord_user_id: '' });
    // What was in flight finishes; nothing else is sent.
    await outboxSettled();
    const counts = await outboxCounts(t);
    expect(counts.cancelled).toBeGreaterThan(0);
    const sentTelegram = t.telegram.messagesTo(person.chat).length;
    expect(sentTelegram).toBeLessThan(8);
    const log = await deliveriesOf(person.client, '?channel=telegram&limit=100');
    expect(log.filter((row) => row.status === 'sent')).toHaveLength(sentTelegram);
  }, 30_000);

  it('unfollowing a handle drops what was still waiting for it', async () => {
    const { person, handleId } = await onePersonFollowing({}, 'unfollowed_author', {
      telegram: true,
    });
    await monitorFinds(t, handleId, tweetsInOrder(6));
    await waitUntil(async () => t.telegram.messagesTo(person.chat).length >= 1, 15_000, 'first');
    expect((await person.client.delete(`/api/v1/handles/${handleId}`)).statusCode).toBe(200);
    await outboxSettled();
    const sent = t.telegram.messagesTo(person.chat).length;
    expect(sent).toBeLessThan(6);
    const log = await deliveriesOf(person.client, '?limit=100');
    const cancelled = log.filter((row) => row.status === 'cancelled');
    expect(cancelled).toHaveLength(6 - sent);
    expect(cancelled[0]!.error).toBe('The handle is no longer followed');
  }, 30_000);

  it('the delivery log lists the latest deliveries per channel with what happened', async () => {
    const { person, handleId } = await onePersonFollowing({ fast: true }, 'log_author');
    const tweets = tweetsInOrder(3, { text: 'Hello from the log' });
    await monitorFinds(t, handleId, tweets);
    await waitUntil(async () => (await sentCount()) === 6, 15_000, 'deliveries');

    const all = await deliveriesOf(person.client);
    expect(all).toHaveLength(6);
    const telegram = await deliveriesOf(person.client, '?channel=telegram&limit=2');
    expect(telegram).toHaveLength(2);
    expect(telegram[0]).toMatchObject({
      channel: 'telegram',
      status: 'sent',
      handle: 'log_author',
      excerpt: 'Hello from the log',
      attempts: 1,
      error: null,
      nextAttemptAt: null,
    });
    expect(telegram[0]!.tweetUrl).toBe(`https://x.com/log_author/status/${telegram[0]!.tweetId}`);
    expect(Date.parse(telegram[0]!.sentAt!)).not.toBeNaN();
    expect(telegram[0]!.id).toBeGreaterThan(telegram[1]!.id);

    expectError(await person.client.get('/api/v1/settings/deliveries?channel=sms'), 400);
    expectError(await person.client.get('/api/v1/settings/deliveries?limit=0'), 400);
    // Nobody else sees them.
    const other = new TestClient(t.app);
    await other.register(t.db, 'other');
    expect(await deliveriesOf(other)).toEqual([]);
  }, 30_000);
});

describe.each(DIALECTS)('monitoring to delivery, end to end (%s)', (dialect) => {
  let t: NotifyTestApp;
  let fakeX: FakeXServer;

  afterEach(async () => {
    await t?.close();
    await fakeX?.close();
  });

  it('announces tweets found by monitoring, never those found by the backfill', async () => {
    fakeX = await startFakeXServer();
    const source = createXApiSource({
      baseUrl: fakeX.baseUrl,
      bearerToken: 'test-bearer-token',
      retryBaseMs: 10,
    });
    t = await buildNotifyTestApp(dialect, { fast: true, source });
    const xUser = fakeX.addUser({ username: 'NewsDesk', name: 'News & Desk' });
    const old = tweetsInOrder(5).map((tweet) => ({
      ...tweet,
      createdAt: new Date(Date.parse(tweet.createdAt) - 86_400_000).toISOString(),
    }));
    fakeX.addSourceTweets(xUser.id, old);

    const { client } = await userWithChannels(t, 'reader', {
      telegram: '300001',
      discord: '82198898841029999',
    });
    const added = await client.post('/api/v1/handles', { username: 'newsdesk', backfill_days: 7 });
    expect(added.statusCode, added.body).toBe(201);
    const handleId = (added.json() as { data: { handle: { id: number } } }).data.handle.id;
    for (const payload of [{ telegramEnabled: true }, { discordEnabled: true }]) {
      const response = await client.request({
        method: 'PUT',
        url: `/api/v1/handles/${handleId}/notifications`,
        payload,
      });
      expect(response.statusCode, response.body).toBe(200);
    }
    expect((await client.post('/api/v1/bot/start')).statusCode).toBe(200);
    await t.worker.start();
    await waitUntil(
      async () =>
        (
          await t.db.db
            .selectFrom('handles')
            .select('backfill_status')
            .where('id', '=', handleId)
            .executeTakeFirstOrThrow()
        ).backfill_status === 'completed',
      15_000,
      'backfill',
    );

    const fresh = tweetsInOrder(3).map((tweet, i) => ({
      ...tweet,
      createdAt: new Date(Date.now() - (3 - i) * 1000).toISOString(),
    }));
    fakeX.addSourceTweets(xUser.id, fresh);
    await t.collector.pollNow(handleId);
    await waitUntil(async () => ((await outboxCounts(t)).sent ?? 0) === 6, 15_000, 'deliveries');
    expect(await outboxCounts(t)).toEqual({ sent: 6 });
    expect(t.telegram.messagesTo('300001').map((m) => tweetIdOfTelegram(m.raw))).toEqual(
      fresh.map((tweet) => tweet.id),
    );
    expect(t.telegram.messagesTo('300001')[0]!.text).toContain('News & Desk');
    expect(t.discord.messagesTo('82198898841029999')).toHaveLength(3);
  }, 60_000);
});
