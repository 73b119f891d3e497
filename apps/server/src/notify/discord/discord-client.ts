/**
 * The Discord API v10 client for DMs (docs/spec-notes.md, Discord): `POST /users/@me/channels`
 * opens (or finds) the DM channel, `POST /channels/{id}/messages` posts to it.
 *
 * - DM channel ids are kept in memory per user (Discord returns the same channel every time);
 *   an 'Unknown Channel' answer forgets it, so the next attempt opens the DM again.
 * - A message may carry a nonce: it is sent with `enforce_nonce: true`, and Discord answers a
 *   resend with the same nonce (a retry after a time-out that did arrive) with the message it
 *   already posted instead of posting it twice.
 * - Rate limits are kept per bucket (the bucket hash Discord names plus the channel), from the
 *   `X-RateLimit-*` headers of every answer, and no request is sent that the bucket has no room
 *   for: the client waits for its reset when that is at most `maxBucketWaitMs` away (1 s), else
 *   refuses with rate_limited, so the worker's slot serves another user meanwhile. Requests whose answers are still on the way count against the
 *   bucket too, and until a first answer has described a bucket only one request at a time goes
 *   into it, so concurrent sends (DM openings above all: one bucket for all of them) never find
 *   out its size with a 429. All requests also pass a gate of 50 a second, Discord's global
 *   limit.
 * - A 429 blocks its bucket (or, when global, every request) for `retry_after`; a short wait is
 *   waited out and the request sent once more, a long one (or a second 429) becomes
 *   rate_limited with the time to wait. 40003 (opening DMs too fast) holds every DM opening
 *   back for its wait and is rate_limited.
 * - Errors key on Discord's JSON `code`, then on the status. The user cannot be reached
 *   (50007/50278: DMs closed or no shared server; 10013: unknown user; 50001/50013 and any other
 *   403: no access), or the token is refused (401) -> permanent, with a reason for the person.
 *   The message itself was refused (50035 invalid form body, whose error tree is put in the
 *   message for the log, or any other 400) -> message: the notice can go again as plain text.
 *   10003 (the DM channel is gone), 5xx and network failures -> transient.
 * - After a 401 the token is not used again by this instance: Discord bans an IP that keeps
 *   sending refused requests.
 */
import { sleep as realSleep } from '../../lib/sleep.js';
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
  /** Longest global rate-limit wait done inside a call; longer ones are reported. Default 10 s. */
  maxRateLimitWaitMs?: number;
  /**
   * The same for a spent bucket: a DM channel's messages (5 per 5 s) or DM openings (one bucket
   * for every user, 10 per 10 s). Default 1,000 ms: a send that would wait longer gives its
   * worker slot back (rate_limited), so other users are served meanwhile.
   */
  maxBucketWaitMs?: number;
  /** The global 50 requests/s; by default a gate of this client's own. */
  rateGate?: RateGate;
  /**
   * Where DM channel ids are shared with the other processes delivering with this token
   * (scale-out), so a user's DM is opened once for the cluster, not once per worker: DM
   * openings have one bucket of 10 per 10 s for the whole bot. By default each client keeps
   * its own.
   */
  dmChannelStore?: DmChannelStore;
  /** Clock (epoch ms). */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** DM channel ids by Discord user id, shared between processes; failures are not fatal. */
export interface DmChannelStore {
  get(userId: string): Promise<string | null>;
  set(userId: string, channelId: string): Promise<void>;
  delete(userId: string): Promise<void>;
}

export const DISCORD_NOT_SET_UP =
  'Discord is not set up on this server (the operator sets DISCORD_BOT_TOKEN).';
export const DISCORD_BAD_TOKEN =
  'The bot token was refused: the operator must check DISCORD_BOT_TOKEN';
export const DISCORD_DMS_CLOSED =
  'Discord will not let the bot message you: share a server with the bot and allow DMs from server members';
