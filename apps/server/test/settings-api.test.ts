import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  PLACEHOLDER_TWITTER_USERNAME,
  SETTINGS_MESSAGES,
  TEST_MESSAGE_TEXT,
  botStatusSchema,
  channelTestResponseSchema,
  handleListResponseSchema,
  handleNotificationsResponseSchema,
  notificationPreferencesResponseSchema,
  settingsResponseSchema,
  telegramLinkSchema,
  type Settings,
} from '@perch/shared';
import type { Updateable } from 'kysely';
import type { UserSettingsTable } from '../src/db/types.js';
import { startReadyBots } from '../src/modules/settings/settings.repository.js';
import { TelegramUpdatesPoller } from '../src/modules/settings/telegram-updates.js';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TestClient } from './helpers.js';
import {
  buildNotifyTestApp,
  handleFollowedBy,
  waitUntil,
  type NotifyTestApp,
} from './notify-helpers.js';

const CHAT = '987654321';
const DISCORD_USER = '82198898841029460';

async function settingsOf(client: TestClient): Promise<Settings> {
  return dataOf(await client.get('/api/v1/settings'), settingsResponseSchema).settings;
}

describe.each(DIALECTS)('settings API (%s)', (dialect) => {
  let t: NotifyTestApp;
  let alice: TestClient;
  let aliceId: number;

  beforeEach(async () => {
    t = await buildNotifyTestApp(dialect);
    alice = new TestClient(t.app);
    aliceId = (await alice.register(t.db, 'alice')).data.user.id;
  });

  afterEach(async () => {
    await t.close();
  });

  /** Writes `values` into alice's settings row directly, as older versions or other paths did. */
  const aliceSettingsRow = (values: Updateable<UserSettingsTable>) =>
    t.db.db.updateTable('user_settings').set(values).where('user_id', '=', aliceId).execute();

  const save = (body: Record<string, unknown>, client = alice) =>
    client.post('/api/v1/settings', body);

  it('needs a session everywhere', async () => {
    const anonymous = new TestClient(t.app);
    for (const [method, url] of [
      ['GET', '/api/v1/settings'],
      ['POST', '/api/v1/settings'],
      ['GET', '/api/v1/settings/notifications'],
      ['PUT', '/api/v1/settings/notifications'],
      ['POST', '/api/v1/settings/telegram/test'],
      ['POST', '/api/v1/settings/discord/test'],
      ['POST', '/api/v1/settings/telegram/link'],
      ['GET', '/api/v1/settings/deliveries'],
      ['POST', '/api/v1/test-telegram'],
      ['POST', '/api/v1/test-discord'],
      ['POST', '/api/v1/notifications/telegram'],
      ['POST', '/api/v1/notifications/discord'],
      ['PUT', '/api/v1/handles/1/notifications'],
      ['POST', '/api/v1/bot/start'],
      ['GET', '/api/v1/bot/status'],
    ] as const) {
      expectError(await anonymous.request({ method, url, payload: {} }), 401);
    }
  });

  it('starts unconfigured, with both channels available and the bot named', async () => {
    expect(await settingsOf(alice)).toEqual({
      status: 'unconfigured',
      twitter_username: null,
      telegram_chat_id: null,
      discord_user_id: null,
      twitterConnected: false,
      telegramConnected: false,
      discordConnected: false,
      twitterConnection: 'none',
      botRunning: false,
      telegram: {
        available: true,
        stoppedReason: null,
        hint: null,
        botUsername: 'perch_test_bot',
        linkAvailable: true,
      },
      discord: { available: true, stoppedReason: null, hint: null },
    });
  });

  it('saves and disconnects Telegram with the spec texts, the chat id normalised', async () => {
    let response = await save({ telegram_chat_id: ' @987654321 ' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ message: 'Telegram settings saved successfully.' });
    let settings = dataOf(response, settingsResponseSchema).settings;
    expect(settings).toMatchObject({ telegram_chat_id: CHAT, telegramConnected: true });
    expect((await settingsOf(alice)).telegram_chat_id).toBe(CHAT);

    response = await save({ telegram_chat_id: '-1001234567890' });
    expect(dataOf(response, settingsResponseSchema).settings.telegram_chat_id).toBe(
      '-1001234567890',
    );

    response = await save({ telegram_chat_id: '' });
    expect(response.json()).toMatchObject({ message: 'Telegram disconnected successfully!' });
    settings = dataOf(response, settingsResponseSchema).settings;
    expect(settings).toMatchObject({ telegram_chat_id: null, telegramConnected: false });
  });

  it('refuses bad chat ids with the spec texts', async () => {
    for (const [value, message] of [
      ['   ', 'Please enter a valid Telegram Chat ID'],
      ['@', 'Please enter a valid Telegram Chat ID'],
      ['@johndoe', 'Please use your numeric Chat ID, not your username.'],
      ['12ab34', 'Please use your numeric Chat ID, not your username.'],
      ['12-34', 'Please enter a valid Telegram Chat ID'],
      ['1.5', 'Please enter a valid Telegram Chat ID'],
    ] as const) {
      expectError(await save({ telegram_chat_id: value }), 400, { message });
    }
    expectError(await save({ telegram_chat_id: 12345 }), 400);
    expect((await settingsOf(alice)).telegram_chat_id).toBeNull();
  });

  it('saves and disconnects Discord with the spec texts', async () => {
    let response = await save({ discord_user_id: ` ${DISCORD_USER} ` });
    expect(response.json()).toMatchObject({ message: 'Discord settings saved successfully.' });
    expect(dataOf(response, settingsResponseSchema).settings).toMatchObject({
      discord_user_id: DISCORD_USER,
      discordConnected: true,
    });
    response = await save({ discord_user_id: '' });
    expect(response.json()).toMatchObject({ message: 'Discord disconnected successfully.' });
    expect(dataOf(response, settingsResponseSchema).settings.discordConnected).toBe(false);

    expectError(await save({ discord_user_id: '  ' }), 400, {
      message: 'Please enter your Discord User ID',
    });
    expectError(await save({ discord_user_id: 'ann#1234' }), 400, {
      message: SETTINGS_MESSAGES.discordUserIdInvalid,
    });
    expectError(await save({ discord_user_id: '1234' }), 400, {
      message: SETTINGS_MESSAGES.discordUserIdInvalid,
    });
  });

  it("derives the Twitter connection; 'placeholder_username' counts as not set", async () => {
    let response = await save({ twitter_username: 'placeholder_username' });
    expect(response.statusCode).toBe(200);
    expect(dataOf(response, settingsResponseSchema).settings).toMatchObject({
      twitter_username: null,
      twitterConnected: false,
      twitterConnection: 'none',
    });
    response = await save({ twitter_username: '@Jack' });
    expect(response.json()).toMatchObject({ message: SETTINGS_MESSAGES.twitterSaved });
    expect(dataOf(response, settingsResponseSchema).settings).toMatchObject({
      twitter_username: 'Jack',
      twitterConnected: true,
      twitterConnection: 'username',
      status: 'unconfigured',
    });
    response = await save({ discord_user_id: DISCORD_USER });
    expect(dataOf(response, settingsResponseSchema).settings.status).toBe('configured');

    expectError(await save({ twitter_username: 'not a handle!' }), 400, {
      message: 'Invalid Twitter handle provided',
    });
    // The placeholder is stored as "not set" even when it is written to the table directly.
    await aliceSettingsRow({ twitter_username: 'placeholder_username' });
    expect(await settingsOf(alice)).toMatchObject({
      twitterConnected: false,
      status: 'unconfigured',
    });
    // An X account connected with OAuth wins over the typed name.
    await t.db.db
      .insertInto('x_accounts')
      .values({
        user_id: aliceId,
        x_user_id: '42',
        username: 'alice_on_x',
        access_token: 'sealed',
        connected_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .execute();
    expect(await settingsOf(alice)).toMatchObject({
      twitter_username: 'alice_on_x',
      twitterConnected: true,
      twitterConnection: 'oauth',
      status: 'configured',
    });
  });

  it('answers an empty or unknown save with 400, never a 500', async () => {
    expectError(await save({}), 400, { message: SETTINGS_MESSAGES.nothingToSave });
    expectError(await save({ favourite_colour: 'blue' }), 400);
    // null disconnects like '' does.
    const nulled = await save({ telegram_chat_id: null });
    expect(nulled.statusCode).toBe(200);
    expect(nulled.json()).toMatchObject({ message: 'Telegram disconnected successfully!' });
  });

  it('keeps users apart', async () => {
    await save({ telegram_chat_id: CHAT });
    const bob = new TestClient(t.app);
    await bob.register(t.db, 'bob');
    expect((await settingsOf(bob)).telegram_chat_id).toBeNull();
  });

  it('shows channels without a bot token as unavailable, with the operator hint', async () => {
    await t.close();
    t = await buildNotifyTestApp(dialect, { withoutTokens: true });
    alice = new TestClient(t.app);
    await alice.register(t.db, 'alice');
    expect(await settingsOf(alice)).toMatchObject({
      telegram: {
        available: false,
        hint: SETTINGS_MESSAGES.telegramUnavailable,
        botUsername: null,
        linkAvailable: false,
      },
      discord: { available: false, hint: SETTINGS_MESSAGES.discordUnavailable },
    });
    expectError(await alice.post('/api/v1/settings/telegram/test', { chat_id: CHAT }), 409, {
      message: 'Telegram is not set up on this server. Ask the operator to set TELEGRAM_BOT_TOKEN.',
      code: 'TELEGRAM_UNAVAILABLE',
    });
    expectError(
      await alice.post('/api/v1/settings/discord/test', { discord_user_id: DISCORD_USER }),
      409,
      { message: SETTINGS_MESSAGES.discordUnavailable },
    );
    expectError(await alice.post('/api/v1/settings/telegram/link'), 409);
    // Saving still works: the id is kept for when the operator sets the token.
    expect((await save({ telegram_chat_id: CHAT })).statusCode).toBe(200);
  });

  describe('Telegram test', () => {
    const test = (chatId: unknown) =>
      alice.post('/api/v1/settings/telegram/test', { chat_id: chatId });

    it('sends a test message and says so', async () => {
      const response = await test(CHAT);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        success: true,
        message:
          'Telegram test successful! You should receive a test message in your Telegram client.',
      });
      expect(dataOf(response, channelTestResponseSchema)).toEqual({
        status: 'ok',
        channel: 'telegram',
      });
      expect(t.telegram.messagesTo(CHAT).map((m) => m.text)).toEqual([TEST_MESSAGE_TEXT]);
    });

    it("maps 'chat not found' and any 400 to the spec's text", async () => {
      t.telegram.setChat(CHAT, 'not_found');
      expectError(await test(CHAT), 400, {
        message: 'Test message failed. Please double-check the Chat ID...',
        code: 'TELEGRAM_CHAT_NOT_FOUND',
      });
      // The fake refuses ids of more than 16 digits as Telegram does: 400 chat not found.
      expectError(await test('12345678901234567'), 400, {
        message: 'Test message failed. Please double-check the Chat ID...',
      });
    });

    it('maps a blocked bot to the unblock text', async () => {
      t.telegram.setChat(CHAT, 'blocked');
      expectError(await test(CHAT), 400, {
        message:
          'The bot has been blocked by the user. Please unblock our bot in Telegram and try again.',
        code: 'TELEGRAM_BOT_BLOCKED',
      });
    });

    it("answers anything else with 'Error testing Telegram connection: {message}'", async () => {
      t.telegram.setChat(CHAT, 'never_started');
      const never = expectError(await test(CHAT), 400);
      expect(never.message).toBe(
        'Error testing Telegram connection: The bot cannot write to you first: open the bot in Telegram, press Start and test again',
      );
      t.telegram.setChat(CHAT, 'ok');
      t.telegram.failNext(1, 502);
      const outage = expectError(await test(CHAT), 502, { code: 'TELEGRAM_TEST_FAILED' });
      expect(outage.message).toMatch(/^Error testing Telegram connection: /);
      t.telegram.rateLimitNext(1, 7);
      const limited = await test(CHAT);
      expectError(limited, 429);
      expect(limited.headers['retry-after']).toBe('7');
      expect(limited.json()).toMatchObject({
        message: 'Error testing Telegram connection: Too Many Requests: retry after 7',
      });
    });

    it('validates the chat id with the spec texts', async () => {
      expectError(await test('@ann'), 400, {
        message: 'Please use your numeric Chat ID, not your username.',
      });
      expectError(await test(''), 400, { message: 'Please enter a valid Telegram Chat ID' });
      expectError(await alice.post('/api/v1/settings/telegram/test', {}), 400, {
        message: 'Please enter a valid Telegram Chat ID',
      });
      expect(t.telegram.requests.filter((r) => r.method === 'sendMessage')).toHaveLength(0);
    });

    it('sends one message for repeated tests within the window, a new one after', async () => {
      // The window is 2 s (duplicate-test-guard.test.ts); this app's is 200 ms.
      await t.close();
      t = await buildNotifyTestApp(dialect, { duplicateTestWindowMs: 200 });
      alice = new TestClient(t.app);
      await alice.register(t.db, 'alice');
      const [first, second] = await Promise.all([test(CHAT), test(CHAT)]);
      expect(first.statusCode).toBe(200);
      expect(second.statusCode).toBe(200);
      expect((await test(CHAT)).statusCode).toBe(200);
      expect(t.telegram.messagesTo(CHAT)).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect((await test(CHAT)).statusCode).toBe(200);
      expect(t.telegram.messagesTo(CHAT)).toHaveLength(2);
    });

    it("has the /test-telegram alias answering status 'ok'", async () => {
      const response = await alice.post('/api/v1/test-telegram', { telegram_chat_id: CHAT });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        success: true,
        status: 'ok',
        message: SETTINGS_MESSAGES.telegramTestSuccess,
        data: { status: 'ok', channel: 'telegram' },
      });
      expectError(await alice.post('/api/v1/test-telegram', { telegram_chat_id: 'ann' }), 400, {
        message: 'Please use your numeric Chat ID, not your username.',
      });
    });

    it('a working test of the saved chat clears its stopped reason', async () => {
      await save({ telegram_chat_id: CHAT });
      await aliceSettingsRow({ telegram_stopped_reason: 'blocked' });
      expect((await settingsOf(alice)).telegram.stoppedReason).toBe('blocked');
      expect((await test(CHAT)).statusCode).toBe(200);
      expect((await settingsOf(alice)).telegram.stoppedReason).toBeNull();
    });
  });

  describe('Discord test', () => {
    it('sends a DM and says so; /test-discord too', async () => {
      for (const path of ['/api/v1/settings/discord/test', '/api/v1/test-discord']) {
        const response = await alice.post(path, { discord_user_id: DISCORD_USER });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({
          message: 'Discord test connection successful! Please check your DMs.',
          data: { status: 'ok', channel: 'discord' },
        });
      }
      // The second test came within the 2 s duplicate window: answered, not sent again.
      expect(t.discord.messagesTo(DISCORD_USER).map((m) => m.content)).toEqual([TEST_MESSAGE_TEXT]);
    });

    it("fails with 'Failed to test Discord connection.' and Discord's reason", async () => {
      t.discord.setUser(DISCORD_USER, 'dms_closed');
      const closed = expectError(
        await alice.post('/api/v1/settings/discord/test', { discord_user_id: DISCORD_USER }),
        400,
        { message: 'Failed to test Discord connection.' },
      );
      expect(closed.details).toMatch(/share a server with the bot/);
      const stranger = '82198898841029461';
      t.discord.setUser(stranger, 'unknown');
      const unknown = expectError(
        await alice.post('/api/v1/test-discord', { discord_user_id: stranger }),
        400,
        { message: 'Failed to test Discord connection.' },
      );
      expect(unknown.details).toBe('Discord user not found: check the User ID');
    });

    it('needs an id to test', async () => {
      for (const body of [{}, { discord_user_id: '' }, { discord_user_id: '   ' }]) {
        expectError(await alice.post('/api/v1/settings/discord/test', body), 400, {
          message: 'Please enter your Discord User ID to test',
        });
      }
      expectError(await alice.post('/api/v1/test-discord', { discord_user_id: 'not-an-id' }), 400, {
        message: SETTINGS_MESSAGES.discordUserIdInvalid,
      });
    });
  });

  describe('per-handle toggles', () => {
    let handleId: number;
    beforeEach(async () => {
      handleId = await handleFollowedBy(t, 'toggled_one', [aliceId], {});
    });
    const toggle = (body: Record<string, unknown>, id = handleId) =>
      alice.request({ method: 'PUT', url: `/api/v1/handles/${id}/notifications`, payload: body });

    it('refuses a channel that is not connected', async () => {
      expectError(await toggle({ telegramEnabled: true }), 400, {
        message: 'Please connect Telegram in Settings first',
      });
      expectError(await toggle({ discordEnabled: true }), 400, {
        message: 'Please connect Discord in Settings first',
      });
      // Switching off needs nothing.
      expect((await toggle({ telegramEnabled: false })).statusCode).toBe(200);
    });

    it('switches a connected channel on and off, answering data.handle', async () => {
      await save({ telegram_chat_id: CHAT, discord_user_id: DISCORD_USER });
      let response = await toggle({ telegramEnabled: true });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        message: 'Telegram notifications enabled for @toggled_one',
      });
      expect(dataOf(response, handleNotificationsResponseSchema).handle).toMatchObject({
        id: handleId,
        telegram_enabled: true,
        discord_enabled: false,
      });
      response = await toggle({ discordEnabled: true });
      expect(dataOf(response, handleNotificationsResponseSchema).handle).toMatchObject({
        telegram_enabled: true,
        discord_enabled: true,
      });
      const { handles } = dataOf(await alice.get('/api/v1/handles'), handleListResponseSchema);
      expect(handles[0]).toMatchObject({ telegram_enabled: true, discord_enabled: true });
      response = await toggle({ telegramEnabled: false });
      expect(response.json()).toMatchObject({
        message: 'Telegram notifications disabled for @toggled_one',
        data: { handle: { telegram_enabled: false, discord_enabled: true } },
      });
    });

    it('answers 404 for a handle the user does not follow, 400 for a bad body', async () => {
      await save({ telegram_chat_id: CHAT });
      expectError(await toggle({ telegramEnabled: true }, 999_999), 404, {
        message: 'Handle not found',
      });
      const bob = new TestClient(t.app);
      await bob.register(t.db, 'bob');
      await bob.post('/api/v1/settings', { telegram_chat_id: CHAT });
      expectError(
        await bob.request({
          method: 'PUT',
          url: `/api/v1/handles/${handleId}/notifications`,
          payload: { telegramEnabled: true },
        }),
        404,
      );
      expectError(await toggle({}), 400);
      expectError(await toggle({ telegramEnabled: 'yes' }), 400);
      expectError(await toggle({ telegramEnabled: true }, 'abc' as unknown as number), 400);
    });
  });

  describe('bot', () => {
    const start = () => alice.post('/api/v1/bot/start');
    const status = async () => dataOf(await alice.get('/api/v1/bot/status'), botStatusSchema);

    it('refuses to start unless Twitter and a channel are connected', async () => {
      const message =
        'Twitter account and at least one notification channel (Telegram or Discord) must be configured first';
      expectError(await start(), 400, { message });
      await save({ twitter_username: 'alice_x' });
      expectError(await start(), 400, { message });
      await save({ twitter_username: '', telegram_chat_id: CHAT });
      expectError(await start(), 400, { message });
      expect(await status()).toMatchObject({
        botRunning: false,
        status: 'stopped',
        canStart: false,
      });
    });

    it('starts on the server the moment Twitter and a channel are connected', async () => {
      await save({ discord_user_id: DISCORD_USER });
      expect(await status()).toMatchObject({ botRunning: false, canStart: false });
      const saved = await save({ twitter_username: 'alice_x' });
      expect(dataOf(saved, settingsResponseSchema).settings.botRunning).toBe(true);
      expect(await status()).toMatchObject({ botRunning: true, canStart: true });
      // The other order: X first, the channel last.
      const bob = new TestClient(t.app);
      await bob.register(t.db, 'bob');
      await save({ twitter_username: 'bob_x' }, bob);
      expect((await settingsOf(bob)).botRunning).toBe(false);
      await save({ telegram_chat_id: CHAT }, bob);
      expect((await settingsOf(bob)).botRunning).toBe(true);
    });

    it('starts at server start for every user who qualifies, and only those', async () => {
      const carol = new TestClient(t.app);
      await carol.register(t.db, 'carol');
      const dave = new TestClient(t.app);
      const daveId = (await dave.register(t.db, 'dave')).data.user.id;
      await save({ twitter_username: 'alice_x', telegram_chat_id: CHAT });
      await save({ twitter_username: 'carol_x' }, carol);
      await save({ discord_user_id: DISCORD_USER }, dave);
      // Stored before the server started bots by itself: X and a channel, forwarding off.
      await t.db.db.updateTable('user_settings').set({ bot_running: false }).execute();
      await t.db.db
        .updateTable('user_settings')
        .set({ twitter_username: PLACEHOLDER_TWITTER_USERNAME })
        .where('user_id', '=', daveId)
        .execute();
      const started = await startReadyBots(t.db.db, new Date().toISOString());
      expect(started).toEqual([aliceId]);
      expect((await status()).botRunning).toBe(true);
      expect((await settingsOf(carol)).botRunning).toBe(false);
      expect((await settingsOf(dave)).botRunning).toBe(false);
      // Run again (another process starting): nothing left to start.
      expect(await startReadyBots(t.db.db, new Date().toISOString())).toEqual([]);
    });

    it('POST /bot/start still starts a stopped bot; starting again changes nothing', async () => {
      await save({ twitter_username: 'alice_x', discord_user_id: DISCORD_USER });
      await aliceSettingsRow({ bot_running: false });
      expect(await status()).toMatchObject({ botRunning: false, canStart: true });
      const response = await start();
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: SETTINGS_MESSAGES.botStarted });
      expect(dataOf(response, botStatusSchema)).toEqual({
        botRunning: true,
        status: 'running',
        canStart: true,
        twitterConnected: true,
        telegramConnected: false,
        discordConnected: true,
      });
      expect((await settingsOf(alice)).botRunning).toBe(true);
      const again = await start();
      expect(again.json()).toMatchObject({ message: SETTINGS_MESSAGES.botAlreadyRunning });
      expect(dataOf(again, botStatusSchema).botRunning).toBe(true);
    });

    it('stops when its last channel or Twitter is disconnected', async () => {
      await save({
        twitter_username: 'alice_x',
        discord_user_id: DISCORD_USER,
        telegram_chat_id: CHAT,
      });
      await start();
      await save({ discord_user_id: '' });
      expect((await status()).botRunning).toBe(true);
      await save({ telegram_chat_id: '' });
      expect(await status()).toMatchObject({ botRunning: false, canStart: false });
      await save({ telegram_chat_id: CHAT });
      expect((await status()).botRunning).toBe(true);
      await save({ twitter_username: '' });
      expect((await status()).botRunning).toBe(false);
    });
  });

  describe('notification preferences', () => {
    it('defaults to everything and merges partial updates', async () => {
      const read = async () =>
        dataOf(
          await alice.get('/api/v1/settings/notifications'),
          notificationPreferencesResponseSchema,
        ).preferences;
      expect(await read()).toEqual({
        include_replies: true,
        include_retweets: true,
        include_quotes: true,
      });
      const response = await alice.request({
        method: 'PUT',
        url: '/api/v1/settings/notifications',
        payload: { include_replies: false },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: SETTINGS_MESSAGES.preferencesSaved });
      expect(await read()).toEqual({
        include_replies: false,
        include_retweets: true,
        include_quotes: true,
      });
      expectError(
        await alice.request({
          method: 'PUT',
          url: '/api/v1/settings/notifications',
          payload: { include_replies: 'no' },
        }),
        400,
      );
    });
  });

  describe('Telegram one-click linking and the bot updates', () => {
    let poller: TelegramUpdatesPoller;
    beforeEach(() => {
      poller = new TelegramUpdatesPoller({
        db: t.db,
        channels: t.channels,
        timeoutSeconds: 1,
        retryBaseMs: 50,
      });
      poller.start();
    });
    afterEach(async () => {
      await poller.stop();
    });

    const replies = (chatId: string) => t.telegram.messagesTo(chatId).map((m) => m.text);

    it('links the chat that presses Start with the one-time code, once', async () => {
      const response = await alice.post('/api/v1/settings/telegram/link');
      expect(response.statusCode, response.body).toBe(200);
      const link = dataOf(response, telegramLinkSchema);
      expect(link.botUsername).toBe('perch_test_bot');
      const code = /^https:\/\/t\.me\/perch_test_bot\?start=([A-Za-z0-9_-]{1,64})$/.exec(
        link.url,
      )?.[1];
      expect(code).toBeDefined();
      expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
      // Only a hash of the code is stored.
      const stored = await t.db.db.selectFrom('telegram_link_codes').selectAll().execute();
      expect(stored.map((row) => row.code_hash)).not.toContain(code);

      t.telegram.userStarts(CHAT, code!);
      await waitUntil(async () => (await settingsOf(alice)).telegramConnected, 5_000, 'link');
      expect((await settingsOf(alice)).telegram_chat_id).toBe(CHAT);
      await waitUntil(() => replies(CHAT).length > 0, 5_000, 'reply');
      expect(replies(CHAT)[0]).toBe(SETTINGS_MESSAGES.telegramLinkConnected(CHAT));
      expect(replies(CHAT)[0]).toMatch(/^Connected!/);

      // The same code from another chat does nothing but explain.
      t.telegram.userStarts('55555', code!);
      await waitUntil(() => replies('55555').length > 0, 5_000, 'reply');
      expect(replies('55555')).toEqual([SETTINGS_MESSAGES.telegramLinkInvalid]);
      expect((await settingsOf(alice)).telegram_chat_id).toBe(CHAT);
    });

    it('starts forwarding when the linked chat is the last thing missing', async () => {
      await save({ twitter_username: 'alice_x' });
      const link = dataOf(await alice.post('/api/v1/settings/telegram/link'), telegramLinkSchema);
      t.telegram.userStarts(CHAT, new URL(link.url).searchParams.get('start')!);
      await waitUntil(async () => (await settingsOf(alice)).telegramConnected, 5_000, 'link');
      expect((await settingsOf(alice)).botRunning).toBe(true);
    });

    it('answers /start without a code with the chat id', async () => {
      t.telegram.userSends('24680', '/start');
      await waitUntil(() => replies('24680').length > 0, 5_000, 'reply');
      expect(replies('24680')[0]).toBe(SETTINGS_MESSAGES.telegramChatIdReply('24680'));
      expect(replies('24680')[0]).toMatch(/^Your Chat ID is 24680/);
    });

    it('answers an expired code with how to get a new one', async () => {
      const link = dataOf(await alice.post('/api/v1/settings/telegram/link'), telegramLinkSchema);
      await t.db.db
        .updateTable('telegram_link_codes')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .execute();
      t.telegram.userStarts(CHAT, new URL(link.url).searchParams.get('start')!);
      await waitUntil(() => replies(CHAT).length > 0, 5_000, 'reply');
      expect(replies(CHAT)).toEqual([SETTINGS_MESSAGES.telegramLinkInvalid]);
      expect((await settingsOf(alice)).telegramConnected).toBe(false);
    });

    it('stops Telegram with the reason when the bot is blocked, resumes when unblocked', async () => {
      await save({ telegram_chat_id: CHAT });
      t.telegram.userBlocks(CHAT);
      await waitUntil(
        async () => (await settingsOf(alice)).telegram.stoppedReason !== null,
        5_000,
        'stop',
      );
      expect((await settingsOf(alice)).telegram.stoppedReason).toBe(
        SETTINGS_MESSAGES.telegramBlockedReason,
      );
      t.telegram.userUnblocks(CHAT);
      await waitUntil(
        async () => (await settingsOf(alice)).telegram.stoppedReason === null,
        5_000,
        'resume',
      );
    });

    it('POST /notifications/telegram answers with the one-click link', async () => {
      const response = await alice.post('/api/v1/notifications/telegram', {
        username: '@ann_smith',
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: SETTINGS_MESSAGES.telegramLinkReady });
      expect(dataOf(response, telegramLinkSchema).url).toMatch(
        /^https:\/\/t\.me\/perch_test_bot\?start=/,
      );
      expectError(await alice.post('/api/v1/notifications/telegram', { username: 'ab' }), 400, {
        message: SETTINGS_MESSAGES.invalidTelegramUsername,
      });
    });
  });

  it('POST /notifications/discord saves the Discord id', async () => {
    const response = await alice.post('/api/v1/notifications/discord', {
      discord_user_id: DISCORD_USER,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ message: 'Discord settings saved successfully.' });
    expect((await settingsOf(alice)).discord_user_id).toBe(DISCORD_USER);
    expectError(await alice.post('/api/v1/notifications/discord', { discord_user_id: '' }), 400, {
      message: 'Please enter your Discord User ID',
    });
  });

  it('saving a channel clears its stopped reason', async () => {
    await save({ discord_user_id: DISCORD_USER });
    await aliceSettingsRow({ discord_stopped_reason: 'DMs closed' });
    expect((await settingsOf(alice)).discord.stoppedReason).toBe('DMs closed');
    await save({ discord_user_id: DISCORD_USER });
    expect((await settingsOf(alice)).discord.stoppedReason).toBeNull();
  });
});
