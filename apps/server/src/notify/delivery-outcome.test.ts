import { describe, expect, it } from 'vitest';
import {
  INTERRUPTED_ERROR,
  MIN_RATE_LIMIT_WAIT_MS,
  defaultRetryDelayMs,
  deliveryOutcome,
  digestNote,
  plainTextNote,
  skipReason,
  type DeliveryOutcome,
  type OutcomeContext,
  type SendResult,
  type SendStage,
} from './delivery-outcome.js';
import type { DeliveryContext } from './outbox.repository.js';
import { DeliveryError } from './types.js';

const NOW = 1_000_000;
/** Backoff of 1 s per failure, so the table can name the times. */
const context: OutcomeContext = {
  stopping: false,
  movedAlready: false,
  attempts: 2,
  now: NOW,
  retryDelayMs: (failures) => failures * 1_000,
  probeEveryMs: 60_000,
};

const notice: SendStage = { step: 'notice' };
const digest: SendStage = { step: 'digest', count: 7 };
const plain: SendStage = { step: 'plain_text', refusal: 'Telegram: wrong file identifier' };

const failedWith = (stage: SendStage, error: unknown): SendResult => ({ stage, ok: false, error });
const refused = (message: string) =>
  new DeliveryError('message', message, undefined, 'refused for itself');
const transient = new DeliveryError('transient', 'Telegram: Bad Gateway');
const rateLimited = new DeliveryError('rate_limited', 'Telegram: Too Many Requests', 5_000);
const moved = new DeliveryError('moved', 'Telegram: group upgraded', undefined, undefined, '-100');
const blocked = new DeliveryError(
  'permanent',
  'Telegram: Forbidden: bot was blocked by the user',
  undefined,
  'You blocked the bot in Telegram: unblock it and test again',
);

const rows: {
  name: string;
  result: SendResult;
  context?: Partial<OutcomeContext>;
  outcome: Partial<DeliveryOutcome>;
}[] = [
  {
    name: 'a notice accepted is sent, the attempt counted, the channel up',
    result: { stage: notice, ok: true },
    outcome: { kind: 'sent', attempts: 3, note: null, channel: 'up' },
  },
  {
    name: 'a digest accepted is sent with the digest note',
    result: { stage: digest, ok: true },
    outcome: { kind: 'sent', attempts: 3, note: digestNote(7), channel: 'up' },
  },
  {
    name: 'a plain-text fallback accepted is sent with the refusal in its note',
    result: { stage: plain, ok: true },
    outcome: { kind: 'sent', attempts: 3, note: plainTextNote(plain.refusal), channel: 'up' },
  },
  {
    name: "a notice's message refused for itself goes again as plain text",
    result: failedWith(notice, refused('Telegram: wrong file identifier')),
    outcome: { kind: 'plain_text' },
  },
  {
    name: 'a message refusal falls back to plain text even while stopping',
    result: failedWith(notice, refused('Telegram: wrong file identifier')),
    context: { stopping: true },
    outcome: { kind: 'plain_text' },
  },
  {
    name: 'the plain text refused as well: refused, both reasons kept, the channel up',
    result: failedWith(plain, refused('Telegram: message is too long')),
    outcome: {
      kind: 'refused',
      attempts: 3,
      error: 'Telegram: wrong file identifier; fallback: Telegram: message is too long',
      channel: 'up',
    },
  },
  {
    name: 'a refused digest has no fallback: refused',
    result: failedWith(digest, refused('Discord: Invalid Form Body')),
    outcome: { kind: 'refused', attempts: 3, error: 'Discord: Invalid Form Body', channel: 'up' },
  },
  {
    name: 'a moved group is followed to its new chat id',
    result: failedWith(notice, moved),
    outcome: { kind: 'follow_move', movedTo: '-100' },
  },
  {
    name: 'a move is followed even while stopping',
    result: failedWith(notice, moved),
    context: { stopping: true },
    outcome: { kind: 'follow_move', movedTo: '-100' },
  },
  {
    name: 'a move of the plain-text fallback is followed too',
    result: failedWith(plain, moved),
    outcome: { kind: 'follow_move', movedTo: '-100' },
  },
  {
    name: 'a second move is retried like a transient failure',
    result: failedWith(notice, moved),
    context: { movedAlready: true },
    outcome: {
      kind: 'retry',
      at: NOW + 3_000,
      attempts: 3,
      error: moved.message,
      channel: 'troubled',
    },
  },
  {
    name: 'a move without a new chat id is retried like a transient failure',
    result: failedWith(notice, new DeliveryError('moved', 'Telegram: moved')),
    outcome: { kind: 'retry', at: NOW + 3_000, attempts: 3, channel: 'troubled' },
  },
  {
    name: 'stopping mid-send: retried at once, the attempt not counted, nothing known',
    result: failedWith(notice, transient),
    context: { stopping: true },
    outcome: { kind: 'retry', at: NOW, attempts: 2, error: INTERRUPTED_ERROR, channel: 'unknown' },
  },
  {
    name: "429: retried after the service's wait, the attempt not counted",
    result: failedWith(notice, rateLimited),
    outcome: {
      kind: 'retry',
      at: NOW + 5_000,
      attempts: 2,
      error: rateLimited.message,
      channel: 'unknown',
    },
  },
  {
    name: '429 with a tiny wait: at least the minimum wait',
    result: failedWith(notice, new DeliveryError('rate_limited', 'Discord: rate limited', 10)),
    outcome: { kind: 'retry', at: NOW + MIN_RATE_LIMIT_WAIT_MS, attempts: 2 },
  },
  {
    name: '429 without a wait: 1 s',
    result: failedWith(notice, new DeliveryError('rate_limited', 'Discord: rate limited')),
    outcome: { kind: 'retry', at: NOW + 1_000, attempts: 2 },
  },
  {
    name: 'transient: retried after the backoff, counted, the channel troubled',
    result: failedWith(digest, transient),
    outcome: {
      kind: 'retry',
      at: NOW + 3_000,
      attempts: 3,
      error: transient.message,
      channel: 'troubled',
      failure: transient,
    },
  },
  {
    name: 'transient: the backoff never exceeds the probe period',
    result: failedWith(notice, transient),
    context: { attempts: 500 },
    outcome: { kind: 'retry', at: NOW + 60_000, attempts: 501 },
  },
  {
    name: 'an unknown error counts as transient, with its message',
    result: failedWith(notice, new Error('socket hang up')),
    outcome: { kind: 'retry', attempts: 3, error: 'socket hang up', channel: 'troubled' },
  },
  {
    name: 'something thrown that is not an error counts as transient',
    result: failedWith(notice, 'boom'),
    outcome: { kind: 'retry', attempts: 3, error: 'boom', channel: 'troubled' },
  },
  {
    name: 'permanent: the channel stops with the reason, the channel up',
    result: failedWith(notice, blocked),
    outcome: {
      kind: 'stop_channel',
      attempts: 3,
      error: blocked.message,
      reason: blocked.reason,
      channel: 'up',
    },
  },
  {
    name: 'permanent without a reason: the message is the reason',
    result: failedWith(plain, new DeliveryError('permanent', 'Discord: 403')),
    outcome: { kind: 'stop_channel', reason: 'Discord: 403' },
  },
];

