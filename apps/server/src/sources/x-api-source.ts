/**
 * The `x-api` tweet source: X API v2 with an app-only bearer token (docs/spec-notes.md, X API).
 *
 * - Rate limits: every response's `x-rate-limit-*` headers are kept per endpoint in the source
 *   instance (one token is shared by all handles), and `x-app-limit-24hour-*` for the whole app.
 *   No request is sent while a budget is spent: the source waits when the window resets within
 *   `maxRateLimitWaitMs` (60 s), else throws SourceError('rate_limited', ..., retryAfterMs). A
 *   429 without a usable reset header backs the endpoint off for 60 s, doubling per such 429 in a
 *   row (at most 15 min), and nothing is sent to it meanwhile.
 * - Errors: 429 -> rate_limited; 402 -> credits; 401/403 -> auth (none retried); 5xx, network
 *   failures and requests that take longer than `timeoutMs` are retried with exponential backoff
 *   and jitter, then -> unavailable; problem `type`s decide not_found / suspended / protected.
 * - Billing: X bills every post and user a response carries (pay-per-use, once per resource and
 *   UTC day). Each 200's posts and users are told to `onBilledReads` with the handle they were
 *   read for, so the cost meter sees exactly what X charges.
 * - Text: a long post's `text` is truncated by X, and so is a retweet's; the full text comes from
 *   `note_tweet` and from the retweeted post in `includes.tweets`.
 */
import type { XRequestMetrics } from '../lib/metrics.js';
import {
  SourceError,
  type BilledRead,
  type BilledReadsListener,
  type EndpointBudget,
  type MediaType,
  type RateBudget,
  type RateStatus,
  type ReferenceType,
  type SourceMedia,
  type SourceProfile,
  type SourceTweet,
  type TimelinePage,
  type TimelineQuery,
  type TweetSource,
  type UsersById,
} from '../domain/tweet-source.js';
import { abortReason, sleep } from '../lib/sleep.js';

export interface XApiSourceOptions {
  /** Prometheus: every request by endpoint and status (0: no answer). */
  metrics?: XRequestMetrics;
  /** X_API_BASE_URL, e.g. https://api.x.com (a trailing slash is tolerated). */
  baseUrl: string;
  /** X_BEARER_TOKEN (app-only). */
  bearerToken: string;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Clock (epoch ms). */
  now?: () => number;
  /** First retry delay for 5xx/network errors (doubles each attempt, plus jitter). Default 500. */
  retryBaseMs?: number;
  /** Retries after the first attempt for 5xx/network errors and timeouts. Default 3. */
  maxRetries?: number;
  /** Wait for a spent budget when it resets within this many ms, else throw. Default 60,000. */
  maxRateLimitWaitMs?: number;
  /**
   * Limit of one try, from connecting to the last byte of the body (X_REQUEST_TIMEOUT_SECONDS):
   * a server that accepts the request and never answers would otherwise hold a collection job
   * forever. Default 30,000.
   */
  timeoutMs?: number;
  /**
   * Told of every post and user a 200 carried (the cost meter). Awaited, but its failure never
   * fails the request: the read has happened and been billed either way.
   */
  onBilledReads?: BilledReadsListener;
}

/** The rate-limit buckets this source uses (X counts each endpoint separately). */
export type XEndpoint = 'users/by/username' | 'users' | 'users/tweets' | 'tweets';

/** In the order rateStatus() lists them. */
const ENDPOINTS: readonly XEndpoint[] = ['users/tweets', 'tweets', 'users', 'users/by/username'];

const USER_FIELDS = 'public_metrics,protected,created_at,name';
const TWEET_FIELDS =
  'created_at,lang,public_metrics,conversation_id,in_reply_to_user_id,referenced_tweets,entities,attachments,note_tweet,author_id';
/** Media, and the post a retweet shares with its author (for its full text). */
const TWEET_EXPANSIONS =
  'attachments.media_keys,referenced_tweets.id,referenced_tweets.id.author_id';
