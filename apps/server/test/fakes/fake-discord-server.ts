/**
 * A loopback fake of the Discord API v10 routes Perch uses for DMs (docs/spec-notes.md, Fakes),
 * on 127.0.0.1:0 with node:http, so the real client is tested over real HTTP.
 *
 * - `POST /api/v10/users/@me/channels` opens (or returns the existing) DM channel;
 *   `POST /api/v10/channels/:id/messages` posts to it. Both check `Authorization: Bot <token>`
 *   (401 otherwise) and a JSON content type, and always answer `application/json`.
 * - Messages are checked against Discord's limits (content 2000; 10 embeds; title 256,
 *   description 4096, 25 fields of 256/1024, footer 2048, author name 256, 6000 in all): a
 *   violation is a 400 with code 50035 and the error tree Discord sends.
 * - Rate limits: every routed answer carries `X-RateLimit-*` headers of its bucket (DM opening;
 *   messages per channel); a request into an exhausted bucket gets a 429 with `retry_after`,
 *   `Retry-After` and `X-RateLimit-Scope: user`. More than `globalPerSecond` requests in a
 *   second get the global 429.
 * - A message with a `nonce` and `enforce_nonce: true` is posted once: the same nonce in the same
 *   channel within `nonceWindowMs` is answered 200 with the message posted the first time, and
 *   nothing new is stored. A nonce has at most 25 characters (50035 otherwise).
 * - Knobs: users who are unknown (10013) or do not accept DMs (50007 / 50278), forced 429s of
 *   each scope, 5xx, 40003 on DM opening, deleted channels (10003), image URLs refused with
 *   50035, and an outage of the whole server (502 pages or reset connections).
 */
import http from 'node:http';
import { listenOnLoopback, takeScripted } from './loopback.js';

export type FakeDiscordUserState = 'ok' | 'unknown' | 'dms_closed' | 'no_mutual_guild';
export type FakeDiscordRoute = 'dm' | 'messages';

export interface FakeDiscordMessage {
  id: string;
  channelId: string;
  /** The DM's recipient. */
  userId: string;
  content: string | null;
  embeds: Record<string, unknown>[];
  allowedMentions: unknown;
  /** The nonce it was sent with, if any. */
  nonce: string | null;
  at: number;
}

export interface FakeDiscordRequest {
  method: string;
  path: string;
  status: number;
  /** Discord's JSON error code, when the answer was an error. */
  code: number | null;
  authorization: string | null;
  userAgent: string | null;
  contentType: string | null;
  at: number;
}

export interface FakeDiscordServerOptions {
  /** Default 'fake-discord-bot-token'. */
  token?: string;
  now?: () => number;
  /** Requests a second over all routes before the global 429. Default 50. */
  globalPerSecond?: number;
  /**
   * Slack given to the global window: requests that leave a paced client a second apart can
   * arrive closer together (new connections are slow to open). The check is there to catch a
   * client that does not pace, not to meter one to the millisecond. Default 200 ms.
   */
  globalToleranceMs?: number;
  /** How long an enforced nonce is remembered per channel. Default 5 minutes. */
  nonceWindowMs?: number;
}

/** How a server that is down answers: a proxy's 502 page, or a connection reset. */
export type FakeDiscordOutage = 'bad_gateway' | 'reset';

export interface FakeDiscordServer {
  /** Like https://discord.com/api/v10: the client's DISCORD_API_BASE_URL. */
  baseUrl: string;
  token: string;
  messages: FakeDiscordMessage[];
  requests: FakeDiscordRequest[];
  messagesTo(userId: string): FakeDiscordMessage[];
  /** Users are 'ok' unless set otherwise. */
  setUser(userId: string, state: FakeDiscordUserState): void;
  /** The DM channel opened for a user, if any. */
  dmChannelOf(userId: string): string | undefined;
  /** Deletes a channel: posting to it then answers 10003 Unknown Channel. */
  deleteChannel(channelId: string): void;
  /** Sets a route's bucket size and window (defaults: dm 10 per 10 s, messages 5 per 5 s). */
  setBucket(route: FakeDiscordRoute, limit: number, resetAfterSeconds: number): void;
  /** The next `times` routed requests get a 429 of this scope and retry_after (seconds). */
  rateLimitNext(
    times: number,
    options?: { retryAfter?: number; scope?: 'user' | 'global' | 'shared' },
  ): void;
  /** The next `times` routed requests fail with `status` (500 as JSON, others as a proxy page). */
  failNext(times: number, status?: number): void;
  /** The next `times` DM openings answer 40003 (opening DMs too fast). */
  dmTooFastNext(times: number): void;
  /**
   * A message with an embed whose image (or thumbnail) has this URL answers 400 with code
   * 50035 and `embeds.<n>.image.url` in the error tree: a message-level refusal.
   */
  refuseImageUrl(url: string): void;
  /**
   * Takes the whole server down (every request answers a 502 proxy page, or has its connection
   * reset) or brings it back.
   */
  setDown(down: boolean, how?: FakeDiscordOutage): void;
  /** 429 answers given so far, of every scope. */
  readonly rateLimited: number;
  close(): Promise<void>;
}

