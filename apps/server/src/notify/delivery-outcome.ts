/**
 * What a delivery comes to: the rules the delivery worker acts on, as pure functions.
 *
 * Before sending, a claimed row is cancelled when it is no longer wanted (`skipReason`): the bot
 * stopped, the channel was disconnected or stopped, the handle unfollowed or switched off.
 *
 * After a send (`deliveryOutcome`), in this order:
 * - the service accepted everything: sent (with a note when it went as plain text or in a
 *   digest); the channel works;
 * - one of a notice's messages was refused for itself (DeliveryError 'message': a photo URL, a
 *   caption, Discord 50035): the notice goes again as plain text with the link; if that plain
 *   text is refused as well, the notice is refused (both reasons kept);
 * - a Telegram group became a supergroup: the send is made again to its new chat id, once per
 *   delivery; a second move is retried like any transient failure;
 * - the worker is stopping (the send was aborted): whether it arrived is unknown, so it is tried
 *   again at once, the attempt not counted (Discord's nonce covers a resend);
 * - 429: tried again after the service's wait (at least MIN_RATE_LIMIT_WAIT_MS), not counted;
 * - transient (5xx, network, time-outs): tried again after the backoff (at most the probe
 *   period), counted; the channel may be down (its circuit counts it);
 * - refused ('message', e.g. a digest): failed; the chat is fine and the service answered, so
 *   the channel works;
 * - permanent (chat not found, bot blocked, DMs closed, bad token): failed, and the user's
 *   channel stops with the reason on Settings.
 */
import type { OutboxChannel } from '../db/types.js';
import type { DeliveryContext } from './outbox.repository.js';
import { isWebhookChannel } from './webhook/webhook-channel.js';
import { DeliveryError } from './types.js';

/** A rate-limited row waits at least this long, whatever the service said. */
export const MIN_RATE_LIMIT_WAIT_MS = 250;

/** The delivery log's note on a digest's rows. */
export const digestNote = (count: number) => `Sent in one digest of ${count} posts.`;

/** The delivery log's note on a notice that went as plain text. */
export const plainTextNote = (reason: string) => `Sent as plain text: ${reason}`;

/** The delivery log's error of a send cut off by the worker stopping. */
export const INTERRUPTED_ERROR = 'Interrupted by shutdown';

