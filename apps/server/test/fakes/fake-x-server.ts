/**
 * A loopback fake of the X API v2 endpoints Perch reads (docs/spec-notes.md, X API), on
 * 127.0.0.1:0 with node:http, so the real x-api source is tested over real HTTP: headers, status
 * codes, problem bodies, pagination and rate limits behave like X's.
 *
 * Routes: GET /2/users/by/username/:u, GET /2/users?ids= (up to 100), GET /2/users/:id/tweets,
 * GET /2/tweets?ids=, GET /2/users/me (the user of an OAuth 2.0 user token; 403 for the app-only
 * token, as X answers), and OAuth 2.0 with PKCE: GET /i/oauth2/authorize (redirects
 * straight back with a code, as if the user consented), POST /2/oauth2/token (authorization_code
 * with the S256/plain verifier check, refresh_token with rotation), POST /2/oauth2/revoke.
 *
 * Like X it also: truncates long posts (`note_tweet` holds the whole text) and retweets (the
 * shared post comes in includes), bills every post and user it serves once per UTC day (see
 * billing()), answers 402 when the credits run out, sends `x-app-limit-24hour-*` when an app
 * day limit is configured, and can be told to stall, drop rate-limit headers or refuse the token.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { SourceTweet } from '../../src/domain/tweet-source.js';
import type { XEndpoint } from '../../src/sources/x-api-source.js';
import { listenOnLoopback } from './loopback.js';

const PROBLEMS = 'https://api.twitter.com/2/problems';
const WINDOW_MS = 15 * 60_000;
/** Per-app limits of a 15-minute window (docs/spec-notes.md, X API). */
const DEFAULT_LIMITS: Record<XEndpoint, number> = {
  'users/by/username': 300,
  users: 300,
  'users/tweets': 10_000,
  tweets: 3_500,
};
/** The timeline only reaches this many most recent Posts (800 with exclude=replies). */
const DEPTH_LIMIT = 3_200;
const DEPTH_LIMIT_NO_REPLIES = 800;
/** X's batch size of lookups by id. */
const MAX_IDS = 100;
const DAY_MS = 24 * 3_600_000;
/** Pay-per-use prices in micro-USD: $0.005 a post, $0.010 a user (each once per UTC day). */
const DEFAULT_PRICES = { post: 5_000, user: 10_000 };
/** A long post's `text` keeps this many characters of its note, then '…' and a t.co link. */
const NOTE_VISIBLE_CHARS = 275;
/** A retweet's `text` ('RT @name: ' and the shared text) is cut to this many characters. */
const RETWEET_TEXT_CHARS = 140;

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

/** Entities of a Post's text, offsets in code points (X's wire format). */
export interface FakeXEntities {
  hashtags?: { start: number; end: number; tag: string }[];
  urls?: {
    start: number;
    end: number;
    url: string;
    expanded_url: string;
    display_url: string;
    media_key?: string;
  }[];
  mentions?: { start: number; end: number; username: string; id?: string }[];
}

/** A Post in X's wire format (the fields this fake can return). */
export interface FakeXTweet {
  id: string;
  /**
   * Escaped like X's (&amp; &lt; &gt;). Ignored for a long post (with `note_tweet`): the fake
   * serves the note's start, '…' and a t.co link, as X does.
   */
  text: string;
  created_at: string;
  lang?: string;
  conversation_id?: string;
  in_reply_to_user_id?: string;
  public_metrics?: Record<string, number>;
  referenced_tweets?: { type: string; id: string }[];
  /**
   * Left out on a long post: the fake keeps the note's entities that fall in the visible start.
   */
  entities?: FakeXEntities;
  /** A long post (over 280 characters): its whole text and entities, served on request. */
  note_tweet?: { text: string; entities?: FakeXEntities };
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
  /** What this request added to the bill (resources not yet billed that UTC day). */
  billed: { posts: number; users: number };
}

/** What X would have billed for what the fake served (distinct resources per UTC day). */
export interface FakeXBilling {
  posts: number;
  users: number;
  /** By UTC day (YYYY-MM-DD). */
  byDay: Record<string, { posts: number; users: number }>;
}