const TWEET_USER_FIELDS = 'username';
const MEDIA_FIELDS = 'type,url,preview_image_url';
const HANDLE_RE = /^[A-Za-z0-9_]{1,15}$/;
const ID_RE = /^[0-9]{1,19}$/;
/** X's batch size of lookups by id. */
const MAX_IDS = 100;
/** Back-off after a 429 that does not say when the window resets; doubles per such 429 in a row. */
const HEADERLESS_BACKOFF_MS = 60_000;
const MAX_HEADERLESS_BACKOFF_MS = 15 * 60_000;
const DAY_MS = 24 * 3_600_000;
const CREDITS_DEPLETED = 'X API credits are depleted: add credits in the X Developer Console';

// Wire shapes: only the fields read here, all optional because X omits what it likes.
interface WireProblem {
  type?: string;
  title?: string;
  detail?: string;
  status?: number;
  message?: string;
  /** v1.1-style errors: 88 is "Rate limit exceeded". */
  code?: number;
  value?: string;
  resource_id?: string;
}
interface WireUser {
  id: string;
  username: string;
  name?: string;
  protected?: boolean;
  public_metrics?: {
    followers_count?: number;
    following_count?: number;
    tweet_count?: number;
    like_count?: number;
  };
}
interface WireEntities {
  hashtags?: { tag: string }[];
  urls?: { expanded_url?: string; url?: string; media_key?: string }[];
}
interface WireTweet {
  id: string;
  text: string;
  author_id?: string;
  created_at?: string;
  lang?: string;
  conversation_id?: string;
  in_reply_to_user_id?: string;
  public_metrics?: {
    like_count?: number;
    retweet_count?: number;
    reply_count?: number;
    quote_count?: number;
    impression_count?: number;
  };
  referenced_tweets?: { type: string; id: string }[];
  entities?: WireEntities;
  /** A long post's whole text (`text` then holds only its start). */
  note_tweet?: { text?: string; entities?: WireEntities };
  attachments?: { media_keys?: string[] };
}
interface WireMedia {
  media_key: string;
  type: string;
  url?: string;
  preview_image_url?: string;
}
interface WireBody<T> {
  data?: T;
  errors?: WireProblem[];
  includes?: { media?: WireMedia[]; tweets?: WireTweet[]; users?: WireUser[] };
  meta?: { next_token?: string; result_count?: number };
}

interface Budget {
  limit: number | null;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}

/** The back-off of an endpoint after 429s without a reset header. */
interface Penalty {
  /** Epoch ms. */
  until: number;
  /** Header-less 429s in a row (a success clears them). */
  strikes: number;
}

/** The response of one try: read whole within the time limit. */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** One try took longer than `timeoutMs` (a transient failure, like a network error). */
class RequestTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`X API did not answer within ${timeoutMs / 1000} s`);
    this.name = 'RequestTimeout';
  }
}

/** The includes of a response, by key. */
interface Includes {
  media: Map<string, WireMedia>;
  tweets: Map<string, WireTweet>;
  users: Map<string, WireUser>;
}

const REFERENCE_TYPES: readonly string[] = ['retweeted', 'quoted', 'replied_to'];
const MEDIA_TYPES: readonly string[] = ['photo', 'video', 'animated_gif'];

const endsWith = (problem: WireProblem, kind: string) =>
  typeof problem.type === 'string' && problem.type.endsWith(`/${kind}`);

/** The source error one problem of `errors` means, or null when it is none of the known kinds. */
function problemError(problem: WireProblem, fallback: string): SourceError | null {
  const text = `${problem.title ?? ''} ${problem.detail ?? ''}`;
  if (endsWith(problem, 'not-authorized-for-resource')) {
    return new SourceError('protected', problem.detail ?? fallback);
  }
  // X answers a suspended user with type resource-not-found: only the detail tells them apart.
  if (/suspend/i.test(text) || endsWith(problem, 'user-suspended')) {
    return new SourceError('suspended', problem.detail ?? fallback);
  }
  if (endsWith(problem, 'resource-not-found')) {
    return new SourceError('not_found', problem.detail ?? fallback);
  }
  return null;
}

/** Maps `errors` of a 200 without data (or a 404 body) to the source error they mean. */
function userProblem(body: WireBody<unknown>, fallback: string): SourceError | null {
  const problems = body.errors ?? [];
  for (const problem of problems) {
    const error = problemError(problem, fallback);
    if (error) return error;
  }
  const first = problems[0];
  return first ? new SourceError('unavailable', first.detail ?? first.title ?? fallback) : null;
}