const BUCKET_HASHES: Record<FakeDiscordRoute, string> = {
  dm: 'a1b2c3d4e5f6dm',
  messages: 'f6e5d4c3b2a1msg',
};

/** Characters as Discord counts them (code points). */
const length = (value: unknown) => (typeof value === 'string' ? [...value].length : 0);

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.message));
  }
}

const maxLength = (limit: number) => ({
  _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${limit} or fewer in length.` }],
});

/** Discord's checks of a message body: the 50035 error tree, or null when it is fine. */
export function discordMessageErrors(
  body: Record<string, unknown>,
): Record<string, unknown> | null {
  const errors: Record<string, unknown> = {};
  if (body.content !== undefined && body.content !== null) {
    if (typeof body.content !== 'string') {
      errors.content = { _errors: [{ code: 'BASE_TYPE_STRING', message: 'Must be a string.' }] };
    } else if (length(body.content) > 2000) errors.content = maxLength(2000);
  }
  const embeds = body.embeds;
  if (embeds !== undefined) {
    if (!Array.isArray(embeds)) {
      errors.embeds = { _errors: [{ code: 'BASE_TYPE_ARRAY', message: 'Must be an array.' }] };
    } else if (embeds.length > 10) {
      errors.embeds = maxLength(10);
    } else {
      const tree: Record<string, unknown> = {};
      let total = 0;
      embeds.forEach((raw: unknown, index) => {
        const embed = (raw ?? {}) as Record<string, unknown>;
        const at: Record<string, unknown> = {};
        const check = (value: unknown, limit: number, path: string[]) => {
          total += length(value);
          if (length(value) <= limit) return;
          let node = at;
          for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
          node[path[path.length - 1]!] = maxLength(limit);
        };
        const author = (embed.author ?? {}) as Record<string, unknown>;
        const footer = (embed.footer ?? {}) as Record<string, unknown>;
        check(embed.title, 256, ['title']);
        check(embed.description, 4096, ['description']);
        check(author.name, 256, ['author', 'name']);
        check(footer.text, 2048, ['footer', 'text']);
        const fields = Array.isArray(embed.fields)
          ? (embed.fields as Record<string, unknown>[])
          : [];
        if (fields.length > 25) at.fields = maxLength(25);
        fields.forEach((field, n) => {
          check(field.name, 256, ['fields', String(n), 'name']);
          check(field.value, 1024, ['fields', String(n), 'value']);
        });
        if (embed.url !== undefined && !/^https?:\/\/\S+$/.test(String(embed.url))) {
          at.url = {
            _errors: [{ code: 'URL_TYPE_INVALID_URL', message: 'Not a well formed URL.' }],
          };
        }
        if (Object.keys(at).length > 0) tree[String(index)] = at;
      });
      if (total > 6000) {
        errors.embeds = {
          ...tree,
          _errors: [
            { code: 'MAX_EMBED_SIZE_EXCEEDED', message: 'Embed size exceeds maximum size of 6000' },
          ],
        };
      } else if (Object.keys(tree).length > 0) errors.embeds = tree;
    }
  }
  return Object.keys(errors).length > 0 ? errors : null;
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeDiscordServer(
  options: FakeDiscordServerOptions = {},
): Promise<FakeDiscordServer> {
  const token = options.token ?? 'fake-discord-bot-token';
  const now = options.now ?? Date.now;
  const globalPerSecond = options.globalPerSecond ?? 50;
  const globalWindowMs = 1000 - (options.globalToleranceMs ?? 200);
  const nonceWindowMs = options.nonceWindowMs ?? 5 * 60_000;
  /** `${channel}:${nonce}` -> the message first posted with it. */
  const nonces = new Map<string, FakeDiscordMessage>();
  const refusedImages = new Set<string>();
  let outage: FakeDiscordOutage | null = null;
  let rateLimited = 0;
  const messages: FakeDiscordMessage[] = [];
  const requests: FakeDiscordRequest[] = [];
  const users = new Map<string, FakeDiscordUserState>();
  const dmByUser = new Map<string, string>();
  const userByChannel = new Map<string, string>();
  const bucketConfig: Record<FakeDiscordRoute, { limit: number; resetAfterMs: number }> = {
    dm: { limit: 10, resetAfterMs: 10_000 },
    messages: { limit: 5, resetAfterMs: 5_000 },
  };
  const buckets = new Map<string, { remaining: number; resetAt: number }>();
  const recent: number[] = [];
  const failures: { status: number; times: number }[] = [];
  const rateLimits: { retryAfter: number; scope: 'user' | 'global' | 'shared'; times: number }[] =
    [];
  let dmTooFast = 0;
  let nextId = 1_300_000_000_000_000_000n;
  const snowflake = () => String(nextId++);

  const error = (status: number, code: number, message: string, extra = {}) =>
    new ApiError(status, { message, code, ...extra });

  /** The bucket of a request, refilled when its window is over. */
  function bucketOf(route: FakeDiscordRoute, major: string) {
    const key = `${route}:${major}`;
    const at = now();
    let bucket = buckets.get(key);
    if (!bucket || at >= bucket.resetAt) {
      bucket = {
        remaining: bucketConfig[route].limit,
        resetAt: at + bucketConfig[route].resetAfterMs,
      };
      buckets.set(key, bucket);
    }
    return bucket;
  }

  function bucketHeaders(route: FakeDiscordRoute, bucket: { remaining: number; resetAt: number }) {
    const resetAfter = Math.max(0, bucket.resetAt - now()) / 1000;
    return {
      'x-ratelimit-limit': String(bucketConfig[route].limit),
      'x-ratelimit-remaining': String(bucket.remaining),
      'x-ratelimit-reset': (bucket.resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-bucket': BUCKET_HASHES[route],
    };
  }

  function globalLimited(retryAfter: number): ApiError {
    return new ApiError(
      429,
      { message: 'You are being rate limited.', retry_after: retryAfter, global: true },
      {
        'retry-after': String(Math.ceil(retryAfter)),
        'x-ratelimit-global': 'true',
        'x-ratelimit-scope': 'global',
      },
    );
  }

  function openDm(body: Record<string, unknown>): Record<string, unknown> {
    const userId = String(body.recipient_id ?? '');
    if (!/^[0-9]{5,20}$/.test(userId)) {
      throw error(400, 50035, 'Invalid Form Body', {
        errors: {
          recipient_id: {
            _errors: [
              { code: 'NUMBER_TYPE_COERCE', message: `Value "${userId}" is not snowflake.` },
            ],
          },
        },
      });
    }
    if (dmTooFast > 0) {
      dmTooFast -= 1;
      throw error(400, 40003, 'You are opening direct messages too fast.');
    }
    if (users.get(userId) === 'unknown') throw error(404, 10013, 'Unknown User');
    let channelId = dmByUser.get(userId);
    if (!channelId) {
      channelId = snowflake();
      dmByUser.set(userId, channelId);
      userByChannel.set(channelId, userId);
    }
    return {
      id: channelId,
      type: 1,
      last_message_id: null,
      flags: 0,
      recipients: [
        { id: userId, username: `user${userId.slice(-4)}`, discriminator: '0', avatar: null },
      ],
    };
  }

  function postMessage(channelId: string, body: Record<string, unknown>): Record<string, unknown> {
    const userId = userByChannel.get(channelId);
    if (!userId) throw error(404, 10003, 'Unknown Channel');
    const state = users.get(userId) ?? 'ok';
    if (state === 'dms_closed') throw error(403, 50007, 'Cannot send messages to this user');
    if (state === 'no_mutual_guild') {
      throw error(403, 50278, 'Cannot send messages to this user due to having no mutual guilds');
    }
    const embeds = Array.isArray(body.embeds) ? (body.embeds as Record<string, unknown>[]) : [];
    const content = typeof body.content === 'string' ? body.content : null;
    if ((content === null || content === '') && embeds.length === 0) {
      throw error(400, 50006, 'Cannot send an empty message');
    }
    const errors = discordMessageErrors(body) ?? refusedImageErrors(embeds);
    if (errors) throw error(400, 50035, 'Invalid Form Body', { errors });
    const nonce = nonceOf(body.nonce);
    const nonceKey = nonce !== null && body.enforce_nonce === true ? `${channelId}:${nonce}` : null;
    const earlier = nonceKey === null ? undefined : nonces.get(nonceKey);
    if (earlier && now() - earlier.at < nonceWindowMs) return wireMessage(earlier);
    const message: FakeDiscordMessage = {
      id: snowflake(),
      channelId,
      userId,
      content,
      embeds,
      allowedMentions: body.allowed_mentions,
      nonce,
      at: now(),
    };
    messages.push(message);
    if (nonceKey !== null) nonces.set(nonceKey, message);
    return wireMessage(message);
  }

  /** A nonce as Discord takes it (an integer or a string of at most 25 characters), or null. */
  function nonceOf(value: unknown): string | null {
    if (value === undefined || value === null) return null;
    if ((typeof value === 'string' && value.length <= 25) || Number.isSafeInteger(value)) {
      return String(value);
    }
    throw error(400, 50035, 'Invalid Form Body', {
      errors: {
        nonce: {
          _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 25 or fewer in length.' }],
        },
      },
    });
  }

  /** The 50035 tree for embeds whose image or thumbnail URL was refused, or null. */
  function refusedImageErrors(embeds: Record<string, unknown>[]): Record<string, unknown> | null {
    const tree: Record<string, unknown> = {};
    embeds.forEach((embed, index) => {
      const at: Record<string, unknown> = {};
      for (const field of ['image', 'thumbnail']) {
        const url = (embed[field] as { url?: unknown } | undefined)?.url;
        if (typeof url === 'string' && refusedImages.has(url)) {
          at[field] = {
            url: {
              _errors: [
                {
                  code: 'URL_TYPE_INVALID_URL',
                  message: 'Could not interpret "url" as a media URL.',
                },
              ],
            },
          };
        }
      }
      if (Object.keys(at).length > 0) tree[String(index)] = at;
    });
    return Object.keys(tree).length > 0 ? { embeds: tree } : null;
  }

  function wireMessage(message: FakeDiscordMessage): Record<string, unknown> {
    const { channelId, content, embeds } = message;
    return {
      id: message.id,
      type: 0,
      channel_id: channelId,
      content: content ?? '',
      timestamp: new Date(message.at).toISOString().replace('Z', '000+00:00'),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      attachments: [],
      embeds: embeds.map((embed) => ({ type: 'rich', ...embed })),
      pinned: false,
      flags: 0,
      author: { id: '7000000000000000001', username: 'perch', bot: true, discriminator: '0' },
      ...(message.nonce === null ? {} : { nonce: message.nonce }),
    };
  }

  function routeOf(
    method: string,
    path: string,
  ): { route: FakeDiscordRoute; major: string } | null {
    if (method !== 'POST') return null;
    if (path === '/api/v10/users/@me/channels') return { route: 'dm', major: '@me' };
    const match = /^\/api\/v10\/channels\/([0-9]+)\/messages$/.exec(path);
    return match ? { route: 'messages', major: match[1]! } : null;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = decodeURIComponent(url.pathname);
    const entry: FakeDiscordRequest = {
      method: req.method ?? 'GET',
      path,
      status: 0,
      code: null,
      authorization: req.headers.authorization ?? null,
      userAgent: req.headers['user-agent'] ?? null,
      contentType: req.headers['content-type'] ?? null,
      at: now(),
    };
    requests.push(entry);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');

    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      if (status === 429) rateLimited += 1;
      const code = (body as { code?: unknown } | null)?.code;
      entry.code = status >= 400 && typeof code === 'number' ? code : null;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };

    if (outage === 'reset') {
      res.socket?.destroy();
      return;
    }
    if (outage === 'bad_gateway') {
      entry.status = 502;
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body>error code: 502</body></html>');
      return;
    }

    let headers: Record<string, string> = {};
    try {
      if (req.headers.authorization !== `Bot ${token}`) {
        throw error(401, 0, '401: Unauthorized');
      }
      const routed = routeOf(entry.method, path);
      if (!routed) throw error(404, 0, '404: Not Found');

      const at = now();
      while (recent.length > 0 && recent[0]! <= at - globalWindowMs) recent.shift();
      if (recent.length >= globalPerSecond) {
        throw globalLimited(Math.max(0.001, (recent[0]! + globalWindowMs - at) / 1000));
      }
      recent.push(at);

      const failure = takeScripted(failures);
      if (failure) {
        if (failure.status === 500) throw error(500, 0, '500: Internal Server Error');
        entry.status = failure.status;
        res.writeHead(failure.status, { 'content-type': 'text/html' });
        res.end(`<html><body>error code: ${failure.status}</body></html>`);
        return;
      }
      const forced = takeScripted(rateLimits);
      if (forced?.scope === 'global') throw globalLimited(forced.retryAfter);

      const bucket = bucketOf(routed.route, routed.major);
      if (forced || bucket.remaining <= 0) {
        const retryAfter = forced?.retryAfter ?? (bucket.resetAt - at) / 1000;
        const scope = forced?.scope ?? 'user';
        if (forced) {
          bucket.remaining = 0;
          bucket.resetAt = at + retryAfter * 1000;
        }
        throw new ApiError(
          429,
          {
            message:
              scope === 'shared'
                ? 'The resource is being rate limited.'
                : 'You are being rate limited.',
            retry_after: Number(retryAfter.toFixed(3)),
            global: false,
          },
          {
            ...bucketHeaders(routed.route, bucket),
            'retry-after': String(Math.ceil(retryAfter)),
            'x-ratelimit-scope': scope,
          },
        );
      }
      bucket.remaining -= 1;
      headers = bucketHeaders(routed.route, bucket);

      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        throw error(400, 50035, 'Invalid Form Body', {
          errors: {
            _errors: [
              {
                code: 'CONTENT_TYPE_INVALID',
                message: 'Expected "Content-Type" to be application/json.',
              },
            ],
          },
        });
      }
      let body: unknown;
      try {
        body = JSON.parse(raw === '' ? '{}' : raw);
      } catch {
        throw error(400, 50109, 'The request body contains invalid JSON.');
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw error(400, 50035, 'Invalid Form Body');
      }
      const result =
        routed.route === 'dm'
          ? openDm(body as Record<string, unknown>)
          : postMessage(routed.major, body as Record<string, unknown>);
      reply(200, result, headers);
    } catch (caught) {
      if (!(caught instanceof ApiError)) throw caught;
      reply(caught.status, caught.body, { ...headers, ...caught.headers });
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((caught: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: String(caught), code: 0 }));
    });
  });
  const origin = await listenOnLoopback(server);

  return {
    baseUrl: `${origin}/api/v10`,
    token,
    messages,
    requests,
    messagesTo: (userId) => messages.filter((m) => m.userId === userId),
    setUser: (userId, state) => {
      users.set(userId, state);
    },
    dmChannelOf: (userId) => dmByUser.get(userId),
    deleteChannel: (channelId) => {
      const userId = userByChannel.get(channelId);
      userByChannel.delete(channelId);
      if (userId !== undefined && dmByUser.get(userId) === channelId) dmByUser.delete(userId);
    },
    setBucket: (route, limit, resetAfterSeconds) => {
      bucketConfig[route] = { limit, resetAfterMs: resetAfterSeconds * 1000 };
      for (const key of buckets.keys()) if (key.startsWith(`${route}:`)) buckets.delete(key);
    },
    rateLimitNext: (times, { retryAfter = 1.5, scope = 'user' } = {}) => {
      rateLimits.push({ retryAfter, scope, times });
    },
    failNext: (times, status = 502) => {
      failures.push({ status, times });
    },
    dmTooFastNext: (times) => {
      dmTooFast += times;
    },
    refuseImageUrl: (url) => {
      refusedImages.add(url);
    },
    setDown: (down, how = 'bad_gateway') => {
      outage = down ? how : null;
    },
    get rateLimited() {
      return rateLimited;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((caught) => (caught ? reject(caught) : resolve()));
      }),
  };
}
