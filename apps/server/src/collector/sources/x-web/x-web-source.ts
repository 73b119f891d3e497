/**
 * The `x-web` tweet source (TWEET_SOURCE=x-web): X's private web GraphQL API, as x.com itself,
 * twscrape, Nitter and RSSHub call it, with a pool of signed-in collector accounts (see
 * x-web-pool.ts). It may break whenever X changes that API, and X may limit the accounts.
 *
 * - Operations: UserByScreenName (lookup), UserTweets (timeline), UsersByRestIds (profiles by
 *   id), TweetResultsByRestIds (tweets by id), with the web client's headers and features.
 * - Limits: X's x-rate-limit-* headers are kept per account and per operation; a spent one rests
 *   the account for that operation until its reset and the request goes to another account.
 * - Errors: 326 locked, 64 suspended, 32/89/401/403 ended session take the account out; 88 or a
 *   429 rests it; 5xx and network failures are retried, then 'unavailable'.
 * - Timeline: X's web timeline has no time window or since_id; pages are read newest first and
 *   cut to [startTime, endTime) and past sinceId here. The cursor is ours: X's cursor of the page
 *   to read and the last id returned, so a page cut short resumes exactly where it stopped.
 */
import type { Kysely } from 'kysely';
import { X_WEB_OPERATIONS, type XWebOperation } from '@perch/shared';
import type { Database } from '../../../db/types.js';
import type { XRequestMetrics } from '../../../lib/metrics.js';
import type { TokenCipher } from '../../../lib/token-cipher.js';
import { abortReason, sleep } from '../../../lib/sleep.js';
import {
  SourceError,
  type EndpointBudget,
  type MediaType,
  type RateBudget,
  type RateStatus,
  type SourceMedia,
  type SourceProfile,
  type SourceTweet,
  type TimelinePage,
  type TimelineQuery,
  type TweetSource,
  type UsersById,
} from '../types.js';
import {
  X_WEB_FEATURES,
  X_WEB_OPERATION_PATHS,
  X_WEB_USER_FEATURES,
  webHeaders,
} from './x-web-http.js';
import { createLoginFlow } from './x-web-login.js';
import {
  createXWebPool,
  HEADERLESS_REST_MS,
  parseLimits,
  restMs,
  type Lease,
  type XWebPool,
} from './x-web-pool.js';

export interface XWebSourceOptions {
  db: Kysely<Database>;
  cipher: TokenCipher;
  /** X_WEB_BASE_URL (https://x.com): GraphQL at /i/api/graphql. */
  baseUrl: string;
  /** X_WEB_API_BASE_URL (https://api.x.com): the sign-in flow. */
  apiBaseUrl: string;
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
  retryBaseMs?: number;
  maxRetries?: number;
  metrics?: XRequestMetrics;
}

const HANDLE_RE = /^[A-Za-z0-9_]{1,15}$/;
const ID_RE = /^[0-9]{1,19}$/;
const MAX_IDS = 100;
/** Web pages read at most per timeline() call before answering a short page. */
const MAX_WEB_PAGES = 10;
/** Posts asked per web page (the web client and twscrape ask 40; X may answer fewer). */
const WEB_PAGE_SIZE = 40;
const LOCKED = 326;
const SUSPENDED = 64;
/** Could not authenticate (32), invalid or expired token (89), ct0 not matching (353). */
const BAD_AUTH = new Set([32, 89, 353]);
const RATE_LIMIT = 88;
const FEATURES_OUTDATED = 336;

