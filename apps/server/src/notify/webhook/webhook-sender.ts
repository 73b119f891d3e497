/**
 * Sends one webhook request with node:http(s), guarded against server-side request forgery:
 *
 * - The host name is resolved by our own `lookup` (all addresses), and the connection is refused
 *   when any of them is an address the policy refuses (address-policy.ts). The check runs as the
 *   socket connects, on the very addresses it connects to, so a name that resolves to a public
 *   address when saved and to 10.0.0.1 when sent (DNS rebinding) is still refused. A host
 *   written as an IP address skips `lookup` in node:net, so it is checked before connecting.
 * - Plain http:// goes only to loopback addresses, and only with WEBHOOK_ALLOW_LOOPBACK.
 * - Redirects are never followed (a 3xx is a failure; webhook-outcome.ts).
 * - One time limit (default 10 s) covers resolving, connecting, TLS, the answer and its body.
 * - At most 64 kB of the answer is read; the rest is not waited for (the socket is destroyed),
 *   and a 2xx stays a success.
 * - Headers: JSON content type, `Perch-Webhook/<version>` user agent, the signature (secret.ts)
 *   and, when given, `X-Perch-Delivery` (the same for every try of one delivery, so a receiver
 *   can drop a repeat).
 *
 * The caller's AbortSignal (the worker stopping) rejects with its reason, as the Telegram and
 * Discord clients do, so a stopping worker is not mistaken for a failing endpoint. Everything
 * else resolves to a WebhookResult.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { abortReason } from '../../lib/sleep.js';
import { addressKind, addressRefusal, type AddressPolicy } from './address-policy.js';
import { signatureHeader, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './secret.js';
import {
  answerResult,
  noAnswerResult,
  webhookDeliveryError,
  type WebhookResult,
} from './webhook-outcome.js';
import { urlHost } from './webhook-url.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_RESPONSE_MAX_BYTES = 64 * 1024;
export const DELIVERY_ID_HEADER = 'X-Perch-Delivery';

/** An address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses (dns.lookup by default; tests inject their own). */
export type WebhookResolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: WebhookResolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface WebhookSenderOptions {
  policy: AddressPolicy;
  /** Perch's version, for the user agent. */
  version: string;
  /** The whole request's time limit. Default 10,000 ms. */
  timeoutMs?: number;
  /** Most bytes of the answer read. Default 64 kB. */
  maxResponseBytes?: number;
  resolve?: WebhookResolver;
  now?: () => number;
}

/** Where a webhook goes and the secret it is signed with. */
export interface WebhookTarget {
  url: string;
  secret: string;
}

export interface WebhookSendExtras {
  /** Aborts the send (the worker stops): the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Sent as X-Perch-Delivery: the same on every try of one delivery. */
  deliveryId?: string;
}

/** A connection our policy refused; told apart from network failures in the request's error. */
class AddressRefusedError extends Error {}

/** Why an address may not be connected to for a request over `protocol`, or null. */
function refusalFor(address: string, protocol: string, policy: AddressPolicy): string | null {
  const refusal = addressRefusal(address, policy);
  if (refusal !== null) return refusal;
  if (protocol === 'http:' && addressKind(address) !== 'loopback') {
    return `${address} is not a loopback address: plain http:// goes only to this machine`;
  }
  return null;
}

