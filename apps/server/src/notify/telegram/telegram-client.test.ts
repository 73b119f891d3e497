/**
 * The Telegram client against the loopback fake Bot API (real HTTP, no mocks of our code): the
 * wire format, every error mapping, the plain-text fallback, pacing and long polling, and the
 * updates poller on top of it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startFakeTelegramServer,
  type FakeTelegramChatState,
  type FakeTelegramServer,
} from '../../../test/fakes/fake-telegram-server.js';
import { createLocalCluster } from '../../cluster/cluster.js';
import type { Logger } from '../../lib/logger.js';
import {
  createRateGate,
  createTelegramRateGate,
  SERVICE_WINDOW_MS,
  TELEGRAM_GROUP_WINDOW_MS,
} from '../rate-gate.js';
import {
  TELEGRAM_POLL_CONFLICT_WARNING,
  TELEGRAM_WEBHOOK_WARNING,
  type TelegramUpdatesPoller,
} from '../../modules/settings/telegram-updates.js';
import { telegramOnlyPoller } from '../../modules/settings/test-factories.js';
import { type DeliveryErrorKind, type TelegramClient } from '../types.js';
import {
  TELEGRAM_BAD_TOKEN,
  TELEGRAM_NOT_SET_UP,
  createTelegramClient,
  sendTelegramOutgoing,
  type TelegramClientOptions,
} from './telegram-client.js';
import { deliveryFailure as failure } from '../../../test/assertions.js';

let fake: FakeTelegramServer;

beforeEach(async () => {
  fake = await startFakeTelegramServer();
});
afterEach(() => fake.close());

const client = (options: Partial<TelegramClientOptions> = {}) =>
  createTelegramClient({ token: fake.token, baseUrl: fake.baseUrl, ...options });

/** A gate that never holds anything back, for tests about something else. */
const noPacing = () => createRateGate({ perSecond: 10_000 });

