/**
 * A loopback fake of the X API v2 endpoints Perch reads (external-apis.md §1), on
 * 127.0.0.1:0 with node:http, so the real x-api source is tested over real HTTP: headers, status
 * codes, problem bodies, pagination and rate limits behave like X's.
 *
 * Routes: GET /2/users/by/username/:u, GET /2/users/:id/tweets, GET /2/tweets?ids=,
 * GET /2/users/me (the user of an OAuth 2.0 user token; 403 for the app-only token, as X
 * answers), and OAuth 2.0 with PKCE (§1.1): GET /i/oauth2/authorize (redirects straight back
 * with a code, as if the user consented), POST /2/oauth2/token (authorization_code with the
 * S256/plain verifier check, refresh_token with rotation), POST /2/oauth2/revoke.
 */
import { createHash, randomBytes } from 'node:crypto';
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
  /** The form fields of a POST to the OAuth endpoints. */
  form?: Record<string, string>;
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
  /** The OAuth 2.0 client the fake knows. Default 'test-client-id'. */
  clientId?: string;
  /**
   * Makes the client confidential: the token and revoke endpoints then require
   * `Authorization: Basic base64(client_id:client_secret)`. Unset = public client (client_id in
   * the form).
   */
  clientSecret?: string;
  /** Lifetime of user access tokens. Default 7200 (X: 2 h). */
  accessTokenTtlSeconds?: number;
}

export interface FakeXAuthorizeParams {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  codeChallengeMethod?: 'S256' | 'plain';
  /** Space-separated. Default 'tweet.read users.read offline.access'. */
  scope?: string;
  /** The X user (id) who consents. */
  userId: string;
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
  /** The OAuth 2.0 client id the fake accepts. */
  clientId: string;
  /** Issues an authorization code the way X's consent page does (valid 30 s, once). */
  authorize(params: FakeXAuthorizeParams): string;
  /**
   * Who consents on GET /i/oauth2/authorize (a user id); null: the user cancels, and the page
   * redirects back with error=access_denied.
   */
  setAuthorizingUser(userId: string | null): void;
  /**
   * The next `times` token requests answer `status`: a 4xx with X's OAuth body
   * `{error, error_description}` (error default 'invalid_request'), a 5xx with a problem body.
   */
  failNextToken(status: number, error?: string, times?: number): void;
  /** Revokes every token of an X user, as removing the app in X's settings does. */
  revokeUserTokens(userId: string): void;
  /** True while an access or refresh token is live. */
  isTokenActive(token: string): boolean;
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
  // X escapes &, < and > in tweet text as HTML entities.
  const text = tweet.text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const wire: FakeXTweet = { id: tweet.id, text, created_at: tweet.createdAt };
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
  const oauth = fakeOAuth({
    clientId: options.clientId ?? 'test-client-id',
    clientSecret: options.clientSecret ?? null,
    accessTokenTtlMs: (options.accessTokenTtlSeconds ?? 7200) * 1000,
    now,
    userExists: (id) => users.has(id),
  });

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

  function send(
    res: http.ServerResponse,
    status: number,
    body: unknown,
    w: Window | null,
    /** OAuth errors ({error, error_description}) are plain JSON, not problem documents. */
    plainJson = false,
  ): number {
    const headers: Record<string, string> = {
      'content-type': status >= 400 && !plainJson ? 'application/problem+json' : 'application/json',
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

    if (req.method === 'GET' && path === '/i/oauth2/authorize') {
      const [status, headers, body] = oauth.authorizePage(url.searchParams);
      res.writeHead(status, headers);
      res.end(body);
      entry.status = status;
      return;
    }
    if (req.method === 'POST' && (path === '/2/oauth2/token' || path === '/2/oauth2/revoke')) {
      readForm(req)
        .then((form) => {
          entry.form = form ?? undefined;
          const [status, body] =
            path === '/2/oauth2/token'
              ? oauth.token(req.headers, form)
              : oauth.revoke(req.headers, form);
          entry.status = send(res, status, body, null, status >= 400 && 'error' in body);
        })
        .catch(() => {
          entry.status = send(res, 500, failureBody(500), null);
        });
      return;
    }
    if (req.method === 'GET' && path === '/2/users/me') {
      // A user token answers here; the app-only token and unknown ones go on to the checks below.
      const result = oauth.me(req.headers.authorization);
      const user = result?.userId ? users.get(result.userId) : undefined;
      if (result) {
        entry.status = user
          ? send(
              res,
              200,
              { data: { id: user.id, name: user.name, username: user.username } },
              null,
            )
          : send(res, result.status, failureBody(result.status), null);
        return;
      }
    }

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
    clientId: oauth.clientId,
    authorize: (params) => oauth.authorize(params),
    setAuthorizingUser: (userId) => oauth.setAuthorizingUser(userId),
    failNextToken: (status, error = 'invalid_request', times = 1) =>
      oauth.failNextToken(status, error, times),
    revokeUserTokens: (userId) => oauth.revokeUserTokens(userId),
    isTokenActive: (token) => oauth.isTokenActive(token),
  };
  return fake;
}

/** The fields of an application/x-www-form-urlencoded body, or null for another content type. */
async function readForm(req: http.IncomingMessage): Promise<Record<string, string> | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) return null;
    chunks.push(chunk as Buffer);
  }
  const type = String(req.headers['content-type'] ?? '');
  if (!type.startsWith('application/x-www-form-urlencoded')) return null;
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