/** A budget as the tests set it. */
export interface FakeXBudgetInput {
  limit: number;
  remaining: number;
  resetInSeconds: number;
}

export interface FakeXFailureOptions {
  /** False: the answer carries no `x-rate-limit-*` headers (a 429 without a reset). */
  rateLimitHeaders?: boolean;
  /** The body to send instead of X's usual one for the status, e.g. the v1.1-style 429. */
  body?: unknown;
}

export interface FakeXStallOptions {
  /** How many requests in a row stall. Default 1. */
  times?: number;
  /**
   * 'request': accept the request and send nothing; 'body': send the status and headers and
   * half the body. Default 'request'.
   */
  phase?: 'request' | 'body';
  /** Answer (the rest) after this many real ms; unset: never (until the client gives up). */
  ms?: number;
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
  /**
   * The app's requests per 24 hours: every API answer then carries `x-app-limit-24hour-*` and a
   * 429 comes once they are spent (some plans). Unset: no such limit, no such headers.
   */
  appDayLimit?: number;
  /** Credits in USD (see setCredits). Default null: unlimited. */
  credits?: number | null;
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
  /** Renames a user: the old username no longer resolves, the id shows the new one. */
  renameUser(userId: string, newUsername: string): FakeXUser;
  /** Adds Posts in wire format to a user's timeline (by user id). */
  addTweets(userId: string, tweets: FakeXTweet[]): void;
  /** Adds Posts given as SourceTweets (converted to X's wire format, see toWireTweet). */
  addSourceTweets(userId: string, tweets: SourceTweet[]): void;
  /**
   * Adds a retweet of a stored Post to a user's timeline, with the text X writes: 'RT @author: '
   * and the shared text, cut to 140 characters with '…'.
   */
  addRetweet(userId: string, retweet: { id: string; created_at: string; of: string }): FakeXTweet;
  setRateLimit(endpoint: XEndpoint, budget: FakeXBudgetInput): void;
  /**
   * The next `times` requests to `endpoint` answer `status` with X's body for it (or
   * `options.body`), with or without rate-limit headers.
   */
  failNext(
    endpoint: XEndpoint,
    status: number,
    times?: number,
    options?: FakeXFailureOptions,
  ): void;
  /** The next request(s) to `endpoint` are accepted and not answered (see FakeXStallOptions). */
  stallNext(endpoint: XEndpoint, options?: FakeXStallOptions): void;
  /** Sets the app's 24-hour budget (and turns the headers on); null turns the limit off. */
  setAppDayLimit(budget: FakeXBudgetInput | null): void;
  /**
   * The balance in USD; null: unlimited (default). Each post or user billed for the first time
   * that UTC day costs its price ($0.005, $0.010); while the balance is 0 or less every API
   * request answers 402 CreditsDepleted, until credits are set again.
   */
  setCredits(usd: number | null): void;
  /** The balance in USD, or null when unlimited. */
  credits(): number | null;
  /** Refuses the bearer token with this status (401 or 403) until set back to null. */
  setAuthFailure(status: 401 | 403 | null): void;
  /** What X bills for what was served so far. */
  billing(): FakeXBilling;
  /** Requests received per API endpoint (every status). */
  requestCounts(): Record<XEndpoint, number>;
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

/**
 * `count` posts of account `seed` over the last six days, newest first, with some engagement, as
 * the scale-out test and benchmark fill the fake: ids from 1_910… with `idsPerAccount` of them
 * to each account, text `Post <n> of account <seed>` and `textSuffix`.
 */
export function recentWirePosts(
  seed: number,
  count: number,
  { idsPerAccount = 1_000n, textSuffix = '' }: { idsPerAccount?: bigint; textSuffix?: string } = {},
): FakeXTweet[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, index) => ({
    id: String(1_910_000_000_000_000_000n + BigInt(seed) * idsPerAccount + BigInt(count - index)),
    text: `Post ${count - index} of account ${seed}${textSuffix}`,
    created_at: new Date(now - 3_600_000 - (index * 6 * 86_400_000) / count).toISOString(),
    lang: 'en',
    public_metrics: {
      like_count: index % 50,
      retweet_count: index % 7,
      reply_count: index % 3,
      quote_count: 0,
      impression_count: 500 + index,
    },
  }));
}

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
        detail:
          'Your enrolled account [1243608864848629761] does not have any credits to fulfill this request.',
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

