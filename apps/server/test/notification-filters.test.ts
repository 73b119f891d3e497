import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FILTER_MESSAGES,
  deliveryLogResponseSchema,
  handleListResponseSchema,
  handleResponseSchema,
  notificationFilterSchema,
  type Delivery,
} from '@perch/shared';
import { dataOf, expectError } from './assertions.js';
import { makeTweet } from './factories.js';
import { DIALECTS, TestClient } from './helpers.js';
import {
  buildNotifyTestApp,
  handleFollowedBy,
  monitorFinds,
  outboxCounts,
  userWithChannels,
  waitUntil,
  type NotifyTestApp,
} from './notify-helpers.js';

const filterResponseSchema = z.object({ filter: notificationFilterSchema });

describe.each(DIALECTS)('notification filters (%s)', (dialect) => {
  let t: NotifyTestApp;

  afterEach(async () => {
    await t?.close();
  });

  async function setUp() {
    t = await buildNotifyTestApp(dialect, { fast: true });
    const ada = await userWithChannels(t, 'ada', {
      telegram: '700001',
      discord: '82198898841029461',
    });
    const handleId = await handleFollowedBy(t, 'filtered_one', [ada.userId]);
    const put = (body: unknown, id = handleId, client = ada.client) =>
      client.request({
        method: 'PUT',
        url: `/api/v1/handles/${id}/notifications/filter`,
        payload: body as Record<string, unknown>,
      });
    return { ...ada, handleId, put };
  }

  describe('API', () => {
    it('saves, reads back (in the handle list too) and clears a filter', async () => {
      const { client, handleId, put } = await setUp();
      const empty = dataOf(
        await client.get(`/api/v1/handles/${handleId}/notifications/filter`),
        filterResponseSchema,
      );
      expect(empty.filter).toEqual({ include: [], exclude: [], media_only: false });

      let response = await put({
        include: [' Launch ', '"free giveaway"', 'launch'],
        exclude: ['ad'],
        media_only: true,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: FILTER_MESSAGES.saved('filtered_one') });
      const saved = { include: ['Launch', 'free giveaway'], exclude: ['ad'], media_only: true };
      expect(dataOf(response, handleResponseSchema).handle.notification_filter).toEqual(saved);
      expect(
        dataOf(
          await client.get(`/api/v1/handles/${handleId}/notifications/filter`),
          filterResponseSchema,
        ).filter,
      ).toEqual(saved);
      const { handles } = dataOf(await client.get('/api/v1/handles'), handleListResponseSchema);
      expect(handles[0]?.notification_filter).toEqual(saved);

      response = await put({});
      expect(response.json()).toMatchObject({
        message: FILTER_MESSAGES.cleared('filtered_one'),
        data: { handle: { notification_filter: { include: [], exclude: [], media_only: false } } },
      });
    });

    it('answers 400 with what is wrong, 404 for a handle not followed, 401 signed out', async () => {
      const { client, put, handleId } = await setUp();
      const many = Array.from({ length: 21 }, (_, index) => `w${index}`);
      const cases: [unknown, string][] = [
        [{ include: many }, FILTER_MESSAGES.tooManyInclude],
        [{ exclude: many }, FILTER_MESSAGES.tooManyExclude],
        [{ include: ['x'.repeat(51)] }, FILTER_MESSAGES.termTooLong],
        [{ exclude: ['  '] }, FILTER_MESSAGES.termEmpty],
        [{ include: ['a\nb'] }, FILTER_MESSAGES.termInvalid],
        [{ include: [1] }, FILTER_MESSAGES.termNotText],
        [{ include: ['Ad'], exclude: ['ad'] }, FILTER_MESSAGES.termInBoth('Ad')],
      ];
      for (const [body, message] of cases) {
        expectError(await put(body), 400, { message, code: 'VALIDATION_ERROR' });
      }
      expectError(await put({ media_only: 'yes' }), 400, { code: 'VALIDATION_ERROR' });
      expectError(await put({ include: 'launch' }), 400, { code: 'VALIDATION_ERROR' });
      // Nothing was stored by the refused requests.
      const { handles } = dataOf(await client.get('/api/v1/handles'), handleListResponseSchema);
      expect(handles[0]?.notification_filter).toEqual({
        include: [],
        exclude: [],
        media_only: false,
      });

      expectError(await put({ include: ['a'] }, 999_999), 404, { message: 'Handle not found' });
      expectError(await put({ include: ['a'] }, 2_147_483_648), 400);
      const bob = new TestClient(t.app);
      await bob.register(t.db, 'bob');
      expectError(await put({ include: ['a'] }, handleId, bob), 404);
      expectError(await bob.get(`/api/v1/handles/${handleId}/notifications/filter`), 404);
      const stranger = new TestClient(t.app);
      expectError(await put({ include: ['a'] }, handleId, stranger), 401);
    });
  });

  describe('delivery through the Telegram and Discord fakes', () => {
    async function deliveries(client: TestClient): Promise<Delivery[]> {
      return dataOf(await client.get('/api/v1/settings/deliveries'), deliveryLogResponseSchema)
        .deliveries;
    }

    it('sends what passes, holds back the rest, and the log says why', async () => {
      const { client, put, handleId } = await setUp();
      expect((await client.post('/api/v1/bot/start')).statusCode).toBe(200);
      // A second follower without a filter gets everything.
      const grace = await userWithChannels(t, 'grace', { telegram: '700002' });
      expect((await grace.client.post('/api/v1/bot/start')).statusCode).toBe(200);
      await t.db.db
        .insertInto('user_handles')
        .values({
          user_id: grace.userId,
          handle_id: handleId,
          added_at: new Date().toISOString(),
          backfill_days: 7,
          telegram_enabled: true,
          discord_enabled: false,
        })
        .execute();
      const saved = await put({ include: ['launch', 'landing'], exclude: ['giveaway'] });
      expect(saved.statusCode, saved.body).toBe(200);
      await t.worker.start();

      const passes = makeTweet({ text: 'LAUNCH window opens at 9:00' });
      const excluded = makeTweet({ text: 'Launch #Giveaway: retweet to win!' });
      const noneOf = makeTweet({ text: 'Coffee with the crew' });
      const plural = makeTweet({ text: 'Three landings, no launches' });
      await monitorFinds(t, handleId, [passes, excluded, noneOf, plural]);

      // Ada: one tweet on each of her two channels; Grace: all four on Telegram.
      await waitUntil(async () => (await outboxCounts(t)).sent === 6, 20_000, '6 sends');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await outboxCounts(t)).toEqual({ sent: 6, filtered: 6 });
      const sentTo = (chat: string) =>
        t.telegram.messagesTo(chat).map((message) => /status\/(\d+)/.exec(message.raw)?.[1]);
      expect(sentTo('700001')).toEqual([passes.id]);
      expect(t.discord.messagesTo('82198898841029461')).toHaveLength(1);
      expect(sentTo('700002').sort()).toEqual(
        [passes.id, excluded.id, noneOf.id, plural.id].sort(),
      );

      const log = await deliveries(client);
      expect(log).toHaveLength(8);
      const rowsOf = (tweetId: string) => log.filter((row) => row.tweetId === tweetId);
      expect(rowsOf(passes.id).map((row) => row.status)).toEqual(['sent', 'sent']);
      for (const row of rowsOf(excluded.id)) {
        expect(row).toMatchObject({
          status: 'filtered',
          note: 'Held back by your filter: contains "giveaway"',
          error: null,
          sentAt: null,
          nextAttemptAt: null,
        });
      }
      for (const tweet of [noneOf, plural]) {
        expect(rowsOf(tweet.id).map((row) => row.note)).toEqual([
          FILTER_MESSAGES.heldBackNoneOf(['launch', 'landing']),
          FILTER_MESSAGES.heldBackNoneOf(['launch', 'landing']),
        ]);
      }
      // The channel filter of the log still applies.
      const telegramOnly = dataOf(
        await client.get('/api/v1/settings/deliveries?channel=telegram'),
        deliveryLogResponseSchema,
      ).deliveries;
      expect(telegramOnly.filter((row) => row.status === 'filtered')).toHaveLength(3);
      // Grace's log has no filtered rows.
      expect((await deliveries(grace.client)).every((row) => row.status === 'sent')).toBe(true);
    }, 60_000);

    it('media only: a tweet without a photo or video is held back', async () => {
      const { client, put, handleId } = await setUp();
      expect((await client.post('/api/v1/bot/start')).statusCode).toBe(200);
      expect((await put({ media_only: true })).statusCode).toBe(200);
      await t.worker.start();
      const photo = makeTweet({
        text: 'Look at this',
        media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/a.jpg', previewUrl: null }],
      });
      const text = makeTweet({ text: 'Just words' });
      await monitorFinds(t, handleId, [photo, text]);
      await waitUntil(async () => (await outboxCounts(t)).sent === 2, 20_000, '2 sends');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await outboxCounts(t)).toEqual({ sent: 2, filtered: 2 });
      const held = (await deliveries(client)).filter((row) => row.tweetId === text.id);
      expect(held.map((row) => row.note)).toEqual([
        FILTER_MESSAGES.heldBackNoMedia,
        FILTER_MESSAGES.heldBackNoMedia,
      ]);
    }, 60_000);
  });
});