/**
 * X sends tweet text with `&`, `<` and `>` escaped as HTML entities (and nothing else). Perch
 * keeps the text as written, so it is unescaped once here; `&amp;` last, so a typed "&lt;"
 * (sent as "&amp;lt;") stays "&lt;".
 */
export function unescapeXText(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/** A post's whole text: the note of a long post (escaped like `text`), else `text`. */
function fullText(raw: WireTweet): string {
  return unescapeXText(raw.note_tweet?.text ?? raw.text);
}

/** The entities of the whole text: `entities` only cover the truncated `text` of a long post. */
function fullEntities(raw: WireTweet): WireEntities {
  return (raw.note_tweet?.text !== undefined ? raw.note_tweet.entities : raw.entities) ?? {};
}

/**
 * The post a retweet shares and its author's username, when X included them. The username
 * falls back to the one X wrote in the truncated 'RT @name: ' text.
 */
function sharedPost(
  raw: WireTweet,
  includes: Includes,
): { post: WireTweet; username: string } | null {
  const ref = raw.referenced_tweets?.find((r) => r.type === 'retweeted');
  const post = ref ? includes.tweets.get(ref.id) : undefined;
  if (!post) return null;
  const author = post.author_id ? includes.users.get(post.author_id) : undefined;
  const username = author?.username ?? /^RT @([A-Za-z0-9_]{1,15}):/.exec(raw.text)?.[1];
  return username ? { post, username } : null;
}

/**
 * Maps a wire post. A retweet's text is 'RT @author: ' and the whole text of the post it shares,
 * whose hashtags and links it also takes (they are the ones in that text).
 */
function toTweet(raw: WireTweet, includes: Includes): SourceTweet {
  const metrics = raw.public_metrics ?? {};
  const media: SourceMedia[] = [];
  for (const key of raw.attachments?.media_keys ?? []) {
    const item = includes.media.get(key);
    if (!item || !MEDIA_TYPES.includes(item.type)) continue;
    media.push({
      type: item.type as MediaType,
      url: item.url ?? null,
      previewUrl: item.preview_image_url ?? null,
    });
  }
  const shared = sharedPost(raw, includes);
  const text = shared ? `RT @${shared.username}: ${fullText(shared.post)}` : fullText(raw);
  const entities = fullEntities(shared?.post ?? raw);
  return {
    id: raw.id,
    text,
    createdAt: raw.created_at ?? new Date(0).toISOString(),
    lang: raw.lang ?? null,
    likeCount: metrics.like_count ?? 0,
    retweetCount: metrics.retweet_count ?? 0,
    replyCount: metrics.reply_count ?? 0,
    quoteCount: metrics.quote_count ?? 0,
    impressionCount: metrics.impression_count ?? null,
    conversationId: raw.conversation_id ?? null,
    inReplyToUserId: raw.in_reply_to_user_id ?? null,
    referencedTypes: (raw.referenced_tweets ?? [])
      .map((ref) => ref.type)
      .filter((type): type is ReferenceType => REFERENCE_TYPES.includes(type)),
    hashtags: (entities.hashtags ?? []).map((h) => h.tag),
    // Attached media also appear as t.co url entities carrying a media_key: those are not links.
    urls: (entities.urls ?? [])
      .filter((u) => u.media_key === undefined)
      .map((u) => u.expanded_url ?? u.url)
      .filter((u): u is string => typeof u === 'string'),
    media,
  };
}

function toProfile(user: WireUser): SourceProfile {
  const metrics = user.public_metrics ?? {};
  return {
    xUserId: user.id,
    username: user.username,
    name: user.name ?? user.username,
    followersCount: metrics.followers_count ?? 0,
    followingCount: metrics.following_count ?? 0,
    tweetCount: metrics.tweet_count ?? 0,
    likeCount: metrics.like_count ?? null,
    protected: user.protected === true,
  };
}

function includesOf(body: WireBody<unknown>): Includes {
  return {
    media: new Map((body.includes?.media ?? []).map((m) => [m.media_key, m])),
    tweets: new Map((body.includes?.tweets ?? []).map((t) => [t.id, t])),
    users: new Map((body.includes?.users ?? []).map((u) => [u.id, u])),
  };
}

/**
 * The posts and users of a tweet response, as X bills them: those in `data` and in the
 * includes, each once. `owner` set: every read is for that handle (a timeline). Unset: a post
 * is its author's, and an included post (and its author) is put on the author of the post that
 * referenced it (a lookup by ids, whose posts belong to many handles).
 */
function postReads(body: WireBody<WireTweet[]>, owner: string | null): BilledRead[] {
  const data = body.data ?? [];
  const postOwner = new Map<string, string | null>();
  for (const post of data) postOwner.set(post.id, owner ?? post.author_id ?? null);
  /** Who referenced each included post. */
  const referrer = new Map<string, string | null>();
  for (const post of data) {
    for (const ref of post.referenced_tweets ?? []) {
      if (!referrer.has(ref.id)) referrer.set(ref.id, owner ?? post.author_id ?? null);
    }
  }
  const included = body.includes?.tweets ?? [];
  for (const post of included) {
    if (!postOwner.has(post.id)) postOwner.set(post.id, referrer.get(post.id) ?? null);
  }
  // An included user is there as the author of an included post; else (`author_id` expansion)
  // as the author of a post asked for, which is its own read.
  const userOwner = new Map<string, string | null>();
  for (const post of included) {
    if (post.author_id && !userOwner.has(post.author_id)) {
      userOwner.set(post.author_id, owner ?? referrer.get(post.id) ?? null);
    }
  }
  for (const post of data) {
    if (post.author_id && !userOwner.has(post.author_id)) {
      userOwner.set(post.author_id, owner ?? post.author_id);
    }
  }
  const reads = new Map<string, BilledRead>();
  for (const post of [...data, ...included]) {
    const ownerXUserId = owner ?? postOwner.get(post.id) ?? null;
    if (!reads.has(`post:${post.id}`)) {
      reads.set(`post:${post.id}`, { kind: 'post', id: post.id, ownerXUserId });
    }
  }
  for (const user of body.includes?.users ?? []) {
    const ownerXUserId = owner ?? userOwner.get(user.id) ?? null;
    if (!reads.has(`user:${user.id}`)) {
      reads.set(`user:${user.id}`, { kind: 'user', id: user.id, ownerXUserId });
    }
  }
  return [...reads.values()];
}

/** Users read by a user lookup: each is its own handle's read. */
function userReads(users: WireUser[]): BilledRead[] {
  const ids = new Set(users.map((user) => user.id));
  return [...ids].map((id) => ({ kind: 'user', id, ownerXUserId: id }));
}

function headerInt(headers: Headers, name: string): number | null {
  const value = headers.get(name);
  if (value === null || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

/** A budget from `<prefix>-limit/remaining/reset` headers (reset in epoch seconds), or null. */
function budgetFrom(headers: Headers, prefix: string): Budget | null {
  const limit = headerInt(headers, `${prefix}-limit`);
  const remaining = headerInt(headers, `${prefix}-remaining`);
  const reset = headerInt(headers, `${prefix}-reset`);
  if (limit === null || remaining === null || reset === null) return null;
  return { limit, remaining, resetAt: reset * 1000 };
}

/**
 * Merges a budget a response told with the one known. Responses to concurrent requests can
 * arrive out of order: within one window the lowest remaining wins.
 */
function mergeBudget(known: Budget | null | undefined, told: Budget): Budget {
  const sameWindow = known != null && known.resetAt === told.resetAt;
  return sameWindow ? { ...told, remaining: Math.min(known.remaining, told.remaining) } : told;
}

function parseBody<T>(text: string): WireBody<T> & WireProblem {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as WireBody<T>) : {};
  } catch {
    return {};
  }
}

/** Creates the X API v2 source. One instance per bearer token: it owns the rate budgets. */
export function createXApiSource(options: XApiSourceOptions): TweetSource {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitMs = options.maxRateLimitWaitMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const budgets = new Map<XEndpoint, Budget>();
  const penalties = new Map<XEndpoint, Penalty>();
  /** The app's 24-hour budget, when X sends `x-app-limit-24hour-*`. */
  let appDay: Budget | null = null;

  function recordBudgets(endpoint: XEndpoint, headers: Headers): void {
    const told = budgetFrom(headers, 'x-rate-limit');
    if (told) budgets.set(endpoint, mergeBudget(budgets.get(endpoint), told));
    const day = budgetFrom(headers, 'x-app-limit-24hour');
    if (day) appDay = mergeBudget(appDay, day);
  }

  /** Ms until a spent budget's window resets; 0 when it is not spent (or unknown, or over). */
  function waitFor(budget: Budget | null | undefined): number {
    if (!budget || budget.remaining > 0) return 0;
    return Math.max(0, budget.resetAt - now());
  }

  /** Counts one request against a budget whose window is still running. */
  function spend(budget: Budget | null | undefined): void {
    if (budget && budget.resetAt > now() && budget.remaining > 0) budget.remaining -= 1;
  }

  /**
   * Waits for, or refuses, a request while the endpoint backs off or a budget (the endpoint's,
   * the app's 24 hours) is spent; reserves one request of each otherwise.
   */
  async function takeBudget(endpoint: XEndpoint, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const penalty = penalties.get(endpoint);
      if (penalty && penalty.until > now()) {
        throw new SourceError(
          'rate_limited',
          `X API rate limit reached (${endpoint}), backing off`,
          penalty.until - now(),
        );
      }
      const dayWait = waitFor(appDay);
      const wait = Math.max(dayWait, waitFor(budgets.get(endpoint)));
      if (wait <= 0) {
        spend(appDay);
        spend(budgets.get(endpoint));
        return;
      }
      if (wait > maxWaitMs) {
        const what = dayWait > 0 ? '24-hour app limit' : endpoint;
        throw new SourceError('rate_limited', `X API rate limit reached (${what})`, wait);
      }
      // A little past the reset instant, so our clock and X's agree the window is over.
      await sleep(wait + 50, signal);
    }
  }

  /**
   * The error of a 429 and when to try again: a usage cap waits a day, a spent 24-hour app budget
   * its reset, a spent window its `x-rate-limit-reset`. Without a usable reset header the endpoint
   * backs off 60 s, doubling per such 429 in a row (at most 15 min), so a proxy or an X hiccup
   * that drops the headers cannot turn the retries into a storm.
   */
  function rateLimited(
    endpoint: XEndpoint,
    headers: Headers,
    body: WireProblem,
    detail: string,
  ): SourceError {
    const message = `X API: ${detail}`;
    // Usage caps (monthly) answer 429 with budget left: no point retrying this window.
    if (endsWith(body, 'usage-capped')) return new SourceError('rate_limited', message, DAY_MS);
    const dayWait = waitFor(appDay);
    const reset = headerInt(headers, 'x-rate-limit-reset');
    const resetAt = reset === null ? null : reset * 1000;
    if (resetAt !== null && resetAt > now()) {
      const known = budgets.get(endpoint);
      const limit = known?.limit ?? headerInt(headers, 'x-rate-limit-limit');
      budgets.set(endpoint, { limit, remaining: 0, resetAt });
      return new SourceError('rate_limited', message, Math.max(1_000, dayWait, resetAt - now()));
    }
    if (dayWait > 0) return new SourceError('rate_limited', message, Math.max(1_000, dayWait));
    const strikes = (penalties.get(endpoint)?.strikes ?? 0) + 1;
    const backoffMs = Math.min(
      MAX_HEADERLESS_BACKOFF_MS,
      HEADERLESS_BACKOFF_MS * 2 ** Math.min(strikes - 1, 10),
    );
    penalties.set(endpoint, { until: now() + backoffMs, strikes });
    return new SourceError('rate_limited', message, backoffMs);
  }

  /** One try, bounded by `timeoutMs` from connecting to the end of the body. */
  async function attempt(url: URL, signal?: AbortSignal): Promise<Answer> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      const response = await doFetch(url, {
        headers: { authorization: `Bearer ${options.bearerToken}`, accept: 'application/json' },
        signal: combined,
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (deadline.aborted && !signal?.aborted) throw new RequestTimeout(timeoutMs);
      throw error;
    }
  }

  /** The body of a 200; every other answer throws the SourceError it means. */
  async function request<T>(
    endpoint: XEndpoint,
    path: string,
    query: Record<string, string | undefined>,
    signal?: AbortSignal,
  ): Promise<WireBody<T>> {
    const url = new URL(baseUrl + path);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    for (let attempts = 0; ; attempts++) {
      await takeBudget(endpoint, signal);
      let answer: Answer;
      try {
        answer = await attempt(url, signal);
      } catch (error) {
        // The caller's abort is the caller's business: never retried, never reworded.
        if (signal?.aborted) throw abortReason(signal);
        options.metrics?.xRequest(endpoint, 0);
        if (attempts < maxRetries) {
          await backoff(attempts, signal);
          continue;
        }
        const message =
          error instanceof RequestTimeout
            ? error.message
            : `X API unreachable: ${(error as Error).message}`;
        throw new SourceError('unavailable', message);
      }
      const { status, headers } = answer;
      options.metrics?.xRequest(endpoint, status);
      recordBudgets(endpoint, headers);
      const body = parseBody<T>(answer.text);
      const detail = body.detail ?? body.title ?? body.errors?.[0]?.message ?? `HTTP ${status}`;
      const v1RateLimit = !body.data && (body.errors ?? []).some((e) => e.code === 88);
      if (status === 429 || v1RateLimit) throw rateLimited(endpoint, headers, body, detail);
      if (status === 402) throw new SourceError('credits', CREDITS_DEPLETED);
      if (status === 401 || status === 403) {
        throw new SourceError('auth', `X API refused the credentials (${status}): ${detail}`);
      }
      if (status >= 500) {
        if (attempts < maxRetries) {
          await backoff(attempts, signal);
          continue;
        }
        throw new SourceError('unavailable', `X API error ${status}: ${detail}`);
      }
      if (status === 404) {
        throw userProblem(body, detail) ?? new SourceError('not_found', `X API: ${detail}`);
      }
      if (status !== 200) {
        // 400 and other client errors are not transient; retrying the same request cannot help.
        throw new SourceError('unavailable', `X API rejected the request (${status}): ${detail}`);
      }
      // A success ends a run of header-less 429s.
      penalties.delete(endpoint);
      return body;
    }
  }

  function backoff(attempt: number, signal?: AbortSignal): Promise<void> {
    const delay = retryBaseMs * 2 ** attempt;
    return sleep(delay + Math.random() * delay, signal);
  }

  /** Tells the meter what a response was billed for; its failures are its own (it logs them). */
  async function report(reads: BilledRead[]): Promise<void> {
    if (!options.onBilledReads || reads.length === 0) return;
    try {
      await options.onBilledReads(reads);
    } catch {
      // The read happened and X billed it: the data is returned all the same.
    }
  }

  /** Posts by id with their includes (tweetsByIds). */
  async function lookupTweets(ids: string[], signal?: AbortSignal): Promise<SourceTweet[]> {
    const body = await request<WireTweet[]>(
      'tweets',
      '/2/tweets',
      {
        ids: ids.join(','),
        'tweet.fields': TWEET_FIELDS,
        expansions: TWEET_EXPANSIONS,
        'media.fields': MEDIA_FIELDS,
        'user.fields': TWEET_USER_FIELDS,
      },
      signal,
    );
    await report(postReads(body, null));
    // Deleted or hidden tweets come back in `errors`: they are simply left out.
    const includes = includesOf(body);
    return (body.data ?? []).map((raw) => toTweet(raw, includes));
  }

  /**
   * Splits the `errors` of a lookup by ids into the users X cannot return (with why). Ids with a
   * problem of no known kind are in neither list, so the caller asks again next time instead of
   * taking the account for gone.
   */
  function missingUsers(
    body: WireBody<WireUser[]>,
    asked: string[],
    returned: Set<string>,
  ): UsersById['missing'] {
    const missing: UsersById['missing'] = [];
    const seen = new Set<string>();
    for (const problem of body.errors ?? []) {
      const id = problem.resource_id ?? problem.value;
      if (!id || returned.has(id) || seen.has(id) || !asked.includes(id)) continue;
      const error = problemError(problem, id);
      if (!error || error.kind === 'unavailable') continue;
      seen.add(id);
      missing.push({ xUserId: id, kind: error.kind as 'not_found' | 'suspended' | 'protected' });
    }
    return missing;
  }

  return {
    name: 'x-api',
    timelineDepth: 3_200,

    async lookupUser(username, signal): Promise<SourceProfile> {
      if (!HANDLE_RE.test(username)) {
        throw new SourceError('not_found', `Not a valid X username: ${username}`);
      }
      const body = await request<WireUser>(
        'users/by/username',
        `/2/users/by/username/${encodeURIComponent(username)}`,
        { 'user.fields': USER_FIELDS },
        signal,
      );
      const user = body.data;
      if (!user) {
        throw (
          userProblem(body, `Could not find user ${username}`) ??
          new SourceError('not_found', `Could not find user ${username}`)
        );
      }
      await report(userReads([user]));
      return toProfile(user);
    },

    /**
     * Up to 100 distinct ids per call: splitting a longer list is the caller's job (each batch
     * is one request against a 300-per-15-minutes budget), so more throws a RangeError instead of
     * silently dropping handles from a refresh. Ids that cannot be X ids are reported not_found
     * without asking X, which would refuse the whole batch for them.
     */
    async usersByIds(ids, signal): Promise<UsersById> {
      const distinct = [...new Set(ids)];
      if (distinct.length > MAX_IDS) {
        throw new RangeError(`usersByIds takes at most ${MAX_IDS} ids, got ${distinct.length}`);
      }
      const asked = distinct.filter((id) => ID_RE.test(id));
      const missing: UsersById['missing'] = distinct
        .filter((id) => !ID_RE.test(id))
        .map((xUserId) => ({ xUserId, kind: 'not_found' }));
      if (asked.length === 0) return { profiles: [], missing };
      const body = await request<WireUser[]>(
        'users',
        '/2/users',
        { ids: asked.join(','), 'user.fields': USER_FIELDS },
        signal,
      );
      const users = (body.data ?? []).filter((user) => asked.includes(user.id));
      await report(userReads(users));
      const profiles = users.map(toProfile);
      const returned = new Set(profiles.map((profile) => profile.xUserId));
      return { profiles, missing: [...missing, ...missingUsers(body, asked, returned)] };
    },

    async timeline(query: TimelineQuery, signal): Promise<TimelinePage> {
      const maxResults = Math.min(100, Math.max(5, Math.round(query.maxResults ?? 100)));
      const body = await request<WireTweet[]>(
        'users/tweets',
        `/2/users/${encodeURIComponent(query.xUserId)}/tweets`,
        {
          max_results: String(maxResults),
          start_time: query.startTime,
          end_time: query.endTime,
          since_id: query.sinceId,
          pagination_token: query.cursor,
          'tweet.fields': TWEET_FIELDS,
          expansions: TWEET_EXPANSIONS,
          'media.fields': MEDIA_FIELDS,
          'user.fields': TWEET_USER_FIELDS,
        },
        signal,
      );
      await report(postReads(body, query.xUserId));
      if (!body.data) {
        // An empty page has only meta; errors without data mean the user cannot be read.
        const problem = userProblem(body, `Cannot read the timeline of ${query.xUserId}`);
        if (problem) throw problem;
        return { tweets: [], nextCursor: null };
      }
      const includes = includesOf(body);
      return {
        tweets: body.data.map((raw) => toTweet(raw, includes)),
        nextCursor: body.meta?.next_token ?? null,
      };
    },

    async tweetsByIds(ids, signal): Promise<SourceTweet[]> {
      const wanted = [...new Set(ids.filter((id) => ID_RE.test(id)))].slice(0, MAX_IDS);
      if (wanted.length === 0) return [];
      return lookupTweets(wanted, signal);
    },

    rateBudget(): RateBudget {
      const budget = budgets.get('users/tweets');
      if (!budget) return { limit: null, remaining: null, resetAt: null };
      return {
        limit: budget.limit,
        remaining: budget.remaining,
        resetAt: new Date(budget.resetAt).toISOString(),
      };
    },

    rateStatus(): RateStatus {
      const endpoints: EndpointBudget[] = [];
      for (const endpoint of ENDPOINTS) {
        const budget = budgets.get(endpoint);
        const penalty = penalties.get(endpoint);
        const backingOff = penalty !== undefined && penalty.until > now();
        if (!budget && !backingOff) continue;
        // A back-off holds the endpoint as if its budget were spent until it ends.
        const resetAt = Math.max(budget?.resetAt ?? 0, backingOff ? penalty.until : 0);
        endpoints.push({
          endpoint,
          limit: budget?.limit ?? null,
          remaining: backingOff ? 0 : (budget?.remaining ?? null),
          resetAt: new Date(resetAt).toISOString(),
        });
      }
      const day = appDay;
      return {
        endpoints,
        appDay: day
          ? {
              limit: day.limit,
              remaining: day.remaining,
              resetAt: new Date(day.resetAt).toISOString(),
            }
          : null,
      };
    },
  };
}