/** Cuts text to `max` code points (X counts those), never inside an HTML entity. */
function cut(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  return points
    .slice(0, max)
    .join('')
    .replace(/&[a-z]*$/, '');
}

/** X's `text` of a long post: the start of its note, '…' and a t.co link to the whole post. */
function truncatedNote(id: string, note: string): string {
  return `${cut(note, NOTE_VISIBLE_CHARS)}… https://t.co/n${id.slice(-8)}`;
}

/** The note's entities that lie in the visible start of a long post (its `entities`). */
function visibleEntities(entities: FakeXEntities | undefined): FakeXEntities | undefined {
  if (!entities) return undefined;
  const visible: FakeXEntities = {};
  for (const key of ['hashtags', 'urls', 'mentions'] as const) {
    const kept = (entities[key] ?? []).filter((e) => e.end <= NOTE_VISIBLE_CHARS);
    if (kept.length > 0) (visible as Record<string, unknown>)[key] = kept;
  }
  return Object.keys(visible).length > 0 ? visible : undefined;
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Failure {
  status: number;
  times: number;
  options: FakeXFailureOptions;
}

interface Stall {
  times: number;
  phase: 'request' | 'body';
  ms: number | undefined;
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeXServer(options: FakeXServerOptions = {}): Promise<FakeXServer> {
  const bearerToken = options.bearerToken ?? 'test-bearer-token';
  const now = options.now ?? Date.now;
  const users = new Map<string, FakeXUser>();
  const usersByName = new Map<string, FakeXUser>();
  const timelines = new Map<string, StoredTweet[]>();
  const tweetsById = new Map<string, StoredTweet>();
  const windows = new Map<XEndpoint, Window>();
  const failures = new Map<XEndpoint, Failure[]>();
  const stalls = new Map<XEndpoint, Stall[]>();
  const requests: FakeXRequest[] = [];
  /** Pending answers of stalled requests (cleared on close). */
  const timers = new Set<NodeJS.Timeout>();
  /** `${day}:${id}` of every resource billed. */
  const billedPosts = new Set<string>();
  const billedUsers = new Set<string>();
  const billedByDay = new Map<string, { posts: number; users: number }>();
  /** Micro-USD; null: unlimited. */
  let credits: number | null =
    options.credits === undefined || options.credits === null
      ? null
      : Math.round(options.credits * 1e6);
  let authFailure: 401 | 403 | null = null;
  let appDayLimit: number | null = options.appDayLimit ?? null;
  let appDay: Window | null = null;
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

  /** The app's 24-hour window, renewed when over; null when no day limit is configured. */
  function appDayWindow(): Window | null {
    if (appDayLimit === null) return null;
    const at = now();
    if (!appDay || at >= appDay.resetAt) {
      appDay = {
        limit: appDayLimit,
        remaining: appDayLimit,
        resetAt: Math.ceil((at + DAY_MS) / 1000) * 1000,
      };
    }
    return appDay;
  }

  function headersFor(
    status: number,
    w: Window | null,
    plainJson: boolean,
    rateHeaders: boolean,
  ): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': status >= 400 && !plainJson ? 'application/problem+json' : 'application/json',
    };
    if (w && rateHeaders) {
      headers['x-rate-limit-limit'] = String(w.limit);
      headers['x-rate-limit-remaining'] = String(w.remaining);
      headers['x-rate-limit-reset'] = String(w.resetAt / 1000);
    }
    // The app's day budget is told on every API answer (w marks those).
    const day = w ? appDayWindow() : null;
    if (day) {
      headers['x-app-limit-24hour-limit'] = String(day.limit);
      headers['x-app-limit-24hour-remaining'] = String(Math.max(0, day.remaining));
      headers['x-app-limit-24hour-reset'] = String(day.resetAt / 1000);
    }
    return headers;
  }

  function send(
    res: http.ServerResponse,
    status: number,
    body: unknown,
    w: Window | null,
    /** OAuth errors ({error, error_description}) are plain JSON, not problem documents. */
    plainJson = false,
    rateHeaders = true,
  ): number {
    res.writeHead(status, headersFor(status, w, plainJson, rateHeaders));
    res.end(JSON.stringify(body));
    return status;
  }

  /**
   * Sends an answer late or never: after `ms` real ms (the status and half the body first, for
   * phase 'body'), or never when `ms` is unset; `done` runs once the body was sent whole.
   */
  function sendStalled(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    body: unknown,
    w: Window,
    stall: Stall,
    done: () => void,
  ): void {
    const text = JSON.stringify(body);
    const half = Math.floor(text.length / 2);
    const gone = () => res.writableEnded || req.socket.destroyed;
    if (stall.phase === 'body') {
      res.writeHead(status, headersFor(status, w, false, true));
      res.write(text.slice(0, half));
    }
    if (stall.ms === undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (gone()) return;
      if (stall.phase === 'body') res.end(text.slice(half));
      else send(res, status, body, w);
      done();
    }, stall.ms);
    timers.add(timer);
  }

  /**
   * Bills what a 200 served as X does: each post (data of the tweet endpoints, includes.tweets)
   * and each user (data of the user endpoints, includes.users) once per UTC day, at its price.
   */
  function bill(entry: FakeXRequest, endpoint: XEndpoint, body: unknown): void {
    const payload = body as {
      data?: { id: string } | { id: string }[];
      includes?: { tweets?: { id: string }[]; users?: { id: string }[] };
    };
    const data = Array.isArray(payload.data) ? payload.data : payload.data ? [payload.data] : [];
    const userData = endpoint === 'users' || endpoint === 'users/by/username';
    const posts = [...(userData ? [] : data), ...(payload.includes?.tweets ?? [])];
    const people = [...(userData ? data : []), ...(payload.includes?.users ?? [])];
    const day = utcDay(now());
    const perDay = billedByDay.get(day) ?? { posts: 0, users: 0 };
    billedByDay.set(day, perDay);
    const billOnce = (
      served: { id: string }[],
      billed: Set<string>,
      kind: 'posts' | 'users',
      price: number,
    ) => {
      for (const { id } of served) {
        if (billed.has(`${day}:${id}`)) continue;
        billed.add(`${day}:${id}`);
        perDay[kind] += 1;
        entry.billed[kind] += 1;
        if (credits !== null) credits -= price;
      }
    };
    billOnce(posts, billedPosts, 'posts', DEFAULT_PRICES.post);
    billOnce(people, billedUsers, 'users', DEFAULT_PRICES.user);
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

  /** A user with the default fields (id, name, username) and the requested `user.fields`. */
  function projectUser(user: FakeXUser, query: URLSearchParams): Record<string, unknown> {
    const fields = fieldList(query, 'user.fields');
    const data: Record<string, unknown> = { id: user.id, name: user.name, username: user.username };
    if (fields.has('created_at')) data.created_at = user.createdAt;
    if (fields.has('protected')) data.protected = user.protected;
    if (fields.has('public_metrics')) data.public_metrics = user.publicMetrics;
    return data;
  }

  /** A Post with the default fields (id, text, edit history) and the requested ones. */
  function projectTweet(stored: StoredTweet, fields: Set<string>): Record<string, unknown> {
    const { wire, authorId } = stored;
    const out: Record<string, unknown> = {
      id: wire.id,
      text: wire.text,
      edit_history_tweet_ids: [wire.id],
    };
    const all: Record<string, unknown> = { ...wire, author_id: authorId };
    for (const field of fields) {
      if (field !== 'media' && all[field] !== undefined) out[field] = all[field];
    }
    return out;
  }

  /** A Post another Post references can be included unless its author is hidden. */
  function readable(stored: StoredTweet | undefined): stored is StoredTweet {
    const author = stored ? users.get(stored.authorId) : undefined;
    return author !== undefined && !author.protected && !author.suspended;
  }

  /**
   * Projects stored Posts on the requested fields with the requested expansions: media,
   * referenced Posts (`referenced_tweets.id`, or `referenced_posts.id` of the newest spec) and
   * their authors, the Posts' own authors (`author_id`).
   */
  function render(
    stored: StoredTweet[],
    query: URLSearchParams,
  ): { data: Record<string, unknown>[]; includes?: Record<string, unknown[]> } {
    const fields = fieldList(query, 'tweet.fields', 'post.fields');
    const mediaFields = fieldList(query, 'media.fields');
    const expansions = fieldList(query, 'expansions');
    const has = (name: string) =>
      expansions.has(name) || expansions.has(name.replace('referenced_tweets', 'referenced_posts'));
    const media: Record<string, unknown>[] = [];
    if (has('attachments.media_keys')) {
      for (const { wire } of stored) {
        for (const item of wire.media ?? []) {
          const projected: Record<string, unknown> = { media_key: item.media_key, type: item.type };
          for (const field of mediaFields) {
            const value = (item as Record<string, unknown>)[field];
            if (value !== undefined) projected[field] = value;
          }
          media.push(projected);
        }
      }
    }
    const included = new Map<string, StoredTweet>();
    if (has('referenced_tweets.id')) {
      for (const { wire } of stored) {
        for (const ref of wire.referenced_tweets ?? []) {
          const target = tweetsById.get(ref.id);
          if (readable(target)) included.set(ref.id, target);
        }
      }
    }
    const authors = new Map<string, FakeXUser>();
    const addAuthor = (id: string) => {
      const user = users.get(id);
      if (user && !user.suspended) authors.set(id, user);
    };
    if (has('author_id')) for (const t of stored) addAuthor(t.authorId);
    if (has('referenced_tweets.id.author_id'))
      for (const t of included.values()) addAuthor(t.authorId);
    const includes: Record<string, unknown[]> = {};
    if (media.length > 0) includes.media = media;
    if (included.size > 0) {
      includes.tweets = [...included.values()].map((t) => projectTweet(t, fields));
    }
    if (authors.size > 0) {
      includes.users = [...authors.values()].map((user) => projectUser(user, query));
    }
    const data = stored.map((t) => projectTweet(t, fields));
    return Object.keys(includes).length > 0 ? { data, includes } : { data };
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
    return [200, { data: projectUser(user, query) }];
  }

  /**
   * GET /2/users?ids=: up to 100 ids; the users found in `data` (protected ones too), the others
   * in `errors` (a suspended user is a resource-not-found whose detail says so, as at X).
   */
  function usersLookup(query: URLSearchParams): [number, unknown] {
    const ids = (query.get('ids') ?? '').split(',').filter(Boolean);
    if (ids.length < 1 || ids.length > MAX_IDS) {
      const message = `The number of values in the \`ids\` query parameter list [${ids.length}] is not between 1 and ${MAX_IDS}`;
      return [400, invalid(message, { ids: [query.get('ids') ?? ''] })];
    }
    const bad = ids.find((id) => !/^[0-9]{1,19}$/.test(id));
    if (bad !== undefined) {
      const message = `The \`ids\` query parameter value [${bad}] does not match ^[0-9]{1,19}$`;
      return [400, invalid(message, { ids: [bad] })];
    }
    const data: Record<string, unknown>[] = [];
    const errors: Record<string, unknown>[] = [];
    for (const id of new Set(ids)) {
      const user = users.get(id);
      if (!user) {
        const detail = `Could not find user with ids: [${id}].`;
        errors.push(notFoundError('ids', id, detail, 'Not Found Error'));
      } else if (user.suspended) {
        errors.push(notFoundError('ids', id, `User has been suspended: [${id}].`, 'Forbidden'));
      } else {
        data.push(projectUser(user, query));
      }
    }
    const body: Record<string, unknown> = {};
    if (data.length > 0) body.data = data;
    if (errors.length > 0) body.errors = errors;
    return [200, body];
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
    if (path === '/2/users') return 'users';
    if (path === '/2/tweets') return 'tweets';
    return null;
  }

  /** Takes one from the head of a per-endpoint queue of injected behaviours. */
  function takeQueued<T extends { times: number }>(
    queues: Map<XEndpoint, T[]>,
    endpoint: XEndpoint,
  ): T | undefined {
    const queued = queues.get(endpoint)?.[0];
    if (!queued) return undefined;
    queued.times -= 1;
    if (queued.times <= 0) queues.get(endpoint)?.shift();
    return queued;
  }

  function route(endpoint: XEndpoint, path: string, query: URLSearchParams): [number, unknown] {
    switch (endpoint) {
      case 'users/by/username':
        return userLookup(decodeURIComponent(path.split('/').pop() ?? ''), query);
      case 'users':
        return usersLookup(query);
      case 'users/tweets':
        return userTimeline(decodeURIComponent(path.split('/')[3] ?? ''), query);
      case 'tweets':
        return tweetLookup(query);
    }
  }

  /**
   * An API request with a valid token, in X's order: credits, injected failures, the app's day
   * budget, the endpoint's window, then the answer (maybe stalled).
   */
  function api(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    entry: FakeXRequest,
    endpoint: XEndpoint,
    w: Window,
    url: URL,
  ): void {
    if (credits !== null && credits <= 0) {
      entry.status = send(res, 402, failureBody(402), w);
      return;
    }
    const queued = takeQueued(failures, endpoint);
    if (queued) {
      const body = queued.options.body ?? failureBody(queued.status);
      const rateHeaders = queued.options.rateLimitHeaders !== false;
      entry.status = send(res, queued.status, body, w, false, rateHeaders);
      return;
    }
    const day = appDayWindow();
    if ((day && day.remaining <= 0) || w.remaining <= 0) {
      entry.status = send(res, 429, failureBody(429), w);
      return;
    }
    w.remaining -= 1;
    if (day) day.remaining -= 1;
    const [status, body] = route(endpoint, url.pathname, url.searchParams);
    const done = () => {
      if (status === 200) bill(entry, endpoint, body);
    };
    const stall = takeQueued(stalls, endpoint);
    if (stall) {
      entry.status = stall.phase === 'body' ? status : 0;
      sendStalled(req, res, status, body, w, stall, () => {
        entry.status = status;
        done();
      });
      return;
    }
    entry.status = send(res, status, body, w);
    done();
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
      billed: { posts: 0, users: 0 },
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
    if (authFailure !== null) {
      entry.status = send(res, authFailure, failureBody(authFailure), w);
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
    api(req, res, entry, endpoint, w, url);
  }

  /** Stores a Post; a long one gets the truncated `text` and `entities` X serves for it. */
  function store(userId: string, input: FakeXTweet): StoredTweet {
    const wire: FakeXTweet = { ...input };
    if (input.note_tweet) {
      wire.text = truncatedNote(input.id, input.note_tweet.text);
      const entities = input.entities ?? visibleEntities(input.note_tweet.entities);
      if (entities) wire.entities = entities;
      else delete wire.entities;
    }
    const stored: StoredTweet = {
      wire,
      authorId: userId,
      big: BigInt(wire.id),
      createdMs: Date.parse(wire.created_at),
      isReply: (wire.referenced_tweets ?? []).some((r) => r.type === 'replied_to'),
      isRetweet: (wire.referenced_tweets ?? []).some((r) => r.type === 'retweeted'),
    };
    tweetsById.set(wire.id, stored);
    return stored;
  }

  const server = http.createServer(handle);
  const baseUrl = await listenOnLoopback(server);

  const fake: FakeXServer = {
    baseUrl,
    bearerToken,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
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
    renameUser(userId, newUsername) {
      const user = users.get(userId);
      if (!user) throw new Error(`unknown user ${userId}`);
      if (usersByName.get(user.username.toLowerCase()) === user) {
        usersByName.delete(user.username.toLowerCase());
      }
      user.username = newUsername;
      usersByName.set(newUsername.toLowerCase(), user);
      return user;
    },
    addTweets(userId, tweets) {
      const list = timelines.get(userId) ?? [];
      for (const wire of tweets) list.push(store(userId, wire));
      // Newest first, like X.
      list.sort((a, b) => (a.big > b.big ? -1 : a.big < b.big ? 1 : 0));
      timelines.set(userId, list);
    },
    addSourceTweets(userId, tweets) {
      fake.addTweets(userId, tweets.map(toWireTweet));
    },
    addRetweet(userId, { id, created_at, of }) {
      const shared = tweetsById.get(of);
      const author = shared ? users.get(shared.authorId) : undefined;
      if (!shared || !author) throw new Error(`unknown post ${of}`);
      const whole = `RT @${author.username}: ${shared.wire.note_tweet?.text ?? shared.wire.text}`;
      const text =
        Array.from(whole).length > RETWEET_TEXT_CHARS
          ? `${cut(whole, RETWEET_TEXT_CHARS - 1)}…`
          : whole;
      const wire: FakeXTweet = {
        id,
        text,
        created_at,
        conversation_id: id,
        lang: shared.wire.lang ?? 'en',
        public_metrics: {
          retweet_count: shared.wire.public_metrics?.retweet_count ?? 0,
          reply_count: 0,
          like_count: 0,
          quote_count: 0,
          bookmark_count: 0,
          impression_count: 0,
        },
        referenced_tweets: [{ type: 'retweeted', id: of }],
        entities: {
          mentions: [
            { start: 3, end: 4 + author.username.length, username: author.username, id: author.id },
          ],
        },
      };
      fake.addTweets(userId, [wire]);
      return wire;
    },
    setRateLimit(endpoint, budget) {
      windows.set(endpoint, {
        limit: budget.limit,
        remaining: budget.remaining,
        resetAt: Math.ceil((now() + budget.resetInSeconds * 1000) / 1000) * 1000,
      });
    },
    failNext(endpoint, status, times = 1, failureOptions = {}) {
      const list = failures.get(endpoint) ?? [];
      list.push({ status, times, options: failureOptions });
      failures.set(endpoint, list);
    },
    stallNext(endpoint, stallOptions = {}) {
      const list = stalls.get(endpoint) ?? [];
      list.push({
        times: stallOptions.times ?? 1,
        phase: stallOptions.phase ?? 'request',
        ms: stallOptions.ms,
      });
      stalls.set(endpoint, list);
    },
    setAppDayLimit(budget) {
      if (budget === null) {
        appDayLimit = null;
        appDay = null;
        return;
      }
      appDayLimit = budget.limit;
      appDay = {
        limit: budget.limit,
        remaining: budget.remaining,
        resetAt: Math.ceil((now() + budget.resetInSeconds * 1000) / 1000) * 1000,
      };
    },
    setCredits(usd) {
      credits = usd === null ? null : Math.round(usd * 1e6);
    },
    credits: () => (credits === null ? null : Math.max(0, credits) / 1e6),
    setAuthFailure(status) {
      authFailure = status;
    },
    billing() {
      const byDay: FakeXBilling['byDay'] = {};
      let posts = 0;
      let people = 0;
      for (const [day, counts] of billedByDay) {
        byDay[day] = { ...counts };
        posts += counts.posts;
        people += counts.users;
      }
      return { posts, users: people, byDay };
    },
    requestCounts() {
      const counts: Record<XEndpoint, number> = {
        'users/by/username': 0,
        users: 0,
        'users/tweets': 0,
        tweets: 0,
      };
      for (const request of requests) if (request.endpoint) counts[request.endpoint] += 1;
      return counts;
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

/** X's auth code lives 30 s. */
const CODE_TTL_MS = 30_000;
const DEFAULT_SCOPE = 'tweet.read users.read offline.access';
/** X's answer for a bad, used or revoked code or token. */
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