/** Exponential backoff: 2 s, 4 s, 8 s ... at most 60 s (the probe period), each +-20 %. */
export function defaultRetryDelayMs(failures: number, random: () => number = Math.random): number {
  const base = Math.min(60_000, 2_000 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Why a claimed row must not be sent any more, or null when it should go. */
export function skipReason(
  context: DeliveryContext,
  channel: OutboxChannel,
  alert = false,
): string | null {
  if (isWebhookChannel(channel)) {
    const endpoint = context.endpoint;
    if (!endpoint) return 'The webhook was deleted';
    if (endpoint.stopped_reason) return `Stopped: ${endpoint.stopped_reason}`;
    if (alert) return context.firing ? null : 'The alert rule was deleted';
    if (!context.settings?.bot_running) return 'The bot is not running';
    if (!context.link) return 'The handle is no longer followed';
    if (!context.link.webhook_enabled) return 'Webhooks were switched off for this handle';
    return null;
  }
  const settings = context.settings;
  // An alert goes whatever the forwarding switches say: creating the rule was the opt-in.
  if (!alert && (!settings || !settings.bot_running)) return 'The bot is not running';
  const target = channel === 'telegram' ? settings?.telegram_chat_id : settings?.discord_user_id;
  if (!target) return `${channel === 'telegram' ? 'Telegram' : 'Discord'} is disconnected`;
  const stopped =
    channel === 'telegram' ? settings?.telegram_stopped_reason : settings?.discord_stopped_reason;
  if (stopped) return `Stopped: ${stopped}`;
  if (alert) return context.firing ? null : 'The alert rule was deleted';
  if (!context.link) return 'The handle is no longer followed';
  const enabled =
    channel === 'telegram' ? context.link.telegram_enabled : context.link.discord_enabled;
  if (!enabled) return 'Notifications were switched off for this handle';
  return null;
}

/**
 * What was sent: a notice's own messages, a digest of `count` notices, or the plain-text
 * fallback of a notice whose message was refused with `refusal`.
 */
export type SendStage =
  { step: 'notice' } | { step: 'digest'; count: number } | { step: 'plain_text'; refusal: string };

/** How a send ended: accepted, or what it threw. */
export type SendResult =
  { stage: SendStage; ok: true } | { stage: SendStage; ok: false; error: unknown };

/** What the worker knows around a send. */
export interface OutcomeContext {
  /** The worker is stopping: sends in flight were aborted. */
  stopping: boolean;
  /** A moved chat was already followed during this delivery. */
  movedAlready: boolean;
  /** The highest attempt count of the rows sent, before this attempt. */
  attempts: number;
  /** Epoch ms. */
  now: number;
  /** Wait before attempt n + 1 after n transient failures. */
  retryDelayMs: (failures: number) => number;
  /** A retry never waits longer than the probe period of an open circuit. */
  probeEveryMs: number;
}

/**
 * What a send's outcome says of its channel: it works (the service answered), it may be down
 * (`troubled`: the circuit counts it), or nothing is known (stopping, rate limits).
 */
export type ChannelHealth = 'up' | 'troubled' | 'unknown';

export type DeliveryOutcome =
  /** Accepted: the rows are sent, with `note` for the log. */
  | { kind: 'sent'; attempts: number; note: string | null; channel: 'up' }
  /** A message of the notice was refused for itself: send the notice as plain text. */
  | { kind: 'plain_text'; refusal: DeliveryError }
  /** The Telegram group moved: send again to `movedTo`. */
  | { kind: 'follow_move'; movedTo: string }
  /** Back to pending, to be tried at `at` (epoch ms). */
  | {
      kind: 'retry';
      at: number;
      attempts: number;
      error: string;
      channel: ChannelHealth;
      failure?: DeliveryError;
    }
  /** This notice cannot be sent; the chat is fine. */
  | { kind: 'refused'; attempts: number; error: string; channel: 'up'; failure: DeliveryError }
  /** The chat cannot be reached: the rows fail and the user's channel stops with `reason`. */
  | {
      kind: 'stop_channel';
      attempts: number;
      error: string;
      reason: string;
      channel: 'up';
    };

/** Anything a send threw, as the DeliveryError it counts as (unknown errors are transient). */
function asDeliveryError(error: unknown): DeliveryError {
  return error instanceof DeliveryError
    ? error
    : new DeliveryError('transient', error instanceof Error ? error.message : String(error));
}

const isMessageRefusal = (error: unknown): error is DeliveryError =>
  error instanceof DeliveryError && error.kind === 'message';

/** What a send's result means for its rows and its channel (the rules in this file's header). */
export function deliveryOutcome(result: SendResult, context: OutcomeContext): DeliveryOutcome {
  const { stage } = result;
  if (result.ok) {
    return { kind: 'sent', attempts: context.attempts + 1, note: sentNote(stage), channel: 'up' };
  }
  let error = result.error;
  if (isMessageRefusal(error) && stage.step === 'notice') {
    return { kind: 'plain_text', refusal: error };
  }
  if (isMessageRefusal(error) && stage.step === 'plain_text') {
    // The plain text was refused as well: this notice cannot be sent; the chat is fine.
    error = new DeliveryError('message', `${stage.refusal}; fallback: ${error.message}`);
  }
  if (
    error instanceof DeliveryError &&
    error.kind === 'moved' &&
    error.movedTo &&
    !context.movedAlready
  ) {
    return { kind: 'follow_move', movedTo: error.movedTo };
  }
  return failureOutcome(asDeliveryError(error), context);
}

function sentNote(stage: SendStage): string | null {
  if (stage.step === 'digest') return digestNote(stage.count);
  if (stage.step === 'plain_text') return plainTextNote(stage.refusal);
  return null;
}

/** A failed send that is not followed up at once: retried later, refused, or the end of a chat. */
function failureOutcome(failure: DeliveryError, context: OutcomeContext): DeliveryOutcome {
  const { attempts, now } = context;
  if (context.stopping) {
    return { kind: 'retry', at: now, attempts, error: INTERRUPTED_ERROR, channel: 'unknown' };
  }
  if (failure.kind === 'rate_limited') {
    const waitMs = Math.max(MIN_RATE_LIMIT_WAIT_MS, failure.retryAfterMs ?? 1000);
    return {
      kind: 'retry',
      at: now + waitMs,
      attempts,
      error: failure.message,
      channel: 'unknown',
    };
  }
  if (failure.kind === 'transient' || failure.kind === 'moved') {
    const delay = Math.min(context.retryDelayMs(attempts + 1), context.probeEveryMs);
    return {
      kind: 'retry',
      at: now + delay,
      attempts: attempts + 1,
      error: failure.message,
      channel: 'troubled',
      failure,
    };
  }
  if (failure.kind === 'message') {
    return {
      kind: 'refused',
      attempts: attempts + 1,
      error: failure.message,
      channel: 'up',
      failure,
    };
  }
  return {
    kind: 'stop_channel',
    attempts: attempts + 1,
    error: failure.message,
    reason: failure.reason ?? failure.message,
    channel: 'up',
  };
}
