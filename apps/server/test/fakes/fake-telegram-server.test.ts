/**
 * The fake Bot API itself, over raw HTTP: the client tests rely on it refusing what Telegram
 * refuses, in Telegram's words.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  TELEGRAM_GROUP_MIGRATED,
  TELEGRAM_WRONG_PHOTO_URL,
  parseTelegramHtml,
  startFakeTelegramServer,
  type FakeTelegramServer,
} from './fake-telegram-server.js';

let fake: FakeTelegramServer;

beforeEach(async () => {
  fake = await startFakeTelegramServer();
});
afterEach(() => fake.close());

async function call(method: string, params: Record<string, unknown> = {}) {
  const response = await fetch(`${fake.baseUrl}/bot${fake.token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  const text = await response.text();
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, body, text };
}

describe('parseTelegramHtml', () => {
  it('reads supported tags and entities as Telegram does', () => {
    expect(
      parseTelegramHtml(
        '<b>bold <i>both</i></b> <a href="https://x.com/?a=1&amp;b=&quot;2&quot;">link</a> ' +
          '<span class="tg-spoiler">s</span> <pre><code class="language-ts">x</code></pre> ' +
          '&lt;&gt;&amp;&quot; &#128512; &#x1F600; &nbsp; a & b',
      ),
    ).toEqual({ text: 'bold both link s x <>&" 😀 😀 &nbsp; a & b' });
    expect(parseTelegramHtml('<B>upper</B>')).toEqual({ text: 'upper' });
  });

  it.each([
    ['héllo <x>', 'Unsupported start tag "x" at byte offset 7'],
    ['a <3', 'Unsupported start tag "3" at byte offset 2'],
    ['a < b', 'Unsupported start tag "" at byte offset 2'],
    ['<br/>', 'Unsupported start tag "br/" at byte offset 0'],
    ['<b>open', 'Can\'t find end tag corresponding to start tag "b"'],
    ['<b><i>x</b></i>', 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'],
    ['x</b>', 'Unexpected end tag at byte offset 1'],
    ['<a href="x"', 'Unclosed start tag at byte offset 0'],
    ['<span>x</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
  ])('refuses what Telegram refuses, with its messages and byte offsets: %s', (html, error) => {
    expect(parseTelegramHtml(html)).toEqual({ error });
  });
});

describe('fake Telegram server', () => {
  it('answers getMe, with method names in any case, by GET or POST', async () => {
    const me = await call('getme');
    expect(me.body).toMatchObject({
      ok: true,
      result: { is_bot: true, username: 'perch_test_bot' },
    });
    const get = await fetch(`${fake.baseUrl}/bot${fake.token}/GETME`);
    expect(get.status).toBe(200);
  });

  it('takes form and query parameters too, and records the message', async () => {
    const form = await fetch(`${fake.baseUrl}/bot${fake.token}/sendMessage?chat_id=77`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ text: '<b>hi</b>', parse_mode: 'HTML' }).toString(),
    });
    expect(form.status).toBe(200);
    expect(fake.messagesTo('77')).toMatchObject([
      { method: 'sendMessage', raw: '<b>hi</b>', text: 'hi', parseMode: 'HTML', photoUrls: [] },
    ]);
    expect(typeof fake.messages[0]!.at).toBe('number');
  });

  it('answers a wrong token with 401 and a malformed one with 404', async () => {
    const wrong = await fetch(`${fake.baseUrl}/bot123:nope/getMe`);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    const garbled = await fetch(`${fake.baseUrl}/botgarbage/getMe`);
    expect(garbled.status).toBe(404);
    expect(await garbled.json()).toEqual({ ok: false, error_code: 404, description: 'Not Found' });
    expect((await call('noSuchMethod')).body).toMatchObject({
      error_code: 404,
      description: 'Not Found: method not found',
    });
  });

  it("refuses HTML it can't parse with Telegram's error", async () => {
    const reply = await call('sendMessage', { chat_id: 1, text: 'a <3 b', parse_mode: 'HTML' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      ok: false,
      error_code: 400,
      description: `Bad Request: can't parse entities: Unsupported start tag "3" at byte offset 2`,
    });
    // The same text without parse mode is fine.
    expect((await call('sendMessage', { chat_id: 2, text: 'a <3 b' })).status).toBe(200);
  });

  it('counts length after parsing: 4096 visible characters pass, 4097 do not', async () => {
    const ok = await call('sendMessage', {
      chat_id: 1,
      text: `<b>${'x'.repeat(4000)}</b>${'😀'.repeat(96)}`,
      parse_mode: 'HTML',
    });
    expect(ok.status).toBe(200);
    const long = await call('sendMessage', { chat_id: 2, text: 'x'.repeat(4097) });
    expect(long.body).toMatchObject({
      error_code: 400,
      description: 'Bad Request: message is too long',
    });
    const caption = await call('sendPhoto', {
      chat_id: 3,
      photo: 'https://p/1.jpg',
      caption: 'c'.repeat(1025),
    });
    expect(caption.body).toMatchObject({ description: 'Bad Request: message caption is too long' });
    const empty = await call('sendMessage', { chat_id: 4, text: '<b> </b>', parse_mode: 'HTML' });
    expect(empty.body).toMatchObject({ description: 'Bad Request: message text is empty' });
  });

  it('checks media groups: 2-10 photos by URL, caption on the first', async () => {
    const one = await call('sendMediaGroup', {
      chat_id: 1,
      media: [{ type: 'photo', media: 'https://p/1.jpg' }],
    });
    expect(one.status).toBe(400);
    const two = await call('sendMediaGroup', {
      chat_id: 1,
      media: [
        { type: 'photo', media: 'https://p/1.jpg', caption: '<i>c</i>', parse_mode: 'HTML' },
        { type: 'photo', media: 'https://p/2.jpg' },
      ],
    });
    expect(two.status).toBe(200);
    const result = two.body!.result as { message_id: number; media_group_id: string }[];
    expect(result).toHaveLength(2);
    expect(new Set(result.map((m) => m.media_group_id)).size).toBe(1);
    expect(fake.messagesTo(1)).toMatchObject([
      { method: 'sendMediaGroup', text: 'c', photoUrls: ['https://p/1.jpg', 'https://p/2.jpg'] },
    ]);
  });

  it('answers unreachable chats as Telegram does', async () => {
    fake.setChat(1, 'not_found');
    fake.setChat(2, 'blocked');
    fake.setChat(3, 'never_started');
    const send = (chat: number) => call('sendMessage', { chat_id: chat, text: 'x' });
    expect((await send(1)).body).toMatchObject({
      error_code: 400,
      description: 'Bad Request: chat not found',
    });
    expect((await send(2)).body).toMatchObject({
      error_code: 403,
      description: 'Forbidden: bot was blocked by the user',
    });
    expect((await send(3)).body).toMatchObject({
      error_code: 403,
      description: "Forbidden: bot can't initiate conversation with a user",
    });
    expect((await call('sendMessage', { text: 'x' })).body).toMatchObject({
      description: 'Bad Request: chat_id is empty',
    });
    expect(fake.messages).toEqual([]);
  });

  it('rate-limits the next requests on demand, with retry_after and Retry-After', async () => {
    fake.rateLimitNext(2, 5);
    for (let i = 0; i < 2; i++) {
      const reply = await call('sendMessage', { chat_id: 1, text: 'x' });
      expect(reply.status).toBe(429);
      expect(reply.headers.get('retry-after')).toBe('5');
      expect(reply.body).toEqual({
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 5',
        parameters: { retry_after: 5 },
      });
    }
    expect((await call('sendMessage', { chat_id: 1, text: 'x' })).status).toBe(200);
  });

  it('enforces 1 message a second per chat and 30 overall', async () => {
    expect((await call('sendMessage', { chat_id: 1, text: 'a' })).status).toBe(200);
    const again = await call('sendMessage', { chat_id: 1, text: 'b' });
    expect(again.status).toBe(429);
    expect(again.body).toMatchObject({ parameters: { retry_after: 1 } });
    const burst = await Promise.all(
      Array.from({ length: 31 }, (_, i) => call('sendMessage', { chat_id: 100 + i, text: 'x' })),
    );
    expect(burst.filter((r) => r.status === 429)).toHaveLength(2);
    expect(fake.messages).toHaveLength(30);
    fake.setFloodLimits(null);
    expect((await call('sendMessage', { chat_id: 1, text: 'c' })).status).toBe(200);
  });

  it('counts 429 answers of flood control and of rateLimitNext', async () => {
    expect(fake.rateLimited).toBe(0);
    await call('sendMessage', { chat_id: 1, text: 'a' });
    await call('sendMessage', { chat_id: 1, text: 'b' });
    fake.rateLimitNext(1, 2);
    await call('sendMessage', { chat_id: 2, text: 'c' });
    expect(fake.rateLimited).toBe(2);
  });

  it('counts an album as one message per photo: the chat waits as long as for that many', async () => {
    const clock = { t: 1_000_000 };
    const paced = await startFakeTelegramServer({ now: () => clock.t });
    const send = (method: string, params: Record<string, unknown>) =>
      fetch(`${paced.baseUrl}/bot${paced.token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
      }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as Record<string, unknown>,
      }));
    try {
      const media = ['https://p/1.jpg', 'https://p/2.jpg', 'https://p/3.jpg'].map((url) => ({
        type: 'photo',
        media: url,
      }));
      expect((await send('sendMediaGroup', { chat_id: 9, media })).status).toBe(200);
      // 1 a second per chat (less the 200 ms tolerance): 3 photos hold chat 9 for 2.4 s.
      clock.t += 1100;
      const early = await send('sendMessage', { chat_id: 9, text: 'x' });
      expect(early.status).toBe(429);
      expect(early.body).toMatchObject({ parameters: { retry_after: 2 } });
      clock.t += 1300;
      expect((await send('sendMessage', { chat_id: 9, text: 'x' })).status).toBe(200);
      // Overall they count 3 of the 30.
      const burst = await Promise.all(
        Array.from({ length: 30 }, (_, i) => send('sendMessage', { chat_id: 200 + i, text: 'x' })),
      );
      expect(burst.filter((r) => r.status === 429)).toHaveLength(1);
    } finally {
      await paced.close();
    }
  });

  it('allows a group (negative chat id) 20 messages a minute', async () => {
    const clock = { t: 1_000_000 };
    const paced = await startFakeTelegramServer({ now: () => clock.t });
    const send = (chatId: number) =>
      fetch(`${paced.baseUrl}/bot${paced.token}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: chatId, text: 'x' }),
      }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as Record<string, unknown>,
      }));
    try {
      for (let i = 0; i < 20; i++) {
        expect((await send(-100123)).status).toBe(200);
        clock.t += 1000;
      }
      const over = await send(-100123);
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ parameters: { retry_after: 40 } });
      // A private chat is not limited by the minute.
      for (let i = 0; i < 21; i++) {
        expect((await send(123)).status).toBe(200);
        clock.t += 1000;
      }
      clock.t = 1_000_000 + 60_000;
      expect((await send(-100123)).status).toBe(200);
      expect(paced.messages[0]).toMatchObject({ chatId: '-100123' });
    } finally {
      await paced.close();
    }
  });

  it('answers a migrated group with its new chat id, which then takes messages', async () => {
    expect(fake.migrateChat(-4001)).toBe('-1004001');
    const old = await call('sendMessage', { chat_id: -4001, text: 'x' });
    expect(old.status).toBe(400);
    expect(old.body).toEqual({
      ok: false,
      error_code: 400,
      description: TELEGRAM_GROUP_MIGRATED,
      parameters: { migrate_to_chat_id: -1004001 },
    });
    const moved = await call('sendMessage', { chat_id: -1004001, text: 'x' });
    expect(moved.body).toMatchObject({
      ok: true,
      result: { chat: { id: -1004001, type: 'supergroup' } },
    });
    expect(fake.migrateChat('-55', '-1009999')).toBe('-1009999');
    expect((await call('sendMessage', { chat_id: -55, text: 'x' })).body).toMatchObject({
      parameters: { migrate_to_chat_id: -1009999 },
    });
    fake.setChat(-55, 'ok');
    expect((await call('sendMessage', { chat_id: -55, text: 'x' })).status).toBe(200);
  });

  it('refuses a photo URL it was told to, alone or in an album', async () => {
    fake.refusePhotoUrl('https://p/gone.jpg');
    fake.refusePhotoUrl('https://p/page.html', 'Bad Request: wrong type of the web page content');
    const photo = await call('sendPhoto', { chat_id: 1, photo: 'https://p/gone.jpg' });
    expect(photo.body).toEqual({
      ok: false,
      error_code: 400,
      description: TELEGRAM_WRONG_PHOTO_URL,
    });
    expect(TELEGRAM_WRONG_PHOTO_URL).toBe('Bad Request: wrong file identifier/HTTP URL specified');
    const album = await call('sendMediaGroup', {
      chat_id: 2,
      media: [
        { type: 'photo', media: 'https://p/1.jpg' },
        { type: 'photo', media: 'https://p/page.html' },
      ],
    });
    expect(album.body).toMatchObject({
      error_code: 400,
      description: 'Bad Request: wrong type of the web page content',
    });
    expect((await call('sendPhoto', { chat_id: 3, photo: 'https://p/fine.jpg' })).status).toBe(200);
    expect(fake.messages).toHaveLength(1);
  });

  it('goes down with 502 pages or reset connections, and comes back', async () => {
    const polling = call('getUpdates', { timeout: 30 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    fake.setDown(true);
    expect((await polling).status).toBe(502);
    const page = await call('getMe');
    expect(page.status).toBe(502);
    expect(page.body).toBeNull();
    fake.setDown(true, 'reset');
    await expect(call('getMe')).rejects.toThrow();
    fake.setDown(false);
    expect((await call('getMe')).status).toBe(200);
    expect(fake.requests.map((r) => r.status)).toEqual([502, 502, 0, 200]);
  });

  it('refuses getUpdates while a webhook is set, until deleteWebhook', async () => {
    expect((await call('setWebhook', { url: 'https://example.com/hook' })).status).toBe(200);
    expect((await call('getUpdates', {})).status).toBe(409);
    const deleted = await call('deleteWebhook', { drop_pending_updates: false });
    expect(deleted.body).toMatchObject({ ok: true, result: true });
    expect((await call('getUpdates', {})).body).toEqual({ ok: true, result: [] });
  });

  it('fails the next requests with 500 JSON or a 502 proxy page', async () => {
    fake.failNext(1, 500);
    fake.failNext(1, 502);
    const json = await call('getMe');
    expect(json.body).toEqual({ ok: false, error_code: 500, description: 'Internal Server Error' });
    const page = await call('getMe');
    expect(page.status).toBe(502);
    expect(page.body).toBeNull();
    expect((await call('getMe')).status).toBe(200);
  });

  it('queues /start and block updates for getUpdates, confirmed by offset', async () => {
    const start = fake.userStarts(987654321, 'link_4f2aQ9', { username: 'ann' });
    fake.userBlocks(987654321);
    const first = await call('getUpdates', { offset: 0, limit: 1 });
    expect(first.body).toMatchObject({
      ok: true,
      result: [
        {
          update_id: start,
          message: {
            from: { id: 987654321, username: 'ann' },
            chat: { id: 987654321, type: 'private' },
            text: '/start link_4f2aQ9',
            entities: [{ offset: 0, length: 6, type: 'bot_command' }],
          },
        },
      ],
    });
    const second = await call('getUpdates', { offset: start + 1 });
    expect(second.body).toMatchObject({
      result: [
        {
          update_id: start + 1,
          my_chat_member: {
            chat: { id: 987654321 },
            old_chat_member: { status: 'member' },
            new_chat_member: { status: 'kicked' },
          },
        },
      ],
    });
    expect((await call('sendMessage', { chat_id: 987654321, text: 'x' })).status).toBe(403);
    expect((await call('getUpdates', { offset: start + 2 })).body).toEqual({
      ok: true,
      result: [],
    });
  });

  it('closes cleanly with a long poll pending', async () => {
    const polling = call('getUpdates', { timeout: 30 }).catch(() => 'closed');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await fake.close();
    expect(await polling).toBe('closed');
    fake = await startFakeTelegramServer();
  });
});
