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
import { BotApiClient, requestJson, type HttpJsonReply } from '../http-json.js';
import { createDiscordRateGate, type RateGate } from '../rate-gate.js';
import { DeliveryError, type DiscordClient, type DiscordEmbedMessage } from '../types.js';
import {
  DISCORD_BAD_TOKEN,
  DISCORD_NOT_SET_UP,
  DISCORD_UNKNOWN_USER,
  discordFailure,
  type DiscordWireError,
} from './discord-errors.js';
import { DiscordRateLimits } from './discord-rate-limits.js';

// The refusal texts and the form-error reader live with the rest of the error rules; they are
// also read from here (the settings module's channel tests, this client's tests).
export {
  DISCORD_BAD_TOKEN,
  DISCORD_DMS_CLOSED,
  DISCORD_MALFORMED,
  DISCORD_NO_ACCESS,
  DISCORD_NOT_SET_UP,
  DISCORD_UNKNOWN_USER,
  flattenFormErrors,
} from './discord-errors.js';

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

/** Discord keeps a nonce for a few minutes; it has at most 25 characters. */
export const DISCORD_NONCE_MAX_LENGTH = 25;

const USER_AGENT = 'DiscordBot (https://github.com/perch, 0.1)';
const SNOWFLAKE = /^[0-9]{5,20}$/;

const ROUTE_DM = 'POST /users/@me/channels';
const ROUTE_MESSAGES = 'POST /channels/:id/messages';

/** The client of one bot token: it owns the DM cache and the rate state. */
export class DiscordApiClient extends BotApiClient implements DiscordClient {
  private readonly maxWaitMs: number;
  private readonly gate: RateGate;
  private readonly store: DmChannelStore | undefined;
  private readonly limits: DiscordRateLimits;
  private readonly dmChannels = new Map<string, string>();
  private readonly pendingDms = new Map<string, Promise<string>>();
  private tokenRefused = false;

  constructor(options: DiscordClientOptions) {
    super(options);
    this.maxWaitMs = options.maxRateLimitWaitMs ?? 10_000;
    const now = options.now ?? Date.now;
    const sleep = options.sleep ?? realSleep;
    this.gate = options.rateGate ?? createDiscordRateGate({ now, sleep });
    this.store = options.dmChannelStore;
    this.limits = new DiscordRateLimits({
      maxWaitMs: this.maxWaitMs,
      maxBucketWaitMs: Math.min(this.maxWaitMs, options.maxBucketWaitMs ?? 1_000),
      requestTimeoutMs: this.timeoutMs,
      now,
      sleep,
    });
  }

  private requireToken(): void {
    if (!this.token) {
      throw new DeliveryError('permanent', DISCORD_NOT_SET_UP, undefined, DISCORD_NOT_SET_UP);
    }
    if (this.tokenRefused) {
      throw new DeliveryError(
        'permanent',
        'Discord: 401 Unauthorized',
        undefined,
        DISCORD_BAD_TOKEN,
      );
    }
  }

  /** Sends one request, waiting out and retrying once a short 429; returns a 2xx body. */
  private async request<T>(
    route: string,
    major: string,
    path: string,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    this.requireToken();
    for (let attempt = 0; ; attempt++) {
      const reply = await this.post(route, major, path, body, signal);
      if (reply.status >= 200 && reply.status < 300) return reply.body as T;
      const error = (reply.body ?? {}) as DiscordWireError;
      if (reply.status === 429 && error.code !== 40003) {
        const waitMs = this.limits.blockAfter429(route, major, reply, error);
        if (attempt === 0 && waitMs <= this.maxWaitMs) continue;
        throw new DeliveryError(
          'rate_limited',
          `Discord: ${error.message ?? 'rate limited'}`,
          waitMs,
        );
      }
      throw this.failure(route, major, reply.status, error);
    }
  }

  /** One POST through the rate limits (its bucket's, then the global gate's). */
  private async post(
    route: string,
    major: string,
    path: string,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<HttpJsonReply> {
    const bucket = await this.limits.takeSlot(route, major, signal);
    try {
      await this.gate.acquire(undefined, signal);
      const reply = await requestJson(this.doFetch, {
        service: 'Discord',
        url: `${this.baseUrl}${path}`,
        method: 'POST',
        headers: {
          authorization: `Bot ${this.token}`,
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
        },
        body,
        timeoutMs: this.timeoutMs,
        signal,
      });
      this.limits.record(route, major, bucket, reply.headers);
      return reply;
    } finally {
      this.limits.release(bucket);
    }
  }

  /** The error of a refusal (discord-errors.ts), after doing what it asks of the client. */
  private failure(
    route: string,
    major: string,
    status: number,
    wire: DiscordWireError,
  ): DeliveryError {
    const { error, effect } = discordFailure(status, wire, route === ROUTE_DM);
    if (effect === 'forget_dm_channel') this.forgetDmChannel(major);
    else if (effect === 'hold_dm_openings') this.limits.block(route, major, error.retryAfterMs!);
    else if (effect === 'token_refused') this.tokenRefused = true;
    return error;
  }

  /** The DM channel is gone: forgotten, so the retry opens the DM again. */
  private forgetDmChannel(channelId: string): void {
    for (const [user, channel] of this.dmChannels) {
      if (channel !== channelId) continue;
      this.dmChannels.delete(user);
      void this.store?.delete(user).catch(() => undefined);
    }
  }

  private async openDmUncached(userId: string, signal?: AbortSignal): Promise<string> {
    const shared = await this.store?.get(userId).catch(() => null);
    if (shared) {
      this.dmChannels.set(userId, shared);
      return shared;
    }
    const channel = await this.request<{ id?: string }>(
      ROUTE_DM,
      '@me',
      '/users/@me/channels',
      { recipient_id: userId },
      signal,
    );
    if (!channel?.id) throw new DeliveryError('transient', 'Discord: no DM channel in the answer');
    this.dmChannels.set(userId, channel.id);
    await this.store?.set(userId, channel.id).catch(() => undefined);
    return channel.id;
  }

  async openDm(userId: string, signal?: AbortSignal): Promise<string> {
    this.requireToken();
    const id = userId.trim();
    if (!SNOWFLAKE.test(id)) {
      throw new DeliveryError(
        'permanent',
        `Discord: not a user id: ${userId}`,
        undefined,
        DISCORD_UNKNOWN_USER,
      );
    }
    const known = this.dmChannels.get(id);
    if (known) return known;
    // Concurrent sends to one user open the DM once.
    let pending = this.pendingDms.get(id);
    if (!pending) {
      pending = this.openDmUncached(id, signal).finally(() => this.pendingDms.delete(id));
      this.pendingDms.set(id, pending);
    }
    return pending;
  }

  async send(
    channelId: string,
    message: DiscordEmbedMessage,
    signal?: AbortSignal,
    nonce?: string,
  ): Promise<string> {
    if (nonce !== undefined && (nonce === '' || nonce.length > DISCORD_NONCE_MAX_LENGTH)) {
      throw new RangeError(
        `A Discord nonce has 1 to ${DISCORD_NONCE_MAX_LENGTH} characters: ${nonce}`,
      );
    }
    const posted = await this.request<{ id?: string }>(
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
  }
}

/** Creates the client. One instance per bot token: it owns the DM cache and the rate state. */
export function createDiscordClient(options: DiscordClientOptions): DiscordClient {
  return new DiscordApiClient(options);
}