describe('telegram client', () => {
  it('sends HTML with link previews off and returns the message id', async () => {
    const requests: { url: string; body: unknown; type: string | null }[] = [];
    const spy: typeof fetch = async (input, init) => {
      requests.push({
        url: String(input),
        body: JSON.parse(String(init?.body)),
        type: new Headers(init?.headers).get('content-type'),
      });
      return fetch(input, init);
    };
    const telegram = client({ fetch: spy, baseUrl: `${fake.baseUrl}/` });
    expect(telegram.available).toBe(true);
    const id = await telegram.sendMessage(
      '987654321',
      '<b>@XDevelopers</b> posted:\nLaunch day! &lt;3',
    );
    expect(id).toBe(fake.messages[0]!.messageId);
    expect(requests).toEqual([
      {
        url: `${fake.baseUrl}/bot${fake.token}/sendMessage`,
        type: 'application/json',
        body: {
          chat_id: '987654321',
          text: '<b>@XDevelopers</b> posted:\nLaunch day! &lt;3',
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
        },
      },
    ]);
    expect(fake.messagesTo(987654321)).toMatchObject([
      { method: 'sendMessage', parseMode: 'HTML', text: '@XDevelopers posted:\nLaunch day! <3' },
    ]);
  });

  it('sends a photo and a media group by URL with the caption on the first item', async () => {
    const telegram = client({ rateGate: noPacing() });
    await telegram.sendPhoto('1', 'https://pbs.twimg.com/media/a.jpg', '<b>A</b> &amp; B');
    const id = await telegram.sendMediaGroup(
      '2',
      ['https://pbs.twimg.com/media/b.jpg', 'https://pbs.twimg.com/media/c.jpg'],
      '<i>two</i>',
    );
    expect(id).toBe(fake.messagesTo(2)[0]!.messageId);
    expect(fake.messages).toMatchObject([
      {
        chatId: '1',
        method: 'sendPhoto',
        text: 'A & B',
        photoUrls: ['https://pbs.twimg.com/media/a.jpg'],
      },
      {
        chatId: '2',
        method: 'sendMediaGroup',
        text: 'two',
        parseMode: 'HTML',
        photoUrls: ['https://pbs.twimg.com/media/b.jpg', 'https://pbs.twimg.com/media/c.jpg'],
      },
    ]);
  });

  it('sends every kind of formatted message with the matching method', async () => {
    fake.setFloodLimits(null);
    const telegram = client({ rateGate: noPacing() });
    await sendTelegramOutgoing(telegram, '5', { kind: 'text', html: 'hi' });
    await sendTelegramOutgoing(telegram, '5', {
      kind: 'photo',
      photoUrl: 'https://p/1.jpg',
      captionHtml: 'c',
    });
    await sendTelegramOutgoing(telegram, '5', {
      kind: 'media_group',
      photoUrls: ['https://p/1.jpg', 'https://p/2.jpg'],
      captionHtml: 'c',
    });
    expect(fake.messagesTo(5).map((m) => m.method)).toEqual([
      'sendMessage',
      'sendPhoto',
      'sendMediaGroup',
    ]);
  });

  it('asks getMe once for the bot username', async () => {
    const telegram = client();
    expect(await Promise.all([telegram.botUsername(), telegram.botUsername()])).toEqual([
      'perch_test_bot',
      'perch_test_bot',
    ]);
    expect(await telegram.botUsername()).toBe('perch_test_bot');
    expect(fake.requests.map((r) => r.method)).toEqual(['getMe']);
  });

  it('is unavailable without a token and refuses every call without a request', async () => {
    const telegram = createTelegramClient({ token: '  ', baseUrl: fake.baseUrl });
    expect(telegram.available).toBe(false);
    for (const call of [
      telegram.botUsername(),
      telegram.sendMessage('1', 'x'),
      telegram.sendPhoto('1', 'https://p/1.jpg', 'x'),
      telegram.sendMediaGroup('1', ['https://p/1.jpg', 'https://p/2.jpg'], 'x'),
      telegram.getUpdates(0, 0),
    ]) {
      const error = await failure(call, 'permanent');
      expect(error.reason).toBe(TELEGRAM_NOT_SET_UP);
    }
    expect(fake.requests).toEqual([]);
  });

  it.each<[FakeTelegramChatState, string]>([
    ['not_found', 'Telegram says the chat was not found: check the Chat ID'],
    ['blocked', 'You blocked the bot in Telegram: unblock it and test again'],
    [
      'never_started',
      'The bot cannot write to you first: open the bot in Telegram, press Start and test again',
    ],
    ['deactivated', 'This Telegram account is deactivated: use the Chat ID of an active account'],
    ['kicked', 'The bot was removed from this chat: add it back and test again'],
  ])('reports a %s chat as permanent with a reason to act on', async (state, reason) => {
    fake.setChat(42, state);
    const error = await failure(client().sendMessage('42', 'hello'), 'permanent');
    expect(error.reason).toBe(reason);
    expect(error.message).toMatch(/^Telegram: (Bad Request|Forbidden): /);
  });

  it('reports a refused token (401) and a garbled one (404) as the operator’s to fix', async () => {
    const revoked = createTelegramClient({ token: '123:revoked', baseUrl: fake.baseUrl });
    const error = await failure(revoked.sendMessage('1', 'x'), 'permanent');
    expect(error.message).toBe('Telegram: Unauthorized');
    expect(error.reason).toBe(TELEGRAM_BAD_TOKEN);
    const garbled = createTelegramClient({ token: 'not a token', baseUrl: fake.baseUrl });
    const notFound = await failure(garbled.botUsername(), 'permanent');
    expect(notFound.message).toBe('Telegram: Not Found');
    expect(notFound.reason).toBe(TELEGRAM_BAD_TOKEN);
  });

  it('reports a 429 as rate_limited with retry_after, and holds that chat back', async () => {
    fake.rateLimitNext(1, 7);
    const telegram = client({ maxPacingWaitMs: 2000 });
    const error = await failure(telegram.sendMessage('9', 'x'), 'rate_limited');
    expect(error.retryAfterMs).toBe(7000);
    expect(error.message).toBe('Telegram: Too Many Requests: retry after 7');
    // The chat is paused for 7 s: the next send is refused at once, without a request.
    const paused = await failure(telegram.sendMessage('9', 'y'), 'rate_limited');
    expect(paused.retryAfterMs).toBeGreaterThan(6000);
    expect(fake.requests).toHaveLength(1);
    // Other chats are not held back.
    await telegram.sendMessage('10', 'z');
    expect(fake.messagesTo(10)).toHaveLength(1);
  });

  it('falls back to the Retry-After header when the body has no retry_after', async () => {
    const stripParameters: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = (await response.json()) as Record<string, unknown>;
      delete body.parameters;
      return new Response(JSON.stringify(body), {
        status: response.status,
        headers: response.headers,
      });
    };
    fake.rateLimitNext(1, 4);
    const error = await failure(
      client({ fetch: stripParameters }).sendMessage('1', 'x'),
      'rate_limited',
    );
    expect(error.retryAfterMs).toBe(4000);
  });

  it('reports 5xx answers, JSON or not, as transient', async () => {
    const telegram = client({ rateGate: noPacing() });
    fake.failNext(1, 500);
    expect((await failure(telegram.sendMessage('1', 'x'), 'transient')).message).toBe(
      'Telegram: Internal Server Error',
    );
    fake.failNext(1, 502);
    expect((await failure(telegram.sendMessage('1', 'x'), 'transient')).message).toBe(
      'Telegram: HTTP 502',
    );
    await telegram.sendMessage('1', 'x');
    expect(fake.messagesTo(1)).toHaveLength(1);
  });

  it('reports an unreachable server and a silent one as transient', async () => {
    const closed = await startFakeTelegramServer();
    await closed.close();
    const unreachable = await failure(
      createTelegramClient({ token: fake.token, baseUrl: closed.baseUrl }).sendMessage('1', 'x'),
      'transient',
    );
    expect(unreachable.message).toMatch(/^Telegram is unreachable: /);

    fake.stallNext(1);
    const silent = await failure(
      client({ requestTimeoutMs: 200 }).sendMessage('1', 'x'),
      'transient',
    );
    expect(silent.message).toBe('Telegram did not answer within 0.2 s');
  });

  it('rethrows the caller’s abort as is, not as a delivery failure', async () => {
    fake.stallNext(1);
    const controller = new AbortController();
    const sending = client().sendMessage('1', 'x', controller.signal);
    setTimeout(() => controller.abort(new Error('worker stopping')), 50);
    await expect(sending).rejects.toThrow('worker stopping');
  });

  it("resends once as plain text when Telegram can't parse the HTML", async () => {
    const telegram = client({ rateGate: noPacing() });
    await telegram.sendMessage('3', '<b>Tom & Jerry</b> <3 <x>tag</x> &amp; co');
    expect(fake.requests.map((r) => [r.status, r.description])).toEqual([
      [400, `Bad Request: can't parse entities: Unsupported start tag "3" at byte offset 19`],
      [200, null],
    ]);
    expect(fake.messagesTo(3)).toMatchObject([
      { parseMode: null, text: 'Tom & Jerry <3 tag & co' },
    ]);

    await telegram.sendPhoto('4', 'https://p/1.jpg', '<b>open');
    expect(fake.messagesTo(4)).toMatchObject([{ parseMode: null, text: 'open' }]);
  });

  it('reports a message refused for its content as a message error, not the chat’s', async () => {
    const telegram = client({ rateGate: noPacing() });
    const long = await failure(telegram.sendMessage('1', 'x'.repeat(4097)), 'message');
    expect(long.message).toBe('Telegram: Bad Request: message is too long');
    expect(long.reason).toBe('Telegram refused the message: Bad Request: message is too long');
    const caption = await failure(
      telegram.sendPhoto('2', 'https://p/1.jpg', 'c'.repeat(1025)),
      'message',
    );
    expect(caption.message).toBe('Telegram: Bad Request: message caption is too long');

    fake.refusePhotoUrl('https://pbs.twimg.com/media/gone.jpg');
    const photo = await failure(
      telegram.sendPhoto('3', 'https://pbs.twimg.com/media/gone.jpg', 'c'),
      'message',
    );
    expect(photo.message).toBe('Telegram: Bad Request: wrong file identifier/HTTP URL specified');
    fake.refusePhotoUrl('https://p/page.html', 'Bad Request: wrong type of the web page content');
    const album = await failure(
      telegram.sendMediaGroup('4', ['https://p/1.jpg', 'https://p/page.html'], 'c'),
      'message',
    );
    expect(album.message).toBe('Telegram: Bad Request: wrong type of the web page content');
    // The chat itself is fine: the same chat takes the next message.
    await telegram.sendMessage('3', 'plain text with the link');
    expect(fake.messagesTo(3)).toHaveLength(1);
  });

  it.each<[number, string, DeliveryErrorKind, string | null]>([
    [400, 'Bad Request: failed to get HTTP URL content', 'message', null],
    [400, 'Bad Request: PHOTO_INVALID_DIMENSIONS', 'message', null],
    [400, 'Bad Request: not enough rights to send photos to the chat', 'message', null],
    [
      400,
      'Bad Request: not enough rights to send text messages to the chat',
      'permanent',
      'The bot may not post in this chat: allow it to send messages and test again',
    ],
    [
      400,
      'Bad Request: have no rights to send a message',
      'permanent',
      'The bot may not post in this chat: allow it to send messages and test again',
    ],
    [
      403,
      'Forbidden: bot is not a member of the channel chat',
      'permanent',
      'The bot was removed from this chat: add it back and test again',
    ],
    [
      403,
      'Forbidden: something new',
      'permanent',
      'Telegram refused the message: Forbidden: something new',
    ],
    [
      400,
      'Bad Request: group chat was upgraded to a supergroup chat',
      'permanent',
      'This group became a supergroup with a new Chat ID: enter the new Chat ID',
    ],
  ])('maps %i %s to %s', async (status, description, kind, reason) => {
    const answer: typeof fetch = () =>
      Promise.resolve(
        new Response(JSON.stringify({ ok: false, error_code: status, description }), {
          status,
          headers: { 'content-type': 'application/json' },
        }),
      );
    const error = await failure(client({ fetch: answer }).sendMessage('-5', 'x'), kind);
    expect(error.message).toBe(`Telegram: ${description}`);
    if (reason !== null) expect(error.reason).toBe(reason);
  });

  it('reports a group that became a supergroup as moved, with its new chat id', async () => {
    const telegram = client({ rateGate: noPacing() });
    const newId = fake.migrateChat('-4001');
    expect(newId).toBe('-1004001');
    const error = await failure(telegram.sendMessage('-4001', 'hello'), 'moved');
    expect(error.movedTo).toBe('-1004001');
    expect(error.message).toBe(
      'Telegram: Bad Request: group chat was upgraded to a supergroup chat',
    );
    await telegram.sendMessage(error.movedTo!, 'hello');
    expect(fake.messagesTo('-1004001')).toMatchObject([{ text: 'hello' }]);
    expect(fake.messagesTo('-4001')).toEqual([]);
  });

  it('reports a server that is down as transient, and goes on when it is back', async () => {
    const telegram = client({ rateGate: noPacing() });
    fake.setDown(true);
    expect((await failure(telegram.sendMessage('1', 'x'), 'transient')).message).toBe(
      'Telegram: HTTP 502',
    );
    fake.setDown(true, 'reset');
    expect((await failure(telegram.sendMessage('1', 'x'), 'transient')).message).toMatch(
      /^Telegram is unreachable: /,
    );
    fake.setDown(false);
    await telegram.sendMessage('1', 'x');
    expect(fake.messagesTo(1)).toHaveLength(1);
  });

  it('paces sends to 1 a second per chat and 30 a second overall, as the fake enforces', async () => {
    const telegram = client();
    const started = Date.now();
    await Promise.all([
      ...Array.from({ length: 31 }, (_, i) => telegram.sendMessage(String(100 + i), `m${i}`)),
      telegram.sendMessage('100', 'again'),
      telegram.sendMessage('100', 'and again'),
    ]);
    const elapsed = Date.now() - started;
    expect(fake.requests.filter((r) => r.status !== 200)).toEqual([]);
    expect(fake.messagesTo(100).map((m) => m.text)).toHaveLength(3);
    expect(fake.messages).toHaveLength(33);
    expect(elapsed).toBeGreaterThanOrEqual(2 * SERVICE_WINDOW_MS - 50);
  });

  it('counts an album as one message per photo, for the chat and overall', async () => {
    await withPacedTelegram(async ({ clock, paced, gate, telegram }) => {
      const photos = ['https://p/1.jpg', 'https://p/2.jpg', 'https://p/3.jpg'];
      await telegram.sendMediaGroup('7', photos, 'album');
      // Three messages to chat 7: the next one waits three windows, not one.
      expect(gate.whenCanSend('7') - clock.start).toBe(3 * SERVICE_WINDOW_MS);
      // Overall, 30 a window and (smoothed) 15 a half window: 12 more fit now, not 13.
      expect(gate.whenCanSend(undefined, 12)).toBe(clock.t);
      expect(gate.whenCanSend(undefined, 13)).toBeGreaterThan(clock.t);
      await telegram.sendMessage('7', 'after the album');
      expect(clock.t - clock.start).toBe(3 * SERVICE_WINDOW_MS);
      expect(paced.rateLimited).toBe(0);
      expect(paced.messagesTo(7).map((m) => m.method)).toEqual(['sendMediaGroup', 'sendMessage']);
    });
  });

  it('keeps a group to 20 messages a minute, refusing a longer wait as rate_limited', async () => {
    await withPacedTelegram(async ({ clock, paced, gate, telegram }) => {
      for (let i = 0; i < 20; i++) await telegram.sendMessage('-100777', `m${i}`);
      expect(clock.t - clock.start).toBe(19 * SERVICE_WINDOW_MS);
      // The 21st would wait for the minute: longer than maxPacingWaitMs, so it is handed back.
      const error = await failure(telegram.sendMessage('-100777', 'm20'), 'rate_limited');
      expect(error.retryAfterMs).toBe(TELEGRAM_GROUP_WINDOW_MS - 19 * SERVICE_WINDOW_MS);
      expect(gate.whenCanSend('-100777') - clock.start).toBe(TELEGRAM_GROUP_WINDOW_MS);
      // A private chat is not held back by it.
      await telegram.sendMessage('777', 'private');
      clock.t = clock.start + TELEGRAM_GROUP_WINDOW_MS;
      await telegram.sendMessage('-100777', 'm20');
      expect(paced.rateLimited).toBe(0);
      expect(paced.messagesTo('-100777')).toHaveLength(21);
    });
  });

  it('without pacing the same burst is refused by flood control', async () => {
    const telegram = client({ rateGate: noPacing() });
    await telegram.sendMessage('100', 'one');
    const error = await failure(telegram.sendMessage('100', 'two'), 'rate_limited');
    expect(error.retryAfterMs).toBe(1000);
  });

  it('maps /start messages and block/unblock updates, and confirms with the offset', async () => {
    const telegram = client();
    fake.userStarts(987654321, 'link_4f2aQ9', { username: 'ann' });
    fake.userBlocks(987654321);
    const updates = await telegram.getUpdates(0, 0);
    expect(updates).toEqual([
      {
        updateId: 100_000_001,
        message: { chatId: '987654321', text: '/start link_4f2aQ9', fromUsername: 'ann' },
      },
      { updateId: 100_000_002, chatMember: { chatId: '987654321', status: 'kicked' } },
    ]);
    fake.userUnblocks(987654321);
    const next = await telegram.getUpdates(updates[1]!.updateId + 1, 0);
    expect(next).toEqual([
      { updateId: 100_000_003, chatMember: { chatId: '987654321', status: 'member' } },
    ]);
    expect(await telegram.getUpdates(next[0]!.updateId + 1, 0)).toEqual([]);
  });

  it('long-polls until an update arrives', async () => {
    const telegram = client();
    const polling = telegram.getUpdates(0, 20);
    setTimeout(() => fake.userSends(55, 'hello'), 100);
    const started = Date.now();
    expect(await polling).toEqual([
      { updateId: 100_000_001, message: { chatId: '55', text: 'hello', fromUsername: null } },
    ]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('gives a poll its timeout plus grace, and ends with nothing when nothing comes', async () => {
    const telegram = client({ requestTimeoutMs: 100, pollGraceMs: 2000 });
    expect(await telegram.getUpdates(0, 1)).toEqual([]);
  });

  it('reports a second poller as transient and an active webhook as permanent', async () => {
    const telegram = client();
    const first = telegram.getUpdates(0, 20);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = telegram.getUpdates(0, 0);
    const error = await failure(first, 'transient');
    expect(error.message).toMatch(/terminated by other getUpdates request/);
    expect(await second).toEqual([]);

    await setWebhook();
    const webhook = await failure(telegram.getUpdates(0, 0), 'permanent');
    expect(webhook.message).toMatch(/can't use getUpdates method while webhook is active/);
  });

  it('deletes the webhook, keeping the updates that wait', async () => {
    const bodies: unknown[] = [];
    const spy: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/deleteWebhook')) bodies.push(JSON.parse(String(init?.body)));
      return fetch(input, init);
    };
    const telegram = client({ fetch: spy });
    await setWebhook();
    fake.userSends(55, 'hello');
    await telegram.deleteWebhook();
    expect(bodies).toEqual([{ drop_pending_updates: false }]);
    expect(await telegram.getUpdates(0, 0)).toMatchObject([{ message: { text: 'hello' } }]);
  });
});

describe('telegram updates poller', () => {
  let poller: TelegramUpdatesPoller | undefined;
  afterEach(async () => {
    await poller?.stop();
    poller = undefined;
  });

  /** Warnings logged, by message. */
  function recordingLog() {
    const warnings: string[] = [];
    const log = {
      info: () => {},
      warn: (_details: unknown, message: string) => warnings.push(message),
      error: () => {},
    } as unknown as Logger;
    return { log, warnings };
  }

  /** A poller on `telegram`; only `/id` is sent to it, which needs no database. */
  function startPoller(
    telegram: TelegramClient,
    log: Logger,
    options: { conflictRetryMs?: number } = {},
  ) {
    poller = telegramOnlyPoller(telegram, { log, timeoutSeconds: 1, retryBaseMs: 20, ...options });
    poller.start();
    return poller;
  }

  const repliedTo = (chatId: number) => waitFor(() => fake.messagesTo(chatId).length > 0);

  it('removes a webhook before its first poll, and again when one is set later', async () => {
    const { log, warnings } = recordingLog();
    await setWebhook();
    startPoller(client(), log);
    fake.userSends(55, '/id');
    await repliedTo(55);
    expect(fake.requests.slice(0, 3).map((r) => [r.method, r.status])).toEqual([
      ['setWebhook', 200],
      ['deleteWebhook', 200],
      ['getUpdates', 200],
    ]);
    expect(warnings).toEqual([]);

    await setWebhook();
    await waitFor(() => fake.requests.filter((r) => r.method === 'deleteWebhook').length === 2);
    fake.userSends(56, '/id');
    await repliedTo(56);
    expect(warnings).toEqual([TELEGRAM_WEBHOOK_WARNING]);
  });

  it('warns once, and backs off, while another process polls the same token', async () => {
    const { log, warnings } = recordingLog();
    let polls = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(input).endsWith('/getUpdates')) polls += 1;
      return fetch(input, init);
    };
    startPoller(client({ fetch: counting }), log, { conflictRetryMs: 100 });
    await waitFor(() => polls > 0);

    // The other process: polls again as soon as its poll ends, for 2 s.
    const other = client();
    const until = Date.now() + 2000;
    while (Date.now() < until) await other.getUpdates(0, 1).catch(() => undefined);

    expect(warnings).toEqual([TELEGRAM_POLL_CONFLICT_WARNING]);
    expect(TELEGRAM_POLL_CONFLICT_WARNING).toMatch(/TELEGRAM_POLL_UPDATES=true/);
    // 100, 200, 400, 800 ms apart: a handful of polls in 2 s, not a tight loop.
    expect(polls).toBeLessThanOrEqual(6);

    // The other process is gone: this one takes the updates again, without a new warning.
    fake.userSends(57, '/id');
    await repliedTo(57);
    expect(warnings).toHaveLength(1);
  });

  it('with a cluster lock, one of two processes polls; the other takes over when it stops', async () => {
    const cluster = createLocalCluster();
    const polls = { a: 0, b: 0 };
    const pollerOf = (name: 'a' | 'b') => {
      const counting: typeof fetch = (input, init) => {
        if (String(input).endsWith('/getUpdates')) polls[name] += 1;
        return fetch(input, init);
      };
      const started = telegramOnlyPoller(client({ fetch: counting }), {
        timeoutSeconds: 1,
        retryBaseMs: 20,
        lock: { cluster, name: 'telegram-updates:test', retryMs: 50 },
      });
      started.start();
      return started;
    };
    const first = pollerOf('a');
    const second = pollerOf('b');
    fake.userSends(58, '/id');
    await repliedTo(58);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(polls.a).toBeGreaterThan(0);
    expect(polls.b).toBe(0);
    await first.stop();
    fake.userSends(59, '/id');
    await repliedTo(59);
    expect(polls.b).toBeGreaterThan(0);
    expect(fake.requests.filter((r) => r.status === 409)).toEqual([]);
    await second.stop();
    await cluster.close();
  });
});

