/**
 * A loopback fake of the X API v2 endpoints Perch reads (external-apis.md §1), on
 * 127.0.0.1:0 with node:http, so the real x-api source is tested over real HTTP: headers, status
 * codes, problem bodies, pagination and rate limits behave like X's.
 *
 * Routes: GET /2/users/by/username/:u, GET /2/users/:id/tweets, GET /2/tweets?ids=,
 * GET /2/users/me (403 for the app-only token, as X answers).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SourceTweet } from '../../src/collector/sources/types.js';
import type { XEndpoint } from '../../src/collector/sources/x-api-source.js';

const PROBLEMS = 'https://api.twitter.com/2/problems';
const WINDOW_MS = 15 * 60_000;
/** Per-app limits of a 15-minute window (external-apis.md §1.2, §1.3). */
const DEFAULT_LIMITS: Record<XEndpoint, number> = {
  'users/by/username': 300,
  'users/tweets': 10_000,
  tweets: 3_500,
};
/** The timeline only reaches this many most recent Posts (800 with exclude=replies). */
const DEPTH_LIMIT = 3_200;
const DEPTH_LIMIT_NO_REPLIES = 800;

export interface FakeXUserInput {
  username: string;
  /** Decimal id; generated when left out. */
  id?: string;
  name?: string;
  createdAt?: string;
  protected?: boolean;
  suspended?: boolean;
  followersCount?: number;
  followingCount?: number;
  tweetCount?: number;
  likeCount?: number;
}

export interface FakeXUser {
  id: string;
  username: string;
  name: string;
  createdAt: string;
  protected: boolean;
  suspended: boolean;
  publicMetrics: {
    followers_count: number;
    following_count: number;
    tweet_count: number;
    listed_count: number;
    like_count: number;
  };
}

/** A Post in X's wire format (the fields this fake can return). */
export interface FakeXTweet {
  id: string;
  text: string;
  created_at: string;
  lang?: string;
  conversation_id?: string;
  in_reply_to_user_id?: string;
  public_metrics?: Record<string, number>;
  referenced_tweets?: { type: string; id: string }[];
  entities?: {
    hashtags?: { start: number; end: number; tag: string }[];
    urls?: {
      start: number;
      end: number;
      url: string;
      expanded_url: string;
      display_url: string;
      media_key?: string;
    }[];
  };
  attachments?: { media_keys: string[] };
  /** Media objects of `attachments.media_keys` (served under includes.media). */
  media?: { media_key: string; type: string; url?: string; preview_image_url?: string }[];
}

export interface FakeXRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The Authorization header as received, or null. */
  authorization: string | null;
  endpoint: XEndpoint | null;
  /** The endpoint's remaining budget when the request arrived (after any window reset). */
  remainingBefore: number | null;
  status: number;
  /** Epoch ms (fake's clock). */
  at: number;
}

export interface FakeXServerOptions {
  /** The only bearer token accepted. Default 'test-bearer-token'. */
  bearerToken?: string;
  /** Clock (epoch ms). Default Date.now. */
  now?: () => number;
}

export interface FakeXServer {
  /** http://127.0.0.1:<port>, no trailing slash. */
  baseUrl: string;
  bearerToken: string;
  /** Every request, in arrival order. */
  requests: FakeXRequest[];
  close(): Promise<void>;
  addUser(input: FakeXUserInput): FakeXUser;
  /** Adds Posts in wire format to a user's timeline (by user id). */
  addTweets(userId: string, tweets: FakeXTweet[]): void;
  /** Adds Posts given as SourceTweets (converted to X's wire format, see toWireTweet). */
  addSourceTweets(userId: string, tweets: SourceTweet[]): void;
  setRateLimit(
    endpoint: XEndpoint,
    budget: { limit: number; remaining: number; resetInSeconds: number },
  ): void;
  /** The next `times` requests to `endpoint` answer `status` with X's body for it. */
  failNext(endpoint: XEndpoint, status: number, times?: number): void;
}

interface Window {
  limit: number;
  remaining: number;
  /** Epoch ms, a whole second (x-rate-limit-reset is in seconds). */
  resetAt: number;
}

interface StoredTweet {
  wire: FakeXTweet;
  authorId: string;
  big: bigint;
  createdMs: number;
  isReply: boolean;
  isRetweet: boolean;
}

const MEDIA_PREFIX: Record<string, string> = { photo: '3', video: '7', animated_gif: '16' };