describe('delivery outcome', () => {
  it.each(rows)('$name', ({ result, context: overrides, outcome }) => {
    expect(deliveryOutcome(result, { ...context, ...overrides })).toMatchObject(outcome);
  });
});

describe('skip reason', () => {
  const settings = {
    telegram_chat_id: '42',
    discord_user_id: '123456789',
    telegram_stopped_reason: null,
    discord_stopped_reason: null,
    bot_running: true,
  };
  const link = { telegram_enabled: true, discord_enabled: 1 };
  const wanted: DeliveryContext = { tweet: undefined, handle: undefined, settings, link };
  const cases: {
    name: string;
    context: DeliveryContext;
    discord?: string | null;
    telegram: string | null;
  }[] = [
    { name: 'wanted', context: wanted, telegram: null, discord: null },
    {
      name: 'no settings',
      context: { ...wanted, settings: undefined },
      telegram: 'The bot is not running',
    },
    {
      name: 'bot stopped',
      context: { ...wanted, settings: { ...settings, bot_running: 0 } },
      telegram: 'The bot is not running',
    },
    {
      name: 'disconnected',
      context: {
        ...wanted,
        settings: { ...settings, telegram_chat_id: null, discord_user_id: '' },
      },
      telegram: 'Telegram is disconnected',
      discord: 'Discord is disconnected',
    },
    {
      name: 'channel stopped',
      context: { ...wanted, settings: { ...settings, discord_stopped_reason: 'DMs closed' } },
      telegram: null,
      discord: 'Stopped: DMs closed',
    },
    {
      name: 'handle unfollowed',
      context: { ...wanted, link: undefined },
      telegram: 'The handle is no longer followed',
    },
    {
      name: 'switched off for the handle',
      context: { ...wanted, link: { telegram_enabled: 0, discord_enabled: true } },
      telegram: 'Notifications were switched off for this handle',
      discord: null,
    },
  ];
  it.each(cases)('$name', ({ context: given, telegram, discord }) => {
    expect(skipReason(given, 'telegram')).toBe(telegram);
    if (discord !== undefined) expect(skipReason(given, 'discord')).toBe(discord);
  });
});

describe('delivery retry delay', () => {
  it('doubles from 2 s to at most 60 s (the probe period), with +-20 % jitter', () => {
    expect(defaultRetryDelayMs(1, () => 0.5)).toBe(2_000);
    expect(defaultRetryDelayMs(2, () => 0.5)).toBe(4_000);
    expect(defaultRetryDelayMs(5, () => 0.5)).toBe(32_000);
    expect(defaultRetryDelayMs(20, () => 0.5)).toBe(60_000);
    expect(defaultRetryDelayMs(1, () => 0)).toBe(1_600);
    expect(defaultRetryDelayMs(1, () => 1)).toBe(2_400);
  });
});