async function setWebhook(): Promise<void> {
  const response = await fetch(
    `${fake.baseUrl}/bot${fake.token}/setWebhook?url=https://example.com/hook`,
  );
  expect(response.status).toBe(200);
}

async function waitFor(condition: () => boolean, timeoutMs = 8000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A clock that only moves when the gate sleeps (the fake server reads it too). */
/**
 * A Telegram client paced by the Bot API's real limits against a fake server on the same fake
 * clock, closed when `test` ends.
 */
async function withPacedTelegram(
  test: (setUp: {
    clock: ReturnType<typeof fakeClock>;
    paced: FakeTelegramServer;
    gate: ReturnType<typeof createTelegramRateGate>;
    telegram: TelegramClient;
  }) => Promise<void>,
): Promise<void> {
  const clock = fakeClock();
  const paced = await startFakeTelegramServer({ now: clock.now });
  try {
    const gate = createTelegramRateGate({ now: clock.now, sleep: clock.sleep });
    const telegram = createTelegramClient({
      token: paced.token,
      baseUrl: paced.baseUrl,
      rateGate: gate,
    });
    await test({ clock, paced, gate, telegram });
  } finally {
    await paced.close();
  }
}

function fakeClock() {
  const start = Date.now();
  const clock = {
    start,
    t: start,
    now: () => clock.t,
    sleep: (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      clock.t += ms;
      return Promise.resolve();
    },
  };
  return clock;
}
