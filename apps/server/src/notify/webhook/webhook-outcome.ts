/**
 * What a webhook send's answer means (the rules; webhook-sender.ts does the I/O):
 *
 * - 2xx: delivered (whatever the body says);
 * - 3xx: failed for good: redirects are not followed, since one could lead anywhere, the local
 *   network included; the endpoint's owner should save the final address;
 * - 408, 429 and 5xx: retryable; 429 and 503 carry Retry-After (seconds or an HTTP date) as
 *   `retryAfterMs` when the receiver sent one;
 * - other 4xx: failed for good (the endpoint is gone, refuses the secret or the body);
 * - time-outs and network failures: retryable; a refused address: failed for good.
 *
 * `webhookDeliveryError` turns a failure into the DeliveryError the delivery worker acts on,
 * so a webhook fails the way a Telegram or Discord send does.
 */
import { DeliveryError } from '../types.js';

export interface WebhookResult {
  /** The receiver answered 2xx. */
  ok: boolean;
  /** The HTTP status, or null when no answer came (refused, time-out, network). */
  status: number | null;
  /** Worth trying again later (the receiver or the network is in trouble). */
  retryable: boolean;
  /** What happened, in words a person can act on (the Test button and the delivery log). */
  message: string;
  /** How long the receiver asked to wait (429 or 503 with Retry-After). */
  retryAfterMs?: number;
}

/** Most characters of the receiver's answer quoted in a failure message. */
const QUOTED_ANSWER_MAX = 200;

/** Retry-After in ms, from seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // An HTTP date names its day and month: Date.parse alone would read '-5' as a year.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The start of the receiver's answer, on one line, for a failure message. */
function quoted(body: string): string {
  const line = body.replace(/\s+/g, ' ').trim();
  if (line === '') return '';
  const cut = line.length > QUOTED_ANSWER_MAX ? `${line.slice(0, QUOTED_ANSWER_MAX)}…` : line;
  return `: ${cut}`;
}

/** The result of an answer with `status`, its Retry-After header and the start of its body. */
export function answerResult(
  status: number,
  answer: { retryAfter?: string; body: string; now: number },
): WebhookResult {
  if (status >= 200 && status < 300) {
    return { ok: true, status, retryable: false, message: `Delivered (HTTP ${status})` };
  }
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      status,
      retryable: false,
      message: `The endpoint answered ${status}: redirects are not followed, save the final address`,
    };
  }
  const message = `The endpoint answered ${status}${quoted(answer.body)}`;
  const permanent = status >= 400 && status < 500 && status !== 408 && status !== 429;
  if (permanent) return { ok: false, status, retryable: false, message };
  const wait =
    status === 429 || status === 503 ? retryAfterMs(answer.retryAfter, answer.now) : undefined;
  return {
    ok: false,
    status,
    retryable: true,
    message,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  };
}

/** No answer came: the connection was refused by our policy (for good) or failed (retryable). */
export function noAnswerResult(message: string, retryable: boolean): WebhookResult {
  return { ok: false, status: null, retryable, message };
}

/** A 429 without Retry-After waits this long before the next try. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 1000;

/**
 * The DeliveryError of a failed send, as the delivery worker classifies Telegram's and
 * Discord's: 429 is rate_limited, other retryable failures transient, the rest permanent (the
 * endpoint stops, with the message as the reason shown to its owner). Undefined when delivered.
 */
export function webhookDeliveryError(result: WebhookResult): DeliveryError | undefined {
  if (result.ok) return undefined;
  if (result.status === 429) {
    return new DeliveryError(
      'rate_limited',
      result.message,
      result.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS,
    );
  }
  if (result.retryable) return new DeliveryError('transient', result.message);
  return new DeliveryError('permanent', result.message, undefined, result.message);
}