// Wire shapes: only the fields read here.
interface WireUserResult {
  __typename?: string;
  rest_id?: string;
  reason?: string;
  core?: { screen_name?: string; name?: string };
  privacy?: { protected?: boolean };
  legacy?: {
    screen_name?: string;
    name?: string;
    followers_count?: number;
    friends_count?: number;
    statuses_count?: number;
    favourites_count?: number;
    protected?: boolean;
  };
}
interface WireEntities {
  hashtags?: { text: string }[];
  urls?: { expanded_url?: string; url?: string }[];
}
interface WireTweetResult {
  __typename?: string;
  rest_id?: string;
  tweet?: WireTweetResult;
  core?: { user_results?: { result?: WireUserResult } };
  views?: { count?: string };
  note_tweet?: { note_tweet_results?: { result?: { text?: string; entity_set?: WireEntities } } };
  legacy?: {
    full_text?: string;
    created_at?: string;
    lang?: string;
    favorite_count?: number;
    retweet_count?: number;
    reply_count?: number;
    quote_count?: number;
    conversation_id_str?: string;
    in_reply_to_user_id_str?: string;
    in_reply_to_status_id_str?: string;
    is_quote_status?: boolean;
    quoted_status_id_str?: string;
    user_id_str?: string;
    entities?: WireEntities;
    extended_entities?: { media?: { type: string; media_url_https?: string }[] };
    retweeted_status_result?: { result?: WireTweetResult };
  };
}
interface WireEntry {
  entryId?: string;
  content?: {
    cursorType?: string;
    value?: string;
    itemContent?: { tweet_results?: { result?: WireTweetResult } };
    items?: { item?: { itemContent?: { tweet_results?: { result?: WireTweetResult } } } }[];
  };
}
interface WireInstruction {
  type?: string;
  entries?: WireEntry[];
  entry?: WireEntry;
}
interface WireError {
  code?: number;
  message?: string;
}
interface WireBody {
  data?: {
    user?: {
      result?: WireUserResult & {
        timeline_v2?: { timeline?: { instructions?: WireInstruction[] } };
        timeline?: { timeline?: { instructions?: WireInstruction[] } };
      };
    };
    users?: { result?: WireUserResult }[];
    tweetResult?: { result?: WireTweetResult }[];
  };
  errors?: WireError[];
}