/** Converts a SourceTweet to the X wire format, with entities, media keys and includes. */
export function toWireTweet(tweet: SourceTweet): FakeXTweet {
  const wire: FakeXTweet = { id: tweet.id, text: tweet.text, created_at: tweet.createdAt };
  if (tweet.lang !== null) wire.lang = tweet.lang;
  if (tweet.conversationId !== null) wire.conversation_id = tweet.conversationId;
  if (tweet.inReplyToUserId !== null) wire.in_reply_to_user_id = tweet.inReplyToUserId;
  wire.public_metrics = {
    retweet_count: tweet.retweetCount,
    reply_count: tweet.replyCount,
    like_count: tweet.likeCount,
    quote_count: tweet.quoteCount,
    bookmark_count: 0,
  };
  if (tweet.impressionCount !== null) wire.public_metrics.impression_count = tweet.impressionCount;
  if (tweet.referencedTypes.length > 0) {
    wire.referenced_tweets = tweet.referencedTypes.map((type) => ({
      type,
      id: type === 'replied_to' && tweet.conversationId ? tweet.conversationId : '20',
    }));
  }
  const hashtags = tweet.hashtags.map((tag) => {
    const start = Math.max(0, tweet.text.indexOf(`#${tag}`));
    return { start, end: start + tag.length + 1, tag };
  });
  const urls: NonNullable<NonNullable<FakeXTweet['entities']>['urls']> = tweet.urls.map(
    (url, n) => {
      const start = Math.max(0, tweet.text.indexOf(url));
      return {
        start,
        end: start + 23,
        url: `https://t.co/u${n}${tweet.id.slice(-6)}`,
        expanded_url: url,
        display_url: url.replace(/^https?:\/\//, '').slice(0, 25),
      };
    },
  );
  if (tweet.media.length > 0) {
    wire.media = tweet.media.map((item, n) => ({
      media_key: `${MEDIA_PREFIX[item.type] ?? '3'}_${tweet.id}${n}`,
      type: item.type,
      ...(item.url !== null ? { url: item.url } : {}),
      ...(item.previewUrl !== null ? { preview_image_url: item.previewUrl } : {}),
    }));
    wire.attachments = { media_keys: wire.media.map((m) => m.media_key) };
    // X lists attached media as a t.co url entity too, with the media key.
    urls.push({
      start: tweet.text.length,
      end: tweet.text.length + 23,
      url: `https://t.co/m${tweet.id.slice(-6)}`,
      expanded_url: `https://x.com/i/status/${tweet.id}/photo/1`,
      display_url: 'pic.x.com/media',
      media_key: wire.media[0]!.media_key,
    });
  }
  if (hashtags.length > 0 || urls.length > 0) {
    wire.entities = {
      ...(hashtags.length > 0 ? { hashtags } : {}),
      ...(urls.length > 0 ? { urls } : {}),
    };
  }
  return wire;
}

const problem = (status: number, title: string, detail: string, type = 'about:blank') => ({
  title,
  detail,
  type,
  status,
});

/** X's body for an injected or enforced failure status. */
function failureBody(status: number): Record<string, unknown> {
  switch (status) {
    case 401:
      return problem(401, 'Unauthorized', 'Unauthorized');
    case 402:
      return {
        account_id: '1243608864848629761',
        title: 'CreditsDepleted',
        detail: 'Your enrolled account does not have any credits to fulfill this request.',
        type: `${PROBLEMS}/credits`,
      };
    case 403:
      return problem(403, 'Forbidden', 'Forbidden');
    case 429:
      return problem(429, 'Too Many Requests', 'Too Many Requests');
    default:
      return problem(status, 'Service Unavailable', 'Service Unavailable');
  }
}

const notFoundError = (parameter: string, value: string, detail: string, title: string) => ({
  value,
  detail,
  title,
  resource_type: 'user',
  parameter,
  resource_id: value,
  type: `${PROBLEMS}/resource-not-found`,
});

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeXServer(options: FakeXServerOptions = {}): Promise<FakeXServer> {
  const bearerToken = options.bearerToken ?? 'test-bearer-token';
  const now = options.now ?? Date.now;
  const users = new Map<string, FakeXUser>();
  const usersByName = new Map<string, FakeXUser>();
  const timelines = new Map<string, StoredTweet[]>();
  const tweetsById = new Map<string, StoredTweet>();
  const windows = new Map<XEndpoint, Window>();
  const failures = new Map<XEndpoint, { status: number; times: number }[]>();
  const requests: FakeXRequest[] = [];
  let nextUserId = 1_000_001n;

  function windowOf(endpoint: XEndpoint): Window {
    let w = windows.get(endpoint);
    const at = now();
    if (!w || at >= w.resetAt) {
      const limit = w?.limit ?? DEFAULT_LIMITS[endpoint];
      w = { limit, remaining: limit, resetAt: Math.ceil((at + WINDOW_MS) / 1000) * 1000 };
      windows.set(endpoint, w);
    }
    return w;
  }

  function send(res: http.ServerResponse, status: number, body: unknown, w: Window | null): number {
    const headers: Record<string, string> = {
      'content-type': status >= 400 ? 'application/problem+json' : 'application/json',
    };
    if (w) {
      headers['x-rate-limit-limit'] = String(w.limit);
      headers['x-rate-limit-remaining'] = String(w.remaining);
      headers['x-rate-limit-reset'] = String(w.resetAt / 1000);
    }
    res.writeHead(status, headers);
    res.end(JSON.stringify(body));
    return status;
  }

  const invalid = (message: string, parameters: Record<string, string[]>) => ({
    errors: [{ parameters, message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: `${PROBLEMS}/invalid-request`,
  });

  function fieldList(query: URLSearchParams, ...names: string[]): Set<string> {
    const values = names.flatMap((name) => (query.get(name) ?? '').split(','));
    return new Set(values.filter(Boolean));
  }

  /** Projects a stored Post on the requested fields and collects its media. */
  function render(
    stored: StoredTweet[],
    query: URLSearchParams,
  ): { data: Record<string, unknown>[]; includes?: { media: Record<string, unknown>[] } } {
    const fields = fieldList(query, 'tweet.fields', 'post.fields');
    const mediaFields = fieldList(query, 'media.fields');
    const expand = fieldList(query, 'expansions').has('attachments.media_keys');
    const media: Record<string, unknown>[] = [];
    const data = stored.map(({ wire, authorId }) => {
      const out: Record<string, unknown> = {
        id: wire.id,
        text: wire.text,
        edit_history_tweet_ids: [wire.id],
      };
      const all: Record<string, unknown> = { ...wire, author_id: authorId };
      for (const field of fields) {
        if (field !== 'media' && all[field] !== undefined) out[field] = all[field];
      }
      if (expand) {
        for (const item of wire.media ?? []) {
          const projected: Record<string, unknown> = { media_key: item.media_key, type: item.type };
          for (const field of mediaFields) {
            const value = (item as Record<string, unknown>)[field];
            if (value !== undefined) projected[field] = value;
          }
          media.push(projected);
        }
      }
      return out;
    });
    return media.length > 0 ? { data, includes: { media } } : { data };
  }

  function userLookup(name: string, query: URLSearchParams): [number, unknown] {
    if (!/^[A-Za-z0-9_]{1,15}$/.test(name)) {
      return [400, invalid(`The \`username\` query parameter value [${name}] is not valid`, {})];
    }
    const user = usersByName.get(name.toLowerCase());
    if (!user) {
      const detail = `Could not find user with username: [${name}].`;
      return [200, { errors: [notFoundError('username', name, detail, 'Not Found Error')] }];
    }
    if (user.suspended) {
      const detail = `User has been suspended: [${name}].`;
      return [200, { errors: [notFoundError('username', name, detail, 'Forbidden')] }];
    }
    const fields = fieldList(query, 'user.fields');
    const data: Record<string, unknown> = { id: user.id, name: user.name, username: user.username };
    if (fields.has('created_at')) data.created_at = user.createdAt;
    if (fields.has('protected')) data.protected = user.protected;
    if (fields.has('public_metrics')) data.public_metrics = user.publicMetrics;
    return [200, { data }];
  }

  function userProblem(user: FakeXUser | undefined, id: string): unknown {
    if (!user) {
      const detail = `Could not find user with id: [${id}].`;
      return { errors: [notFoundError('id', id, detail, 'Not Found Error')] };
    }
    if (user.suspended) {
      const detail = `User has been suspended: [${id}].`;
      return { errors: [notFoundError('id', id, detail, 'Forbidden')] };
    }
    if (user.protected) {
      return {
        errors: [
          {
            resource_id: id,
            parameter: 'id',
            resource_type: 'user',
            section: 'data',
            title: 'Authorization Error',
            value: id,
            detail: `Sorry, you are not authorized to see the user with id: [${id}].`,
            type: `${PROBLEMS}/not-authorized-for-resource`,
          },
        ],
      };
    }
    return null;
  }

  function userTimeline(id: string, query: URLSearchParams): [number, unknown] {
    const blocked = userProblem(users.get(id), id);
    if (blocked) return [200, blocked];
    const maxRaw = query.get('max_results');
    const max = maxRaw === null ? 10 : Number(maxRaw);
    if (!Number.isInteger(max) || max < 5 || max > 100) {
      return [
        400,
        invalid(`The \`max_results\` query parameter value [${maxRaw}] is not between 5 and 100`, {
          max_results: [String(maxRaw)],
        }),
      ];
    }
    const time = (name: string): number | null | 'bad' => {
      const value = query.get(name);
      if (value === null) return null;
      const ms = Date.parse(value);
      return Number.isNaN(ms) || ms < Date.UTC(2010, 10, 6) ? 'bad' : ms;
    };
    const start = time('start_time');
    const end = time('end_time');
    if (start === 'bad' || end === 'bad' || (start !== null && end !== null && start >= end)) {
      return [400, invalid('Invalid start_time or end_time', {})];
    }
    const idParam = (name: string): bigint | null | 'bad' => {
      const value = query.get(name);
      if (value === null) return null;
      return /^[0-9]{1,19}$/.test(value) ? BigInt(value) : 'bad';
    };
    const since = idParam('since_id');
    const until = idParam('until_id');
    if (
      since === 'bad' ||
      until === 'bad' ||
      (since !== null && until !== null && since >= until)
    ) {
      return [400, invalid('Invalid since_id or until_id', {})];
    }
    let after: bigint | null = null;
    const token = query.get('pagination_token');
    if (token !== null) {
      const decoded = /^p([0-9]{1,19})$/.exec(Buffer.from(token, 'base64url').toString());
      if (!decoded?.[1]) return [400, invalid('Invalid pagination_token', {})];
      after = BigInt(decoded[1]);
    }
    const exclude = new Set((query.get('exclude') ?? '').split(','));
    const depth = exclude.has('replies') ? DEPTH_LIMIT_NO_REPLIES : DEPTH_LIMIT;
    const reachable = (timelines.get(id) ?? [])
      .filter((t) => !(exclude.has('replies') && t.isReply))
      .filter((t) => !(exclude.has('retweets') && t.isRetweet))
      .slice(0, depth);
    const matching = reachable.filter(
      (t) =>
        (start === null || t.createdMs >= start) &&
        (end === null || t.createdMs < end) &&
        (since === null || t.big > since) &&
        (until === null || t.big < until) &&
        (after === null || t.big < after),
    );
    const page = matching.slice(0, max);
    const meta: Record<string, unknown> = { result_count: page.length };
    if (page.length === 0) return [200, { meta }];
    meta.newest_id = page[0]!.wire.id;
    meta.oldest_id = page[page.length - 1]!.wire.id;
    if (matching.length > max) {
      meta.next_token = Buffer.from(`p${page[page.length - 1]!.wire.id}`).toString('base64url');
    }
    return [200, { ...render(page, query), meta }];
  }

  function tweetLookup(query: URLSearchParams): [number, unknown] {
    const ids = (query.get('ids') ?? '').split(',').filter(Boolean);
    if (ids.length < 1 || ids.length > 100 || ids.some((id) => !/^[0-9]{1,19}$/.test(id))) {
      return [400, invalid('The `ids` query parameter value is not valid', { ids })];
    }
    const found: StoredTweet[] = [];
    const errors: Record<string, unknown>[] = [];
    for (const id of ids) {
      const stored = tweetsById.get(id);
      const author = stored ? users.get(stored.authorId) : undefined;
      if (stored && author && !author.protected && !author.suspended) found.push(stored);
      else {
        errors.push({
          value: id,
          detail: `Could not find tweet with ids: [${id}].`,
          title: 'Not Found Error',
          resource_type: 'tweet',
          parameter: 'ids',
          resource_id: id,
          type: `${PROBLEMS}/resource-not-found`,
        });
      }
    }
    const body: Record<string, unknown> = found.length > 0 ? render(found, query) : {};
    if (errors.length > 0) body.errors = errors;
    return [200, body];
  }

  function endpointOf(path: string): XEndpoint | null {
    if (/^\/2\/users\/by\/username\/[^/]+$/.test(path)) return 'users/by/username';
    if (/^\/2\/users\/[^/]+\/tweets$/.test(path)) return 'users/tweets';
    if (path === '/2/tweets') return 'tweets';
    return null;
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const endpoint = endpointOf(path);
    const entry: FakeXRequest = {
      method: req.method ?? 'GET',
      path,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization ?? null,
      endpoint,
      remainingBefore: null,
      status: 0,
      at: now(),
    };
    requests.push(entry);
    const w = endpoint ? windowOf(endpoint) : null;
    entry.remainingBefore = w ? w.remaining : null;

    if (req.method !== 'GET') {
      entry.status = send(res, 405, problem(405, 'Method Not Allowed', 'Method Not Allowed'), w);
      return;
    }
    if (req.headers.authorization !== `Bearer ${bearerToken}`) {
      entry.status = send(res, 401, failureBody(401), w);
      return;
    }
    if (path === '/2/users/me') {
      const detail =
        'Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].';
      entry.status = send(
        res,
        403,
        problem(
          403,
          'Unsupported Authentication',
          detail,
          `${PROBLEMS}/unsupported-authentication`,
        ),
        null,
      );
      return;
    }
    if (!endpoint || !w) {
      entry.status = send(res, 404, problem(404, 'Not Found', `No route for ${path}`), null);
      return;
    }
    const queued = failures.get(endpoint)?.[0];
    if (queued) {
      queued.times -= 1;
      if (queued.times <= 0) failures.get(endpoint)?.shift();
      entry.status = send(res, queued.status, failureBody(queued.status), w);
      return;
    }
    if (w.remaining <= 0) {
      entry.status = send(res, 429, failureBody(429), w);
      return;
    }
    w.remaining -= 1;
    let result: [number, unknown];
    if (endpoint === 'users/by/username') {
      result = userLookup(decodeURIComponent(path.split('/').pop() ?? ''), url.searchParams);
    } else if (endpoint === 'users/tweets') {
      result = userTimeline(decodeURIComponent(path.split('/')[3] ?? ''), url.searchParams);
    } else {
      result = tweetLookup(url.searchParams);
    }
    entry.status = send(res, result[0], result[1], w);
  }

  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeXServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    bearerToken,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
    addUser(input) {
      const id = input.id ?? String(nextUserId++);
      const user: FakeXUser = {
        id,
        username: input.username,
        name: input.name ?? input.username,
        createdAt: input.createdAt ?? '2015-06-01T12:00:00.000Z',
        protected: input.protected ?? false,
        suspended: input.suspended ?? false,
        publicMetrics: {
          followers_count: input.followersCount ?? 100,
          following_count: input.followingCount ?? 50,
          tweet_count: input.tweetCount ?? 0,
          listed_count: 1,
          like_count: input.likeCount ?? 0,
        },
      };
      users.set(id, user);
      usersByName.set(input.username.toLowerCase(), user);
      return user;
    },
    addTweets(userId, tweets) {
      const list = timelines.get(userId) ?? [];
      for (const wire of tweets) {
        const stored: StoredTweet = {
          wire,
          authorId: userId,
          big: BigInt(wire.id),
          createdMs: Date.parse(wire.created_at),
          isReply: (wire.referenced_tweets ?? []).some((r) => r.type === 'replied_to'),
          isRetweet: (wire.referenced_tweets ?? []).some((r) => r.type === 'retweeted'),
        };
        list.push(stored);
        tweetsById.set(wire.id, stored);
      }
      // Newest first, like X.
      list.sort((a, b) => (a.big > b.big ? -1 : a.big < b.big ? 1 : 0));
      timelines.set(userId, list);
    },
    addSourceTweets(userId, tweets) {
      fake.addTweets(userId, tweets.map(toWireTweet));
    },
    setRateLimit(endpoint, budget) {
      windows.set(endpoint, {
        limit: budget.limit,
        remaining: budget.remaining,
        resetAt: Math.ceil((now() + budget.resetInSeconds * 1000) / 1000) * 1000,
      });
    },
    failNext(endpoint, status, times = 1) {
      const list = failures.get(endpoint) ?? [];
      list.push({ status, times });
      failures.set(endpoint, list);
    },
  };
  return fake;
}
