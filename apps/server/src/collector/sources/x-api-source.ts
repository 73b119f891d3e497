/**
 * The `x-api` tweet source: X API v2 with an app-only bearer token (external-apis.md §1).
 *
 * - Rate limits: every response's `x-rate-limit-*` headers are kept per endpoint in the source
 *   instance (one token is shared by all handles). No request is sent while an endpoint's budget
 *   is spent: the source waits when the window resets within `maxRateLimitWaitMs` (60 s), else
 *   throws SourceError('rate_limited', ..., retryAfterMs).
 * - Errors: 429 -> rate_limited; 401/402/403 -> auth (no retry); 5xx and network failures are
 *   retried with exponential backoff and jitter, then -> unavailable; problem `type`s decide
 *   not_found / suspended / protected.
 */
import {
  SourceError,
  type MediaType,
  type RateBudget,
  type ReferenceType,
  type SourceMedia,
  type SourceProfile,
  type SourceTweet,
  type TimelinePage,
  type TimelineQuery,
  type TweetSource,
} from './types.js';
import { abortReason, sleep } from './sleep.js';

export interface XApiSourceOptions {
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
  /** Retries after the first attempt for 5xx/network errors. Default 3. */
  maxRetries?: number;
  /** Wait for a spent budget when it resets within this many ms, else throw. Default 60,000. */
  maxRateLimitWaitMs?: number;
}

/** The rate-limit buckets this source uses (X counts each endpoint separately). */
export type XEndpoint = 'users/by/username' | 'users/tweets' | 'tweets';

const USER_FIELDS = 'public_metrics,protected,created_at,name';
const TWEET_FIELDS =
  'created_at,lang,public_metrics,conversation_id,in_reply_to_user_id,referenced_tweets,entities,attachments';
const MEDIA_FIELDS = 'type,url,preview_image_url';
const HANDLE_RE = /^[A-Za-z0-9_]{1,15}$/;

