/**
 * The Discord API v10 client for DMs (external-apis.md §3): `POST /users/@me/channels` opens
 * (or finds) the DM channel, `POST /channels/{id}/messages` posts to it.
 *
 * - DM channel ids are kept in memory per user (Discord returns the same channel every time);
 *   an 'Unknown Channel' answer forgets it, so the next attempt opens the DM again.
 * - Rate limits: every response's `X-RateLimit-*` headers are kept per bucket (the bucket hash
 *   plus the channel), and no request is sent into an exhausted bucket: the client waits for
 *   its reset when that is at most `maxRateLimitWaitMs` away, else refuses with rate_limited.
 *   All requests also pass a gate of 50 a second, Discord's global limit.
 * - A 429 blocks its bucket (or, when global, every request) for `retry_after`; a short wait is
 *   waited out and the request sent once more, a long one (or a second 429) becomes
 *   rate_limited with the time to wait.
 * - Errors key on Discord's JSON `code`, not the status: 50007/50278 (DMs closed, no shared
 *   server) and 10013 (unknown user) are permanent with a reason for the person; 40003 (opening
 *   DMs too fast) is rate_limited; 50035 (invalid form body) is permanent and its error tree is
 *   put in the message for the log; 5xx and network failures are transient.
 * - After a 401 the token is not used again by this instance: Discord bans an IP that keeps
 *   sending refused requests.
 */
import { sleep as realSleep } from '../../collector/sources/sleep.js';
import { headerSecondsMs, requestJson, type HttpJsonReply } from '../http-json.js';
import { createDiscordRateGate, type RateGate } from '../rate-gate.js';
import { DeliveryError, type DiscordClient, type DiscordEmbedMessage } from '../types.js';

export interface DiscordClientOptions {
  /** DISCORD_BOT_TOKEN; without it the client is unavailable. */
  token: string | undefined;
  /** DISCORD_API_BASE_URL, e.g. https://discord.com/api/v10 (a trailing slash is tolerated). */
  baseUrl: string;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Time limit of one request. Default 15,000 ms. */
  requestTimeoutMs?: number;
  /** Longest rate-limit wait done inside a call; longer ones are reported. Default 10,000 ms. */
  maxRateLimitWaitMs?: number;
  /** The global 50 requests/s; by default a gate of this client's own. */
  rateGate?: RateGate;
  /** Clock (epoch ms). */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const DISCORD_NOT_SET_UP =
  'Discord is not set up on this server (the operator sets DISCORD_BOT_TOKEN).';
export const DISCORD_BAD_TOKEN =
  'The bot token was refused: the operator must check DISCORD_BOT_TOKEN';
export const DISCORD_DMS_CLOSED =
  'Discord will not let the bot message you: share a server with the bot and allow DMs from server members';
export const DISCORD_UNKNOWN_USER = 'Discord user not found: check the User ID';

const USER_AGENT = 'DiscordBot (https://github.com/perch, 0.1)';
const SNOWFLAKE = /^[0-9]{5,20}$/;

interface WireError {
  code?: number;
  message?: string;
  errors?: unknown;
  retry_after?: number;
  global?: boolean;
}

interface Bucket {
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}

/** 'embeds.0.description: Must be 4096 or fewer in length.' for each leaf of a 50035 tree. */
export function flattenFormErrors(tree: unknown, path: string[] = []): string[] {
  if (tree === null || typeof tree !== 'object') return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(tree)) {
    if (key === '_errors' && Array.isArray(value)) {
      for (const item of value as { message?: string; code?: string }[]) {
        out.push(`${path.join('.') || '(body)'}: ${item.message ?? item.code ?? 'invalid'}`);
      }
    } else {
      out.push(...flattenFormErrors(value, [...path, key]));
    }
  }
  return out;
}

