/**
 * The Telegram client against the loopback fake Bot API (real HTTP, no mocks of our code): the
 * wire format, every error mapping, the plain-text fallback, pacing and long polling.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startFakeTelegramServer,
  type FakeTelegramChatState,
  type FakeTelegramServer,
} from '../../../test/fakes/fake-telegram-server.js';
import { createRateGate } from '../rate-gate.js';
import { DeliveryError, type DeliveryErrorKind } from '../types.js';
import {
  TELEGRAM_BAD_TOKEN,
  TELEGRAM_NOT_SET_UP,
  createTelegramClient,
  sendTelegramOutgoing,
  type TelegramClientOptions,
} from './telegram-client.js';

let fake: FakeTelegramServer;

beforeEach(async () => {
  fake = await startFakeTelegramServer();
});
afterEach(() => fake.close());

const client = (options: Partial<TelegramClientOptions> = {}) =>
  createTelegramClient({ token: fake.token, baseUrl: fake.baseUrl, ...options });

/** A gate that never holds anything back, for tests about something else. */
const noPacing = () => createRateGate({ perSecond: 10_000 });

async function failure(
  promise: Promise<unknown>,
  kind?: DeliveryErrorKind,
): Promise<DeliveryError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  if (kind) expect((error as DeliveryError).kind).toBe(kind);
  return error as DeliveryError;
}

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

  it('reports a message refused for its content as permanent with Telegram’s words', async () => {
    const error = await failure(client().sendMessage('1', 'x'.repeat(4097)), 'permanent');
    expect(error.reason).toBe('Telegram refused the message: Bad Request: message is too long');
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
    expect(elapsed).toBeGreaterThanOrEqual(2 * 1100 - 50);
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

    await fetch(`${fake.baseUrl}/bot${fake.token}/setWebhook?url=https://example.com/hook`);
    const webhook = await failure(telegram.getUpdates(0, 0), 'permanent');
    expect(webhook.message).toMatch(/can't use getUpdates method while webhook is active/);
  });
});