/** A node:net lookup that resolves with `resolve` and refuses when any address is refused. */
function guardedLookup(
  resolve: WebhookResolver,
  refuse: (address: string) => string | null,
): net.LookupFunction {
  return (hostname, options, callback) => {
    const answer = async () => {
      const all = await resolve(hostname);
      const refusal = all.map((entry) => refuse(entry.address)).find((reason) => reason !== null);
      if (refusal) throw new AddressRefusedError(refusal);
      const usable = options.family ? all.filter((entry) => entry.family === options.family) : all;
      if (usable.length === 0) throw new Error(`${hostname} has no address`);
      return usable;
    };
    answer().then(
      (usable) => {
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/**
 * Reads at most `max` bytes of a body as text, then stops reading (the socket is destroyed).
 * Never fails: an answer cut off (our time limit, the receiver going away) is what came of it,
 * since its status already tells how the send went; a 2xx cut short was still accepted.
 */
function readCapped(response: http.IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => resolve(Buffer.concat(chunks).toString('utf8'));
    response.on('data', (chunk: Buffer) => {
      const room = max - size;
      chunks.push(chunk.subarray(0, room));
      size += Math.min(room, chunk.length);
      if (size < max) return;
      response.removeAllListeners('data');
      response.destroy();
      finish();
    });
    response.on('end', finish);
    response.on('error', finish);
    response.on('close', finish);
  });
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** The result of a request that got no answer: refused by our lookup, timed out or failed. */
function failureResult(error: Error, timedOut: boolean, timeoutMs: number) {
  if (error instanceof AddressRefusedError) return noAnswerResult(error.message, false);
  if (timedOut) {
    return noAnswerResult(`The endpoint did not answer within ${seconds(timeoutMs)}`, true);
  }
  const code = (error as NodeJS.ErrnoException).code;
  return noAnswerResult(
    `The endpoint is unreachable: ${error.message}${code ? ` (${code})` : ''}`,
    true,
  );
}

/**
 * Sends `payload` as JSON to the target, signed with its secret. Resolves to how it went;
 * rejects only when `extras.signal` aborts.
 */
export async function sendWebhook(
  target: WebhookTarget,
  payload: unknown,
  options: WebhookSenderOptions,
  extras: WebhookSendExtras = {},
): Promise<WebhookResult> {
  const { signal } = extras;
  if (signal?.aborted) throw abortReason(signal);
  const now = options.now ?? Date.now;
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return noAnswerResult('The endpoint address is not a valid URL', false);
  }
  const refuse = (address: string) => refusalFor(address, url.protocol, options.policy);
  const early = earlyRefusal(url, options.policy, refuse);
  if (early) return noAnswerResult(early, false);

  const body = JSON.stringify(payload);
  const timestamp = Math.floor(now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': `Perch-Webhook/${options.version}`,
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: signatureHeader(target.secret, timestamp, body),
    ...(extras.deliveryId ? { [DELIVERY_ID_HEADER]: extras.deliveryId } : {}),
  };
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? WEBHOOK_RESPONSE_MAX_BYTES;
  const client = url.protocol === 'https:' ? https : http;

  return new Promise<WebhookResult>((resolve, reject) => {
    let timedOut = false;
    let settled = false;
    const request = client.request(url, {
      method: 'POST',
      headers,
      // No pooled sockets: each request connects through the guarded lookup, with this policy.
      agent: false,
      lookup: guardedLookup(options.resolve ?? systemResolver, refuse),
    });
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy();
    }, timeoutMs);
    const onAbort = () => request.destroy();
    signal?.addEventListener('abort', onAbort, { once: true });
    // Destroying a socket can raise a late error after the answer is taken: the first one counts.
    const settle = (outcome: () => WebhookResult | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      const value = signal?.aborted ? abortReason(signal) : outcome();
      if (value instanceof Error) reject(value);
      else resolve(value);
    };

    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        response.destroy();
        settle(() => answerResult(status, { body: '', now: now() }));
        return;
      }
      const retryAfter = response.headers['retry-after'];
      void readCapped(response, maxBytes).then((text) =>
        settle(() => answerResult(status, { retryAfter, body: text, now: now() })),
      );
    });
    request.on('error', (error) => settle(() => failureResult(error, timedOut, timeoutMs)));
    request.end(body);
  });
}

/**
 * Why the request may not even start: a scheme other than https (or http with loopback
 * allowed), or a host written as an address the policy refuses (node:net skips `lookup` then).
 */
function earlyRefusal(
  url: URL,
  policy: AddressPolicy,
  refuse: (address: string) => string | null,
): string | null {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowLoopback)) {
    return `${url.protocol}// endpoints are not allowed: use https://`;
  }
  const host = urlHost(url);
  return net.isIP(host) !== 0 ? refuse(host) : null;
}

/**
 * A webhook client for the delivery worker and the Test button, with the operator's policy and
 * limits fixed: `send` resolves to the result (the Test button shows it); `deliver` throws the
 * DeliveryError the worker acts on, as the Telegram and Discord clients do.
 */
export interface WebhookClient {
  send(target: WebhookTarget, payload: unknown, extras?: WebhookSendExtras): Promise<WebhookResult>;
  deliver(target: WebhookTarget, payload: unknown, extras?: WebhookSendExtras): Promise<void>;
}

export function createWebhookClient(options: WebhookSenderOptions): WebhookClient {
  const send = (target: WebhookTarget, payload: unknown, extras?: WebhookSendExtras) =>
    sendWebhook(target, payload, options, extras);
  return {
    send,
    async deliver(target, payload, extras) {
      const error = webhookDeliveryError(await send(target, payload, extras));
      if (error) throw error;
    },
  };
}