/** X escapes &, < and > in post text (as v1.1 did): unescaped once, &amp; last. */
function unescapeText(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/** A Tweet, or the tweet inside TweetWithVisibilityResults; null for tombstones. */
function tweetOf(result: WireTweetResult | undefined): WireTweetResult | null {
  if (!result) return null;
  if (result.__typename === 'TweetWithVisibilityResults') return tweetOf(result.tweet);
  return result.legacy && result.rest_id ? result : null;
}

function authorOf(tweet: WireTweetResult): WireUserResult | undefined {
  return tweet.core?.user_results?.result;
}

function screenName(user: WireUserResult | undefined): string | undefined {
  return user?.core?.screen_name ?? user?.legacy?.screen_name;
}

function ownText(tweet: WireTweetResult): { text: string; entities: WireEntities } {
  const note = tweet.note_tweet?.note_tweet_results?.result;
  if (note?.text !== undefined) {
    return { text: unescapeText(note.text), entities: note.entity_set ?? {} };
  }
  return {
    text: unescapeText(tweet.legacy?.full_text ?? ''),
    entities: tweet.legacy?.entities ?? {},
  };
}

/** Maps a web Tweet to a SourceTweet (same rules as x-api: a retweet's whole shared text). */
export function toSourceTweet(tweet: WireTweetResult): SourceTweet {
  const legacy = tweet.legacy ?? {};
  const shared = tweetOf(legacy.retweeted_status_result?.result);
  const sharedAuthor = shared ? screenName(authorOf(shared)) : undefined;
  const own = ownText(tweet);
  const body = shared && sharedAuthor ? ownText(shared) : null;
  const text = body ? `RT @${sharedAuthor}: ${body.text}` : own.text;
  const entities = body?.entities ?? own.entities;
  const media: SourceMedia[] = [];
  for (const item of (shared ?? tweet).legacy?.extended_entities?.media ?? []) {
    if (!['photo', 'video', 'animated_gif'].includes(item.type)) continue;
    const still = item.media_url_https ?? null;
    media.push(
      item.type === 'photo'
        ? { type: 'photo', url: still, previewUrl: null }
        : { type: item.type as MediaType, url: null, previewUrl: still },
    );
  }
  const referencedTypes: SourceTweet['referencedTypes'] = [];
  if (shared) referencedTypes.push('retweeted');
  if (!shared && (legacy.is_quote_status || legacy.quoted_status_id_str))
    referencedTypes.push('quoted');
  if (legacy.in_reply_to_status_id_str) referencedTypes.push('replied_to');
  const views = Number(tweet.views?.count);
  const createdAt = legacy.created_at ? Date.parse(legacy.created_at) : 0;
  return {
    id: tweet.rest_id!,
    text,
    createdAt: new Date(Number.isNaN(createdAt) ? 0 : createdAt).toISOString(),
    lang: legacy.lang ?? null,
    likeCount: legacy.favorite_count ?? 0,
    retweetCount: legacy.retweet_count ?? 0,
    replyCount: legacy.reply_count ?? 0,
    quoteCount: legacy.quote_count ?? 0,
    impressionCount: tweet.views?.count !== undefined && Number.isFinite(views) ? views : null,
    conversationId: legacy.conversation_id_str ?? null,
    inReplyToUserId: legacy.in_reply_to_user_id_str ?? null,
    referencedTypes,
    hashtags: (entities.hashtags ?? []).map((h) => h.text),
    urls: (entities.urls ?? [])
      .map((u) => u.expanded_url ?? u.url)
      .filter((u): u is string => typeof u === 'string'),
    media,
  };
}

/** A User result as a profile; null for UserUnavailable. */
export function toSourceProfile(user: WireUserResult): SourceProfile | null {
  if (user.__typename !== 'User' || !user.rest_id) return null;
  const legacy = user.legacy ?? {};
  const username = screenName(user) ?? '';
  return {
    xUserId: user.rest_id,
    username,
    name: user.core?.name ?? legacy.name ?? username,
    followersCount: legacy.followers_count ?? 0,
    followingCount: legacy.friends_count ?? 0,
    tweetCount: legacy.statuses_count ?? 0,
    likeCount: legacy.favourites_count ?? null,
    protected: user.privacy?.protected ?? legacy.protected === true,
  };
}

/** Why a user cannot be returned: UserUnavailable's reason, or no result at all. */
function unavailableKind(
  user: WireUserResult | undefined,
): 'not_found' | 'suspended' | 'protected' {
  const reason = user?.reason?.toLowerCase() ?? '';
  if (reason.includes('suspend')) return 'suspended';
  if (reason.includes('protect')) return 'protected';
  return 'not_found';
}

interface OurCursor {
  /** X's cursor of the web page to read; null: the first page. */
  c: string | null;
  /** The last id returned: only older posts are returned from that page on. */
  a: string | null;
}

function encodeCursor(cursor: OurCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function decodeCursor(value: string | undefined): OurCursor {
  if (!value) return { c: null, a: null };
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as OurCursor;
    return { c: typeof parsed.c === 'string' ? parsed.c : null, a: parsed.a ?? null };
  } catch {
    throw new SourceError('unavailable', 'Not a cursor of the x-web source');
  }
}

/** The posts and bottom cursor of a UserTweets page (pinned posts left out: out of order). */
function timelinePage(body: WireBody): { tweets: WireTweetResult[]; bottom: string | null } {
  const result = body.data?.user?.result;
  const instructions =
    result?.timeline_v2?.timeline?.instructions ?? result?.timeline?.timeline?.instructions ?? [];
  const tweets: WireTweetResult[] = [];
  let bottom: string | null = null;
  const take = (entry: WireEntry) => {
    const content = entry.content;
    if (content?.cursorType === 'Bottom' && content.value) bottom = content.value;
    const direct = tweetOf(content?.itemContent?.tweet_results?.result);
    if (direct) tweets.push(direct);
    for (const item of content?.items ?? []) {
      const nested = tweetOf(item.item?.itemContent?.tweet_results?.result);
      if (nested) tweets.push(nested);
    }
  };
  for (const instruction of instructions) {
    if (instruction.type === 'TimelinePinEntry') continue;
    for (const entry of instruction.entries ?? []) take(entry);
    if (instruction.type === 'TimelineReplaceEntry' && instruction.entry) take(instruction.entry);
  }
  return { tweets, bottom };
}

function headerInt(headers: Headers, name: string): number | null {
  const value = headers.get(name);
  if (value === null || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

export function createXWebSource(options: XWebSourceOptions): TweetSource & { pool: XWebPool } {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const maxRetries = options.maxRetries ?? 3;
  const pool = createXWebPool({
    db: options.db,
    cipher: options.cipher,
    now,
    login: createLoginFlow({ apiBaseUrl: options.apiBaseUrl, fetch: doFetch, now, timeoutMs }),
  });

  async function send(url: URL, lease: Lease, signal?: AbortSignal) {
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const response = await doFetch(url, {
      headers: webHeaders(lease.cookies, { 'content-type': 'application/json' }),
      signal: combined,
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** One GraphQL call, rotating accounts on limits and account errors; the body of a 200. */
  async function graphql(
    operation: XWebOperation,
    variables: Record<string, unknown>,
    features: Record<string, boolean>,
    signal?: AbortSignal,
  ): Promise<WireBody> {
    const url = new URL(`${baseUrl}/i/api/graphql/${X_WEB_OPERATION_PATHS[operation]}`);
    url.searchParams.set('variables', JSON.stringify(variables));
    url.searchParams.set('features', JSON.stringify(features));
    let failures = 0;
    for (let tries = 0; tries < 50; tries++) {
      const lease = await pool.acquire(operation);
      let answer;
      try {
        answer = await send(url, lease, signal);
      } catch (error) {
        if (signal?.aborted) throw abortReason(signal);
        options.metrics?.xRequest(operation, 0);
        if (failures++ < maxRetries) {
          await sleep(retryBaseMs * 2 ** failures * (1 + Math.random()), signal);
          continue;
        }
        throw new SourceError('unavailable', `X web unreachable: ${(error as Error).message}`);
      }
      const { status, headers } = answer;
      options.metrics?.xRequest(operation, status);
      let body: WireBody = {};
      try {
        body = JSON.parse(answer.text) as WireBody;
      } catch {
        // HTML error pages (Cloudflare): the status decides.
      }
      const errors = body.errors ?? [];
      const codes = new Set(errors.map((e) => e.code));
      const words = errors.map((e) => `(${e.code ?? '?'}) ${e.message ?? ''}`.trim()).join('; ');
      const remaining = headerInt(headers, 'x-rate-limit-remaining');
      const reset = headerInt(headers, 'x-rate-limit-reset');
      if (remaining !== null && reset !== null) {
        await pool.recordLimit(lease, operation, {
          limit: headerInt(headers, 'x-rate-limit-limit'),
          remaining,
          resetAt: reset * 1000,
        });
      }
      if (codes.has(LOCKED)) {
        await pool.takeOut(lease, 'LOCKED', `X locked the account: ${words}`);
        continue;
      }
      if (codes.has(SUSPENDED)) {
        await pool.takeOut(lease, 'SUSPENDED', `X suspended the account: ${words}`);
        continue;
      }
      if (
        [...BAD_AUTH].some((code) => codes.has(code)) ||
        status === 401 ||
        (status === 403 && errors.length === 0)
      ) {
        await pool.takeOut(
          lease,
          'EXPIRED',
          `X ended the session (${words || `HTTP ${status}`}): paste new cookies or reset it to sign in again`,
        );
        continue;
      }
      if (status === 429 || codes.has(RATE_LIMIT)) {
        const resetAt =
          reset !== null && reset * 1000 > now() ? reset * 1000 : now() + HEADERLESS_REST_MS;
        await pool.recordLimit(lease, operation, {
          limit: headerInt(headers, 'x-rate-limit-limit'),
          remaining: 0,
          resetAt,
        });
        await pool.noteError(
          lease,
          `Rate limited on ${operation} until ${new Date(resetAt).toISOString()}`,
        );
        continue;
      }
      if (codes.has(FEATURES_OUTDATED)) {
        throw new SourceError('unavailable', `X changed its web API (features): ${words}`);
      }
      if (status === 404) {
        throw new SourceError('unavailable', `X changed its web API: ${operation} answered 404`);
      }
      if (status >= 500 || (status !== 200 && status !== 400 && status !== 403)) {
        if (failures++ < maxRetries) {
          await sleep(retryBaseMs * 2 ** failures * (1 + Math.random()), signal);
          continue;
        }
        throw new SourceError('unavailable', `X web error ${status}${words ? `: ${words}` : ''}`);
      }
      if (status !== 200) {
        await pool.noteError(lease, `${operation}: HTTP ${status} ${words}`);
        throw new SourceError('unavailable', `X web refused ${operation} (${status}): ${words}`);
      }
      return body;
    }
    throw new SourceError('unavailable', `X web: ${operation} failed with every account`);
  }

  async function lookupUser(username: string, signal?: AbortSignal): Promise<SourceProfile> {
    if (!HANDLE_RE.test(username)) {
      throw new SourceError('not_found', `Not a valid X username: ${username}`);
    }
    const body = await graphql(
      'UserByScreenName',
      { screen_name: username, withSafetyModeUserFields: true },
      { ...X_WEB_FEATURES, ...X_WEB_USER_FEATURES },
      signal,
    );
    const result = body.data?.user?.result;
    const profile = result ? toSourceProfile(result) : null;
    if (profile) return profile;
    const kind = unavailableKind(result);
    const words = {
      not_found: 'Could not find user',
      suspended: 'Suspended user',
      protected: 'Protected user',
    };
    throw new SourceError(kind, `${words[kind]} ${username}`);
  }

  function rateStatus(): RateStatus {
    const at = now();
    const active = pool.known().filter((row) => row.status === 'ACTIVE');
    const endpoints: EndpointBudget[] = [];
    for (const operation of X_WEB_OPERATIONS) {
      const told = active
        .map((row) => parseLimits(row.limits)[operation])
        .filter((limit) => limit !== undefined);
      if (told.length === 0) continue;
      // The pool's budget: what every account has left (a reset window counts as full).
      const limitOf = (l: (typeof told)[number]) => l.limit ?? l.remaining;
      const limit = told.reduce((sum, l) => sum + limitOf(l), 0);
      const remaining = told.reduce(
        (sum, l) => sum + (l.resetAt <= at ? limitOf(l) : l.remaining),
        0,
      );
      const resetAt = Math.max(...told.map((l) => l.resetAt));
      endpoints.push({
        endpoint: operation,
        limit,
        remaining: Math.min(limit, remaining),
        resetAt: new Date(resetAt).toISOString(),
      });
    }
    return { endpoints, appDay: null };
  }

  return {
    name: 'x-web',
    timelineDepth: 3_200,
    pool,

    lookupUser,

    async timeline(query: TimelineQuery, signal): Promise<TimelinePage> {
      const maxResults = Math.min(100, Math.max(5, Math.round(query.maxResults ?? 100)));
      const start = query.startTime ? Date.parse(query.startTime) : null;
      const end = query.endTime ? Date.parse(query.endTime) : null;
      const since = query.sinceId ? BigInt(query.sinceId) : null;
      let { c: webCursor, a: after } = decodeCursor(query.cursor);
      const tweets: SourceTweet[] = [];
      for (let pages = 0; pages < MAX_WEB_PAGES; pages++) {
        const body = await graphql(
          'UserTweets',
          {
            userId: query.xUserId,
            count: WEB_PAGE_SIZE,
            includePromotedContent: false,
            withQuickPromoteEligibilityTweetFields: true,
            withVoice: true,
            withV2Timeline: true,
            ...(webCursor ? { cursor: webCursor } : {}),
          },
          X_WEB_FEATURES,
          signal,
        );
        const user = body.data?.user?.result;
        if (!user || user.__typename === 'UserUnavailable') {
          const kind = unavailableKind(user);
          throw new SourceError(kind, `Cannot read the timeline of ${query.xUserId} (${kind})`);
        }
        const page = timelinePage(body);
        const seen = new Set<string>();
        const posts = page.tweets
          .filter((t) => {
            const author = authorOf(t)?.rest_id ?? t.legacy?.user_id_str;
            return author === undefined || author === query.xUserId;
          })
          .filter((t) => !seen.has(t.rest_id!) && seen.add(t.rest_id!))
          .sort((a, b) => (BigInt(b.rest_id!) > BigInt(a.rest_id!) ? 1 : -1));
        if (posts.length === 0) return { tweets, nextCursor: null };
        let reachedEnd = false;
        for (const raw of posts) {
          const id = BigInt(raw.rest_id!);
          if (after !== null && id >= BigInt(after)) continue;
          const tweet = toSourceTweet(raw);
          const at = Date.parse(tweet.createdAt);
          if (end !== null && at >= end) continue;
          if ((start !== null && at < start) || (since !== null && id <= since)) {
            reachedEnd = true;
            break;
          }
          tweets.push(tweet);
          after = tweet.id;
          if (tweets.length === maxResults) {
            return { tweets, nextCursor: encodeCursor({ c: webCursor, a: after }) };
          }
        }
        if (reachedEnd || !page.bottom) return { tweets, nextCursor: null };
        webCursor = page.bottom;
        // The posts of the next page are all older than this one's: no id filter needed there,
        // but `after` is kept, so a cut resumes right.
      }
      return { tweets, nextCursor: encodeCursor({ c: webCursor, a: after }) };
    },

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
      const body = await graphql(
        'UsersByRestIds',
        { userIds: asked, withSafetyModeUserFields: true },
        { ...X_WEB_FEATURES, ...X_WEB_USER_FEATURES },
        signal,
      );
      const results = body.data?.users ?? [];
      const profiles: SourceProfile[] = [];
      // X answers in the order asked; an id it cannot return has an empty or unavailable result.
      asked.forEach((id, index) => {
        const result = results[index]?.result;
        const profile = result ? toSourceProfile(result) : null;
        if (profile && profile.xUserId === id) profiles.push(profile);
        else missing.push({ xUserId: id, kind: unavailableKind(result) });
      });
      return { profiles, missing };
    },

    async tweetsByIds(ids, signal): Promise<SourceTweet[]> {
      const wanted = [...new Set(ids.filter((id) => ID_RE.test(id)))].slice(0, MAX_IDS);
      if (wanted.length === 0) return [];
      const body = await graphql(
        'TweetResultsByRestIds',
        {
          tweetIds: wanted,
          withCommunity: false,
          includePromotedContent: false,
          withVoice: false,
        },
        X_WEB_FEATURES,
        signal,
      );
      return (body.data?.tweetResult ?? [])
        .map((entry) => tweetOf(entry.result))
        .filter((tweet): tweet is WireTweetResult => tweet !== null)
        .map(toSourceTweet);
    },

    rateBudget(): RateBudget {
      const timeline = rateStatus().endpoints.find((e) => e.endpoint === 'UserTweets');
      return timeline
        ? { limit: timeline.limit, remaining: timeline.remaining, resetAt: timeline.resetAt }
        : { limit: null, remaining: null, resetAt: null };
    },

    rateStatus,
  };
}

export { restMs };