// Wire shapes: only the fields read here, all optional because X omits what it likes.
interface WireProblem {
  type?: string;
  title?: string;
  detail?: string;
  status?: number;
  message?: string;
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
interface WireTweet {
  id: string;
  text: string;
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
  entities?: {
    hashtags?: { tag: string }[];
    urls?: { expanded_url?: string; url?: string; media_key?: string }[];
  };
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
  includes?: { media?: WireMedia[] };
  meta?: { next_token?: string; result_count?: number };
}

interface Budget {
  limit: number;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}

const REFERENCE_TYPES: readonly string[] = ['retweeted', 'quoted', 'replied_to'];
const MEDIA_TYPES: readonly string[] = ['photo', 'video', 'animated_gif'];

const endsWith = (problem: WireProblem, kind: string) =>
  typeof problem.type === 'string' && problem.type.endsWith(`/${kind}`);

/** Maps `errors` of a 200 without data (or a 404 body) to the source error they mean. */
function userProblem(body: WireBody<unknown>, fallback: string): SourceError | null {
  const problems = body.errors ?? [];
  const first = problems[0];
  for (const problem of problems) {
    const text = `${problem.title ?? ''} ${problem.detail ?? ''}`;
    if (endsWith(problem, 'not-authorized-for-resource')) {
      return new SourceError('protected', problem.detail ?? fallback);
    }
    if (/suspend/i.test(text) || endsWith(problem, 'user-suspended')) {
      return new SourceError('suspended', problem.detail ?? fallback);
    }
    if (endsWith(problem, 'resource-not-found')) {
      return new SourceError('not_found', problem.detail ?? fallback);
    }
  }
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

function toTweet(raw: WireTweet, mediaByKey: Map<string, WireMedia>): SourceTweet {
  const metrics = raw.public_metrics ?? {};
  const media: SourceMedia[] = [];
  for (const key of raw.attachments?.media_keys ?? []) {
    const item = mediaByKey.get(key);
    if (!item || !MEDIA_TYPES.includes(item.type)) continue;
    media.push({
      type: item.type as MediaType,
      url: item.url ?? null,
      previewUrl: item.preview_image_url ?? null,
    });
  }
  return {
    id: raw.id,
    text: unescapeXText(raw.text),
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
    hashtags: (raw.entities?.hashtags ?? []).map((h) => h.tag),
    // Attached media also appear as t.co url entities carrying a media_key: those are not links.
    urls: (raw.entities?.urls ?? [])
      .filter((u) => u.media_key === undefined)
      .map((u) => u.expanded_url ?? u.url)
      .filter((u): u is string => typeof u === 'string'),
    media,
  };
}

function mediaIndex(body: WireBody<unknown>): Map<string, WireMedia> {
  return new Map((body.includes?.media ?? []).map((m) => [m.media_key, m]));
}

function headerInt(headers: Headers, name: string): number | null {
  const value = headers.get(name);
  if (value === null || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

/** Creates the X API v2 source. One instance per bearer token: it owns the rate budgets. */
export function createXApiSource(options: XApiSourceOptions): TweetSource {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitMs = options.maxRateLimitWaitMs ?? 60_000;
  const budgets = new Map<XEndpoint, Budget>();

  function recordBudget(endpoint: XEndpoint, headers: Headers): void {
    const limit = headerInt(headers, 'x-rate-limit-limit');
    const remaining = headerInt(headers, 'x-rate-limit-remaining');
    const reset = headerInt(headers, 'x-rate-limit-reset');
    if (limit === null || remaining === null || reset === null) return;
    const resetAt = reset * 1000;
    const known = budgets.get(endpoint);
    // Responses to concurrent requests can arrive out of order: within one window keep the lowest.
    const sameWindow = known !== undefined && known.resetAt === resetAt;
    budgets.set(endpoint, {
      limit,
      remaining: sameWindow ? Math.min(known.remaining, remaining) : remaining,
      resetAt,
    });
  }

  /** Waits for, or refuses, a request on a spent budget; reserves one request otherwise. */
  async function takeBudget(endpoint: XEndpoint, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const budget = budgets.get(endpoint);
      if (!budget) return;
      const wait = budget.resetAt - now();
      // Window over: the next response tells the new budget.
      if (wait <= 0) return;
      if (budget.remaining > 0) {
        budget.remaining -= 1;
        return;
      }
      if (wait > maxWaitMs) {
        throw new SourceError('rate_limited', `X API rate limit reached (${endpoint})`, wait);
      }
      // A little past the reset instant, so our clock and X's agree the window is over.
      await sleep(wait + 50, signal);
    }
  }

  async function request<T>(
    endpoint: XEndpoint,
    path: string,
    query: Record<string, string | undefined>,
    signal?: AbortSignal,
  ): Promise<{ status: number; body: WireBody<T> }> {
    const url = new URL(baseUrl + path);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    for (let attempt = 0; ; attempt++) {
      await takeBudget(endpoint, signal);
      let response: Response;
      try {
        response = await doFetch(url, {
          headers: { authorization: `Bearer ${options.bearerToken}`, accept: 'application/json' },
          signal,
        });
      } catch (error) {
        if (signal?.aborted) throw abortReason(signal);
        if (attempt < maxRetries) {
          await backoff(attempt, signal);
          continue;
        }
        throw new SourceError('unavailable', `X API unreachable: ${(error as Error).message}`);
      }
      recordBudget(endpoint, response.headers);
      const body = (await response.json().catch(() => ({}))) as WireBody<T> & WireProblem;
      const status = response.status;
      const detail = body.detail ?? body.title ?? body.errors?.[0]?.message ?? `HTTP ${status}`;
      if (status === 429) {
        // Usage caps (monthly) answer 429 with budget left: no point retrying this window.
        const resetAt = (headerInt(response.headers, 'x-rate-limit-reset') ?? 0) * 1000;
        const capped = endsWith(body, 'usage-capped');
        const retryAfterMs = capped ? 24 * 3_600_000 : Math.max(1_000, resetAt - now());
        const budget = budgets.get(endpoint);
        if (budget && !capped) budget.remaining = 0;
        throw new SourceError('rate_limited', `X API: ${detail}`, retryAfterMs);
      }
      if (status === 401 || status === 402 || status === 403) {
        throw new SourceError('auth', `X API refused the credentials (${status}): ${detail}`);
      }
      if (status >= 500) {
        if (attempt < maxRetries) {
          await backoff(attempt, signal);
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
      return { status, body };
    }
  }

  function backoff(attempt: number, signal?: AbortSignal): Promise<void> {
    const delay = retryBaseMs * 2 ** attempt;
    return sleep(delay + Math.random() * delay, signal);
  }

  return {
    name: 'x-api',

    async lookupUser(username, signal): Promise<SourceProfile> {
      if (!HANDLE_RE.test(username)) {
        throw new SourceError('not_found', `Not a valid X username: ${username}`);
      }
      const { body } = await request<WireUser>(
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
    },

    async timeline(query: TimelineQuery, signal): Promise<TimelinePage> {
      const maxResults = Math.min(100, Math.max(5, Math.round(query.maxResults ?? 100)));
      const { body } = await request<WireTweet[]>(
        'users/tweets',
        `/2/users/${encodeURIComponent(query.xUserId)}/tweets`,
        {
          max_results: String(maxResults),
          start_time: query.startTime,
          end_time: query.endTime,
          since_id: query.sinceId,
          pagination_token: query.cursor,
          'tweet.fields': TWEET_FIELDS,
          expansions: 'attachments.media_keys',
          'media.fields': MEDIA_FIELDS,
        },
        signal,
      );
      if (!body.data) {
        // An empty page has only meta; errors without data mean the user cannot be read.
        const problem = userProblem(body, `Cannot read the timeline of ${query.xUserId}`);
        if (problem) throw problem;
        return { tweets: [], nextCursor: null };
      }
      const media = mediaIndex(body);
      return {
        tweets: body.data.map((raw) => toTweet(raw, media)),
        nextCursor: body.meta?.next_token ?? null,
      };
    },

    async tweetsByIds(ids, signal): Promise<SourceTweet[]> {
      const wanted = ids.filter((id) => /^[0-9]{1,19}$/.test(id)).slice(0, 100);
      if (wanted.length === 0) return [];
      const { body } = await request<WireTweet[]>(
        'tweets',
        '/2/tweets',
        {
          ids: wanted.join(','),
          'tweet.fields': TWEET_FIELDS,
          expansions: 'attachments.media_keys',
          'media.fields': MEDIA_FIELDS,
        },
        signal,
      );
      // Deleted or hidden tweets come back in `errors`: they are simply left out.
      const media = mediaIndex(body);
      return (body.data ?? []).map((raw) => toTweet(raw, media));
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
  };
}