export const DISCORD_UNKNOWN_USER = 'Discord user not found: check the User ID';
export const DISCORD_NO_ACCESS =
  'Discord does not let the bot message you: share a server with the bot, allow DMs from its members and test again';
export const DISCORD_MALFORMED =
  'Discord refused the notification as malformed: the operator can find the details in the server log';
/** Discord keeps a nonce for a few minutes; it has at most 25 characters. */
export const DISCORD_NONCE_MAX_LENGTH = 25;

const USER_AGENT = 'DiscordBot (https://github.com/perch, 0.1)';
const SNOWFLAKE = /^[0-9]{5,20}$/;

interface WireError {
  code?: number;
  message?: string;
  errors?: unknown;
  retry_after?: number;
  global?: boolean;
}

/** What the client knows of one rate-limit bucket. */
interface Bucket {
  /** Requests allowed per window (`X-RateLimit-Limit`); null until an answer said. */
  limit: number | null;
  /** Left in the current window: the lowest `X-RateLimit-Remaining` answered in it. */
  remaining: number;
  /** Epoch ms when the window ends, by our clock (a little after Discord's own reset). */
  resetAt: number;
  /** Discord's `X-RateLimit-Reset` of that window: answers naming the same one are merged. */
  window: number | null;
  /** Requests sent into the bucket whose answer has not come back yet. */
  inFlight: number;
  /** Waiting requests, woken whenever an answer (or a failure) frees something up. */
  waiters: Set<() => void>;
}

/**
 * A bucket's window is taken as over this long after its reset by our clock: the reset-after
 * header is rounded to the millisecond, and a request sent right at the reset could otherwise
 * still reach Discord inside the spent window.
 */
const RESET_MARGIN_MS = 25;