interface FakeGrant {
  userId: string;
  scope: string[];
}

interface FakeCode extends FakeGrant {
  redirectUri: string;
  challenge: string;
  method: 'S256' | 'plain';
  expiresAt: number;
}

interface FakeOAuthOptions {
  clientId: string;
  clientSecret: string | null;
  accessTokenTtlMs: number;
  now: () => number;
  userExists(userId: string): boolean;
}

/** X's auth code lives 30 s (external-apis.md §1.1). */
const CODE_TTL_MS = 30_000;
const DEFAULT_SCOPE = 'tweet.read users.read offline.access';
/** X's answer for a bad, used or revoked code or token (§1.1). */
const INVALID_TOKEN = 'Value passed for the token was invalid.';

const oauthError = (error: string, description: string) => ({
  error,
  error_description: description,
});

/** The OAuth 2.0 side of the fake: consent, codes, tokens with rotation, revocation. */
function fakeOAuth(options: FakeOAuthOptions) {
  const { clientId, clientSecret, now } = options;
  const codes = new Map<string, FakeCode>();
  const accessTokens = new Map<string, FakeGrant & { expiresAt: number }>();
  const refreshTokens = new Map<string, FakeGrant>();
  const tokenFailures: { status: number; error: string; times: number }[] = [];
  let authorizingUser: string | null | undefined;

  const token = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

  function issueCode(grant: FakeGrant, redirectUri: string, challenge: string, method: string) {
    const code = token('code-');
    codes.set(code, {
      ...grant,
      redirectUri,
      challenge,
      method: method === 'S256' ? 'S256' : 'plain',
      expiresAt: now() + CODE_TTL_MS,
    });
    return code;
  }

  function issueTokens(grant: FakeGrant): Record<string, unknown> {
    const accessToken = token('at-');
    accessTokens.set(accessToken, { ...grant, expiresAt: now() + options.accessTokenTtlMs });
    const body: Record<string, unknown> = {
      token_type: 'bearer',
      expires_in: Math.round(options.accessTokenTtlMs / 1000),
      access_token: accessToken,
      scope: grant.scope.join(' '),
    };
    // A refresh token only with offline.access, as at X.
    if (grant.scope.includes('offline.access')) {
      const refreshToken = token('rt-');
      refreshTokens.set(refreshToken, { ...grant });
      body.refresh_token = refreshToken;
    }
    return body;
  }

  /** Client authentication of the token and revoke endpoints; an error answer, or null. */
  function clientProblem(
    headers: http.IncomingHttpHeaders,
    form: Record<string, string>,
  ): [number, Record<string, unknown>] | null {
    const auth = headers.authorization;
    if (clientSecret !== null) {
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (auth !== expected) {
        return [401, oauthError('unauthorized_client', 'Missing valid authorization header')];
      }
      if (form.client_id !== undefined && form.client_id !== clientId) {
        return [400, oauthError('invalid_request', 'Value passed for client_id was invalid.')];
      }
      return null;
    }
    if (form.client_id === undefined) {
      return [400, oauthError('invalid_request', 'Missing required parameter [client_id].')];
    }
    if (form.client_id !== clientId) {
      return [400, oauthError('invalid_request', 'Value passed for client_id was invalid.')];
    }
    return null;
  }

  const missing = (name: string): [number, Record<string, unknown>] => [
    400,
    oauthError('invalid_request', `Missing required parameter [${name}].`),
  ];

  function codeGrant(form: Record<string, string>): [number, Record<string, unknown>] {
    for (const name of ['code', 'redirect_uri', 'code_verifier']) {
      if (!form[name]) return missing(name);
    }
    const issued = codes.get(form.code!);
    // One use only, whatever the outcome.
    codes.delete(form.code!);
    if (!issued || issued.expiresAt <= now() || issued.redirectUri !== form.redirect_uri) {
      return [400, oauthError('invalid_request', INVALID_TOKEN)];
    }
    const verifier = form.code_verifier!;
    const derived =
      issued.method === 'S256'
        ? createHash('sha256').update(verifier).digest('base64url')
        : verifier;
    if (derived !== issued.challenge) {
      return [400, oauthError('invalid_request', INVALID_TOKEN)];
    }
    return [200, issueTokens({ userId: issued.userId, scope: issued.scope })];
  }

  function refreshGrant(form: Record<string, string>): [number, Record<string, unknown>] {
    if (!form.refresh_token) return missing('refresh_token');
    const grant = refreshTokens.get(form.refresh_token);
    if (!grant) return [400, oauthError('invalid_request', INVALID_TOKEN)];
    // Rotation: the refresh token is spent, a new pair is issued.
    refreshTokens.delete(form.refresh_token);
    return [200, issueTokens(grant)];
  }

  return {
    clientId,

    authorize(params: FakeXAuthorizeParams): string {
      if (params.clientId !== clientId) throw new Error(`unknown client_id ${params.clientId}`);
      if (!options.userExists(params.userId)) throw new Error(`unknown user ${params.userId}`);
      return issueCode(
        { userId: params.userId, scope: (params.scope ?? DEFAULT_SCOPE).split(' ') },
        params.redirectUri,
        params.codeChallenge,
        params.codeChallengeMethod ?? 'S256',
      );
    },

    setAuthorizingUser(userId: string | null) {
      authorizingUser = userId;
    },

    /** GET /i/oauth2/authorize: straight back to redirect_uri, as if the user had clicked. */
    authorizePage(query: URLSearchParams): [number, Record<string, string>, string] {
      const page = (text: string): [number, Record<string, string>, string] => [
        400,
        { 'content-type': 'text/html; charset=utf-8' },
        `<!doctype html><p>${text}</p>`,
      ];
      const redirectUri = query.get('redirect_uri') ?? '';
      const state = query.get('state') ?? '';
      const challenge = query.get('code_challenge') ?? '';
      const method = query.get('code_challenge_method') ?? 'plain';
      if (query.get('response_type') !== 'code') return page('response_type must be code');
      if (query.get('client_id') !== clientId) return page('Something went wrong: unknown app');
      if (!/^https?:\/\//.test(redirectUri)) return page('redirect_uri is not valid');
      if (!challenge || !['S256', 'plain'].includes(method)) return page('PKCE is required');
      if (state.length > 500) return page('state is too long');
      if (authorizingUser === undefined) return page('No X user signs in on the fake');
      const back = new URL(redirectUri);
      if (state) back.searchParams.set('state', state);
      if (authorizingUser === null || !options.userExists(authorizingUser)) {
        back.searchParams.set('error', 'access_denied');
      } else {
        const scope = (query.get('scope') ?? '').split(' ').filter(Boolean);
        back.searchParams.set(
          'code',
          issueCode({ userId: authorizingUser, scope }, redirectUri, challenge, method),
        );
      }
      return [302, { location: back.toString() }, ''];
    },

    /** POST /2/oauth2/token. */
    token(
      headers: http.IncomingHttpHeaders,
      form: Record<string, string> | null,
    ): [number, Record<string, unknown>] {
      if (!form) {
        return [400, oauthError('invalid_request', 'Content-Type must be form-urlencoded.')];
      }
      const failure = tokenFailures[0];
      if (failure) {
        failure.times -= 1;
        if (failure.times <= 0) tokenFailures.shift();
        if (failure.status >= 500 || failure.status === 429) {
          return [failure.status, failureBody(failure.status)];
        }
        return [failure.status, oauthError(failure.error, INVALID_TOKEN)];
      }
      const problem = clientProblem(headers, form);
      if (problem) return problem;
      if (form.grant_type === 'authorization_code') return codeGrant(form);
      if (form.grant_type === 'refresh_token') return refreshGrant(form);
      if (!form.grant_type) return missing('grant_type');
      return [400, oauthError('unsupported_grant_type', 'Unsupported grant type.')];
    },

    /** POST /2/oauth2/revoke: either kind of token; unknown ones are revoked too (RFC 7009). */
    revoke(
      headers: http.IncomingHttpHeaders,
      form: Record<string, string> | null,
    ): [number, Record<string, unknown>] {
      if (!form) {
        return [400, oauthError('invalid_request', 'Content-Type must be form-urlencoded.')];
      }
      const problem = clientProblem(headers, form);
      if (problem) return problem;
      if (!form.token) return missing('token');
      accessTokens.delete(form.token);
      refreshTokens.delete(form.token);
      return [200, { revoked: true }];
    },

    /**
     * GET /2/users/me for a user token: its user, or the status X answers (401 expired, 403 a
     * scope missing); null when the header holds no user token this fake issued.
     */
    me(authorization: string | undefined): { status: number; userId: string | null } | null {
      const presented = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
      const grant = presented ? accessTokens.get(presented) : undefined;
      if (!grant) return null;
      if (grant.expiresAt <= now() || !options.userExists(grant.userId)) {
        return { status: 401, userId: null };
      }
      if (!grant.scope.includes('users.read') || !grant.scope.includes('tweet.read')) {
        return { status: 403, userId: null };
      }
      return { status: 200, userId: grant.userId };
    },

    failNextToken(status: number, error: string, times: number) {
      tokenFailures.push({ status, error, times });
    },

    revokeUserTokens(userId: string) {
      for (const [key, grant] of accessTokens)
        if (grant.userId === userId) accessTokens.delete(key);
      for (const [key, grant] of refreshTokens) {
        if (grant.userId === userId) refreshTokens.delete(key);
      }
    },

    isTokenActive(value: string): boolean {
      const access = accessTokens.get(value);
      return (access !== undefined && access.expiresAt > now()) || refreshTokens.has(value);
    },
  };
}