/** Creates the client. One instance per bot token: it owns the DM cache and the rate state. */
export function createDiscordClient(options: DiscordClientOptions): DiscordClient {
  const token = options.token?.trim() || undefined;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  const maxWaitMs = options.maxRateLimitWaitMs ?? 10_000;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const gate = options.rateGate ?? createDiscordRateGate({ now, sleep });

  const dmChannels = new Map<string, string>();
  const pendingDms = new Map<string, Promise<string>>();
  /** Route ('POST /channels/:id/messages') -> the bucket hash Discord named for it. */
  const routeBuckets = new Map<string, string>();
  /** `${bucket hash}:${top-level resource}` -> its state. */
  const buckets = new Map<string, Bucket>();
  let globalUntil = 0;
  let tokenRefused = false;

  const bucketKey = (route: string, major: string) => {
    const hash = routeBuckets.get(route);
    return hash === undefined ? null : `${hash}:${major}`;
  };

  function requireToken(): void {
    if (!token) {
      throw new DeliveryError('permanent', DISCORD_NOT_SET_UP, undefined, DISCORD_NOT_SET_UP);
    }
    if (tokenRefused) {
      throw new DeliveryError(
        'permanent',
        'Discord: 401 Unauthorized',
        undefined,
        DISCORD_BAD_TOKEN,
      );
    }
  }

  /** Waits for (or refuses) a spent bucket or a global block; counts one request otherwise. */
  async function takeSlot(route: string, major: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const at = now();
      const key = bucketKey(route, major);
      const bucket = key === null ? undefined : buckets.get(key);
      const live = bucket !== undefined && bucket.resetAt > at;
      let wait = globalUntil - at;
      if (live && bucket.remaining <= 0) wait = Math.max(wait, bucket.resetAt - at);
      if (wait <= 0) {
        if (live) bucket.remaining -= 1;
        break;
      }
      if (wait > maxWaitMs) {
        throw new DeliveryError('rate_limited', `Discord: rate limit reached (${route})`, wait);
      }
      await sleep(wait, signal);
    }
    await gate.acquire(undefined, signal);
  }

  function recordBucket(route: string, major: string, headers: Headers): void {
    const hash = headers.get('x-ratelimit-bucket');
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const resetAfterMs = headerSecondsMs(headers, 'x-ratelimit-reset-after');
    if (!hash || !Number.isFinite(remaining) || resetAfterMs === null) return;
    routeBuckets.set(route, hash);
    buckets.set(`${hash}:${major}`, { remaining, resetAt: now() + resetAfterMs });
  }

  /** Sends one request, waiting out and retrying once a short 429; returns a 2xx body. */
  async function request<T>(
    route: string,
    major: string,
    path: string,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    requireToken();
    for (let attempt = 0; ; attempt++) {
      await takeSlot(route, major, signal);
      const reply = await requestJson(doFetch, {
        service: 'Discord',
        url: `${baseUrl}${path}`,
        method: 'POST',
        headers: {
          authorization: `Bot ${token}`,
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
        },
        body,
        timeoutMs,
        signal,
      });
      recordBucket(route, major, reply.headers);
      if (reply.status >= 200 && reply.status < 300) return reply.body as T;
      const error = (reply.body ?? {}) as WireError;
      if (reply.status === 429 && error.code !== 40003) {
        const waitMs = blockAfter429(route, major, reply, error);
        if (attempt === 0 && waitMs <= maxWaitMs) continue;
        throw new DeliveryError(
          'rate_limited',
          `Discord: ${error.message ?? 'rate limited'}`,
          waitMs,
        );
      }
      throw toDeliveryError(reply.status, error, major);
    }
  }

  /** Records what a 429 blocks and for how long; returns the wait in ms. */
  function blockAfter429(route: string, major: string, reply: HttpJsonReply, error: WireError) {
    const waitMs =
      typeof error.retry_after === 'number'
        ? Math.ceil(error.retry_after * 1000)
        : (headerSecondsMs(reply.headers, 'retry-after') ?? 1000);
    const global =
      error.global === true ||
      reply.headers.get('x-ratelimit-global') === 'true' ||
      reply.headers.get('x-ratelimit-scope') === 'global';
    if (global) {
      globalUntil = Math.max(globalUntil, now() + waitMs);
    } else {
      // A 429 without bucket headers still blocks its route, under a name of our own.
      const hash = routeBuckets.get(route) ?? `route:${route}`;
      routeBuckets.set(route, hash);
      buckets.set(`${hash}:${major}`, { remaining: 0, resetAt: now() + waitMs });
    }
    return waitMs;
  }

  function toDeliveryError(status: number, error: WireError, major: string): DeliveryError {
    const text = error.message ?? `HTTP ${status}`;
    const message = `Discord: ${text}${error.code ? ` (${error.code})` : ''}`;
    switch (error.code) {
      case 50007:
      case 50278:
        return new DeliveryError('permanent', message, undefined, DISCORD_DMS_CLOSED);
      case 10013:
        return new DeliveryError('permanent', message, undefined, DISCORD_UNKNOWN_USER);
      case 10003:
        // The DM channel is gone: forget it, so the retry opens the DM again.
        for (const [user, channel] of dmChannels) {
          if (channel === major) dmChannels.delete(user);
        }
        return new DeliveryError('transient', message);
      case 40003: {
        const waitMs = typeof error.retry_after === 'number' ? error.retry_after * 1000 : 10_000;
        return new DeliveryError('rate_limited', message, Math.ceil(waitMs));
      }
      case 50035:
        return new DeliveryError(
          'permanent',
          `${message}: ${flattenFormErrors(error.errors).join('; ')}`,
          undefined,
          'Discord refused the notification as malformed: the operator can find the details in the server log',
        );
    }
    if (status === 401) {
      tokenRefused = true;
      return new DeliveryError('permanent', message, undefined, DISCORD_BAD_TOKEN);
    }
    if (status >= 500) return new DeliveryError('transient', message);
    return new DeliveryError(
      'permanent',
      message,
      undefined,
      `Discord refused the message: ${text}`,
    );
  }

  async function openDmUncached(userId: string, signal?: AbortSignal): Promise<string> {
    const channel = await request<{ id?: string }>(
      'POST /users/@me/channels',
      '@me',
      '/users/@me/channels',
      { recipient_id: userId },
      signal,
    );
    if (!channel?.id) throw new DeliveryError('transient', 'Discord: no DM channel in the answer');
    dmChannels.set(userId, channel.id);
    return channel.id;
  }

  return {
    available: token !== undefined,

    async openDm(userId, signal) {
      requireToken();
      const id = userId.trim();
      if (!SNOWFLAKE.test(id)) {
        throw new DeliveryError(
          'permanent',
          `Discord: not a user id: ${userId}`,
          undefined,
          DISCORD_UNKNOWN_USER,
        );
      }
      const known = dmChannels.get(id);
      if (known) return known;
      // Concurrent sends to one user open the DM once.
      let pending = pendingDms.get(id);
      if (!pending) {
        pending = openDmUncached(id, signal).finally(() => pendingDms.delete(id));
        pendingDms.set(id, pending);
      }
      return pending;
    },

    async send(channelId, message: DiscordEmbedMessage, signal) {
      const posted = await request<{ id?: string }>(
        'POST /channels/:id/messages',
        channelId,
        `/channels/${encodeURIComponent(channelId)}/messages`,
        // Never ping anyone, whatever the tweet says.
        { ...message, allowed_mentions: { parse: [] } },
        signal,
      );
      if (!posted?.id) throw new DeliveryError('transient', 'Discord: no message in the answer');
      return posted.id;
    },
  };
}