const ROUTE_DM = 'POST /users/@me/channels';
const ROUTE_MESSAGES = 'POST /channels/:id/messages';

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
  const maxBucketWaitMs = Math.min(maxWaitMs, options.maxBucketWaitMs ?? 1_000);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const gate = options.rateGate ?? createDiscordRateGate({ now, sleep });
  const store = options.dmChannelStore;

  const dmChannels = new Map<string, string>();
  const pendingDms = new Map<string, Promise<string>>();
  /** Route ('POST /channels/:id/messages') -> the bucket hash Discord named for it. */
  const routeBuckets = new Map<string, string>();
  /**
   * `${bucket hash}:${top-level resource}` -> its state; `route:${route}:${resource}` for a
   * bucket whose hash no answer has named yet.
   */
  const buckets = new Map<string, Bucket>();
  let globalUntil = 0;
  let tokenRefused = false;

  const bucketKey = (route: string, major: string) => {
    const hash = routeBuckets.get(route);
    return hash === undefined ? `route:${route}:${major}` : `${hash}:${major}`;
  };

  function bucketOf(route: string, major: string): Bucket {
    const key = bucketKey(route, major);
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = {
        limit: null,
        remaining: 0,
        resetAt: 0,
        window: null,
        inFlight: 0,
        waiters: new Set(),
      };
      buckets.set(key, bucket);
    }
    return bucket;
  }

  function wake(bucket: Bucket): void {
    const waiters = [...bucket.waiters];
    bucket.waiters.clear();
    for (const waiter of waiters) waiter();
  }

  /** Waits for the bucket's next answer, or `ms` at most; rejects when the signal aborts. */
  async function untilAnswered(bucket: Bucket, ms: number, signal?: AbortSignal): Promise<void> {
    const answered = new Promise<void>((resolve) => bucket.waiters.add(resolve));
    const timer = new AbortController();
    const stop = signal ? AbortSignal.any([signal, timer.signal]) : timer.signal;
    try {
      await Promise.race([answered, sleep(ms, stop)]);
    } catch (error) {
      if (signal?.aborted) throw error;
    } finally {
      // The timer is not left running once the answer came.
      timer.abort();
    }
  }

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

  /**
   * Waits for room in the request's bucket (and for a global block to end), then counts the
   * request as in flight there; returns the bucket, to be released when the answer is in.
   */
  async function takeSlot(route: string, major: string, signal?: AbortSignal): Promise<Bucket> {
    for (;;) {
      const at = now();
      const bucket = bucketOf(route, major);
      const live = bucket.resetAt > at;
      let room: number;
      if (live) room = bucket.remaining - bucket.inFlight;
      else if (bucket.limit !== null) room = bucket.limit - bucket.inFlight;
      // Nothing known of this bucket yet: one request finds out its size for the others.
      else room = bucket.inFlight === 0 ? 1 : 0;
      const globalWait = globalUntil - at;
      if (room > 0 && globalWait <= 0) {
        bucket.inFlight += 1;
        return bucket;
      }
      // Spent until its reset; or every slot taken by requests whose answers will tell more.
      const spent = live && bucket.remaining <= 0;
      const bucketWait = spent ? bucket.resetAt - at : 0;
      const wait = Math.max(globalWait, bucketWait);
      if (globalWait > maxWaitMs || bucketWait > maxBucketWaitMs) {
        throw new DeliveryError('rate_limited', `Discord: rate limit reached (${route})`, wait);
      }
      if (wait > 0) {
        await sleep(wait, signal);
        continue;
      }
      // Room may come back with the next answer, at the latest when the window ends.
      await untilAnswered(bucket, live ? bucket.resetAt - at : timeoutMs, signal);
    }
  }

  /** What an answer says of its bucket; answers of one window keep the lowest `remaining`. */
  function recordBucket(route: string, major: string, bucket: Bucket, headers: Headers): void {
    const hash = headers.get('x-ratelimit-bucket');
    const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
    const resetAfterMs = headerSecondsMs(headers, 'x-ratelimit-reset-after');
    if (!hash || !Number.isFinite(remaining) || resetAfterMs === null) return;
    const limit = Number(headers.get('x-ratelimit-limit') ?? Number.NaN);
    const windowHeader = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
    const window = Number.isFinite(windowHeader) ? windowHeader : null;
    const resetAt = now() + resetAfterMs + RESET_MARGIN_MS;

    // The first answer names the bucket: its state moves under that name.
    const key = `${hash}:${major}`;
    const provisional = bucketKey(route, major);
    routeBuckets.set(route, hash);
    let state = buckets.get(key);
    if (!state) {
      state = bucket;
      buckets.set(key, state);
    }
    if (provisional !== key && buckets.get(provisional) === bucket) buckets.delete(provisional);

    if (Number.isFinite(limit) && limit > 0) state.limit = limit;
    const sameWindow =
      window !== null && state.window !== null
        ? window === state.window
        : state.resetAt > now() && Math.abs(resetAt - state.resetAt) < 1000;
    const olderWindow = window !== null && state.window !== null && window < state.window;
    if (olderWindow) return;
    if (sameWindow) {
      state.remaining = Math.min(state.remaining, remaining);
      state.resetAt = Math.max(state.resetAt, resetAt);
    } else {
      state.remaining = remaining;
      state.resetAt = resetAt;
      state.window = window;
    }
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
      const bucket = await takeSlot(route, major, signal);
      let reply: HttpJsonReply;
      try {
        await gate.acquire(undefined, signal);
        reply = await requestJson(doFetch, {
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
        recordBucket(route, major, bucket, reply.headers);
      } finally {
        bucket.inFlight -= 1;
        wake(bucket);
      }
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
      throw toDeliveryError(route, reply.status, error, major);
    }
  }

  /** Holds a bucket back until `ms` from now, as if spent. */
  function block(route: string, major: string, ms: number): void {
    const bucket = bucketOf(route, major);
    bucket.remaining = 0;
    bucket.resetAt = Math.max(bucket.resetAt, now() + ms);
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
    if (global) globalUntil = Math.max(globalUntil, now() + waitMs);
    // A 429 without bucket headers still blocks its route, under the name it has so far.
    else block(route, major, waitMs);
    return waitMs;
  }

  function toDeliveryError(
    route: string,
    status: number,
    error: WireError,
    major: string,
  ): DeliveryError {
    const text = error.message ?? `HTTP ${status}`;
    const message = `Discord: ${text}${error.code ? ` (${error.code})` : ''}`;
    switch (error.code) {
      case 50007:
      case 50278:
        return new DeliveryError('permanent', message, undefined, DISCORD_DMS_CLOSED);
      case 10013:
        return new DeliveryError('permanent', message, undefined, DISCORD_UNKNOWN_USER);
      case 50001:
      case 50013:
        return new DeliveryError('permanent', message, undefined, DISCORD_NO_ACCESS);
      case 10003:
        // The DM channel is gone: forget it, so the retry opens the DM again.
        for (const [user, channel] of dmChannels) {
          if (channel !== major) continue;
          dmChannels.delete(user);
          void store?.delete(user).catch(() => undefined);
        }
        return new DeliveryError('transient', message);
      case 40003: {
        // Opening DMs too fast: every opening waits, not just this one.
        const waitMs = Math.ceil(
          typeof error.retry_after === 'number' ? error.retry_after * 1000 : 10_000,
        );
        block(route, major, waitMs);
        return new DeliveryError('rate_limited', message, waitMs);
      }
    }
    if (status === 401) {
      tokenRefused = true;
      return new DeliveryError('permanent', message, undefined, DISCORD_BAD_TOKEN);
    }
    if (status >= 500) return new DeliveryError('transient', message);
    const details = error.code === 50035 ? flattenFormErrors(error.errors) : [];
    const logged = details.length > 0 ? `${message}: ${details.join('; ')}` : message;
    if (status === 400 || status === 413) {
      // On the DM route the only thing sent is the user id: a refusal there is about the user.
      if (route === ROUTE_DM) {
        return new DeliveryError('permanent', logged, undefined, DISCORD_UNKNOWN_USER);
      }
      return new DeliveryError(
        'message',
        logged,
        undefined,
        error.code === 50035 ? DISCORD_MALFORMED : `Discord refused the message: ${text}`,
      );
    }
    if (status === 403) return new DeliveryError('permanent', logged, undefined, DISCORD_NO_ACCESS);
    return new DeliveryError(
      'permanent',
      logged,
      undefined,
      `Discord refused the message: ${text}`,
    );
  }

  async function openDmUncached(userId: string, signal?: AbortSignal): Promise<string> {
    const shared = await store?.get(userId).catch(() => null);
    if (shared) {
      dmChannels.set(userId, shared);
      return shared;
    }
    const channel = await request<{ id?: string }>(
      ROUTE_DM,
      '@me',
      '/users/@me/channels',
      { recipient_id: userId },
      signal,
    );
    if (!channel?.id) throw new DeliveryError('transient', 'Discord: no DM channel in the answer');
    dmChannels.set(userId, channel.id);
    await store?.set(userId, channel.id).catch(() => undefined);
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

    async send(channelId, message: DiscordEmbedMessage, signal, nonce) {
      if (nonce !== undefined && (nonce === '' || nonce.length > DISCORD_NONCE_MAX_LENGTH)) {
        throw new RangeError(
          `A Discord nonce has 1 to ${DISCORD_NONCE_MAX_LENGTH} characters: ${nonce}`,
        );
      }
      const posted = await request<{ id?: string }>(
        ROUTE_MESSAGES,
        channelId,
        `/channels/${encodeURIComponent(channelId)}/messages`,
        {
          ...message,
          // Never ping anyone, whatever the tweet says.
          allowed_mentions: { parse: [] },
          ...(nonce === undefined ? {} : { nonce, enforce_nonce: true }),
        },
        signal,
      );
      if (!posted?.id) throw new DeliveryError('transient', 'Discord: no message in the answer');
      return posted.id;
    },
  };
}
