/**
 * The `x-web` tweet source (TWEET_SOURCE=x-web): X's private web GraphQL API, as x.com itself,
 * twscrape, Nitter and RSSHub call it, with a pool of signed-in collector accounts (see
 * x-web-pool.ts). X changes that API with its deployments; the source follows it by itself:
 * transaction ids from x.com's page (x-web-transaction.ts), query ids and features from
 * x.com's client bundle (x-web-operations.ts), and answers read as x-web-answer.ts says.
 *
 * - Operations: UserByScreenName (lookup), UserTweetsAndReplies (timeline: posts, replies,
 *   reposts and quotes, the same set as x-api's), UsersByRestIds (profiles by id),
 *   TweetResultsByRestIds (metrics by id).
 * - Timeline: X's web timeline has no time window or since_id; pages are read newest first and
 *   cut to [startTime, endTime) and past sinceId here. The cursor is ours: X's cursor of the page
 *   to read, the last id returned, the empty pages in a row and the pinned post not yet placed,
 *   so a page cut short resumes exactly where it stopped.
 */
import type { Kysely } from 'kysely';
import { X_WEB_OPERATIONS } from '@perch/shared';
import type { Database } from '../../db/types.js';
import type { XRequestMetrics } from '../../lib/metrics.js';
import type { TokenCipher } from '../../lib/token-cipher.js';
import {
  SourceError,
  type EndpointBudget,
  type RateBudget,
  type RateStatus,
  type SourceProfile,
  type SourceTweet,
  type TimelinePage,
  type TimelineQuery,
  type TweetSource,
  type UsersById,
} from '../../domain/tweet-source.js';
import type { ClientPageOptions } from './x-web-client-page.js';
import { createGraphqlClient, type OperationsInUse } from './x-web-graphql.js';
import { createLoginFlow } from './x-web-login.js';
import { createXWebOperations } from './x-web-operations.js';
import {
  authorIdOf,
  timelinePage,
  toSourceProfile,
  toSourceTweet,
  tweetOf,
  unavailableKind,
  type WireBody,
  type WireTweetResult,
} from './x-web-parse.js';
import {
  createXWebPool,
  parseLimits,
  REMAINING_MARGIN,
  restMs,
  type XWebPool,
} from './x-web-pool.js';
import { createTransactionIds, type TransactionIds } from './x-web-transaction.js';

export interface XWebSourceOptions {
  db: Kysely<Database>;
  cipher: TokenCipher;
  /** X_WEB_BASE_URL (https://x.com): the app page, its scripts, GraphQL at /i/api/graphql. */
  baseUrl: string;
  /** X_WEB_API_BASE_URL (https://api.x.com): the sign-in flow. */
  apiBaseUrl: string;
  /** X_WEB_OPERATIONS_FILE: operations pinned by the operator. */
  operationsFile?: string;
  /** X_WEB_OPERATIONS_RECHECK_SECONDS: the least time between two forced reads of the client. */
  operationsRecheckMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
  retryBaseMs?: number;
  maxRetries?: number;
  metrics?: XRequestMetrics;
  /** Tests: how long a request waits for a busy account (default 60 s). */
  busyWaitMs?: number;
}

const HANDLE_RE = /^[A-Za-z0-9_]{1,15}$/;
const ID_RE = /^[0-9]{1,19}$/;
const MAX_IDS = 100;
/** Web pages read at most per timeline() call before answering a short page. */
const MAX_WEB_PAGES = 10;
/** Posts asked per web page (as x.com's client and twscrape ask; X may answer fewer). */
const WEB_PAGE_SIZE = 40;
/** Pages in a row without a post of the user, with a cursor, after which the timeline ends. */
const EMPTY_PAGES_LIMIT = 3;

interface OurCursor {
  /** X's cursor of the web page to read; null: the first page. */
  c: string | null;
  /** The last id returned: only older posts are returned from that page on. */
  a: string | null;
  /** Pages in a row that held no post of the user (only pinned or promoted entries). */
  e: number;
  /** The pinned post, not yet returned in its place (X shows it only on top). */
  p: SourceTweet | null;
}

function encodeCursor(cursor: OurCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function decodeCursor(value: string | undefined): OurCursor {
  if (!value) return { c: null, a: null, e: 0, p: null };
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as OurCursor;
    return {
      c: typeof parsed.c === 'string' ? parsed.c : null,
      a: typeof parsed.a === 'string' ? parsed.a : null,
      e: typeof parsed.e === 'number' ? parsed.e : 0,
      p: parsed.p && typeof parsed.p.id === 'string' ? parsed.p : null,
    };
  } catch {
    throw new SourceError('unavailable', 'Not a cursor of the x-web source');
  }
}

const newestFirst = (a: { id: string }, b: { id: string }) =>
  BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0;

export function createXWebSource(
  options: XWebSourceOptions,
): TweetSource & { pool: XWebPool; operations: OperationsInUse; transactionIds: TransactionIds } {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const page: ClientPageOptions = { baseUrl: options.baseUrl, fetch: options.fetch, timeoutMs };
  // The pool's sign-in needs transaction ids and the ids read the page as a signed-in account:
  // `pool` exists before either calls the other.
  const cookies = () => pool.sessionCookies();
  const transactionIds = createTransactionIds({ page, cookies, now });
  const pool: XWebPool = createXWebPool({
    db: options.db,
    cipher: options.cipher,
    now,
    leaseMs: timeoutMs + 10_000,
    busyWaitMs: options.busyWaitMs,
    login: createLoginFlow({
      apiBaseUrl: options.apiBaseUrl,
      fetch: options.fetch,
      now,
      timeoutMs,
      transactionIds,
    }),
  });
  const operations = createXWebOperations({
    db: options.db,
    page,
    cookies,
    now,
    overridesFile: options.operationsFile,
    minForcedGapMs: options.operationsRecheckMs,
  });
  const call = createGraphqlClient({
    baseUrl: options.baseUrl,
    pool,
    operations,
    transactionIds,
    fetch: options.fetch,
    now,
    timeoutMs,
    retryBaseMs: options.retryBaseMs,
    maxRetries: options.maxRetries,
    metrics: options.metrics,
  });
  const graphql = async (...args: Parameters<typeof call>) => (await call(...args)) as WireBody;

  async function lookupUser(username: string, signal?: AbortSignal): Promise<SourceProfile> {
    if (!HANDLE_RE.test(username)) {
      throw new SourceError('not_found', `Not a valid X username: ${username}`);
    }
    const body = await graphql(
      'UserByScreenName',
      { screen_name: username, withSafetyModeUserFields: true },
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
      // The pool's budget: what every account may still spend, less the margin each keeps (a
      // reset window counts as full).
      const limitOf = (l: (typeof told)[number]) => l.limit ?? l.remaining;
      const usable = (count: number) => Math.max(0, count - REMAINING_MARGIN);
      const limit = told.reduce((sum, l) => sum + limitOf(l), 0);
      const remaining = told.reduce(
        (sum, l) => sum + usable(l.resetAt <= at ? limitOf(l) : l.remaining),
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

  /** One web page of the timeline: the user's own posts (newest first) and what else it held. */
  async function readPage(xUserId: string, webCursor: string | null, signal?: AbortSignal) {
    const body = await graphql(
      'UserTweetsAndReplies',
      {
        userId: xUserId,
        count: WEB_PAGE_SIZE,
        includePromotedContent: true,
        withCommunity: true,
        withVoice: true,
        withV2Timeline: true,
        ...(webCursor ? { cursor: webCursor } : {}),
      },
      signal,
    );
    const user = body.data?.user?.result;
    if (!user || user.__typename === 'UserUnavailable') {
      const kind = unavailableKind(user);
      throw new SourceError(kind, `Cannot read the timeline of ${xUserId} (${kind})`);
    }
    const parsed = timelinePage(body);
    const own = (t: WireTweetResult) => {
      const author = authorIdOf(t);
      return author === undefined || author === xUserId;
    };
    const seen = new Set<string>();
    const posts = parsed.tweets
      .filter(own)
      .filter((t) => !seen.has(t.rest_id!) && seen.add(t.rest_id!))
      .map(toSourceTweet)
      .sort(newestFirst);
    const pinned = parsed.pinned
      .map((t) => tweetOf(t))
      .filter((t): t is WireTweetResult => t !== null && own(t))
      .map(toSourceTweet);
    return { posts, pinned, bottom: parsed.bottomCursor };
  }

  return {
    name: 'x-web',
    timelineDepth: 3_200,
    pool,
    operations,
    transactionIds,

    lookupUser,

    async timeline(query: TimelineQuery, signal): Promise<TimelinePage> {
      const maxResults = Math.min(100, Math.max(5, Math.round(query.maxResults ?? 100)));
      const start = query.startTime ? Date.parse(query.startTime) : null;
      const end = query.endTime ? Date.parse(query.endTime) : null;
      const since = query.sinceId ? BigInt(query.sinceId) : null;
      const state = decodeCursor(query.cursor);
      const tweets: SourceTweet[] = [];
      const cursor = () => encodeCursor(state);
      /** Where a post stands against the window: take it, skip it, or the walk is done. */
      const place = (tweet: SourceTweet): 'take' | 'skip' | 'done' => {
        const id = BigInt(tweet.id);
        if (state.a !== null && id >= BigInt(state.a)) return 'skip';
        const at = Date.parse(tweet.createdAt);
        if (end !== null && at >= end) return 'skip';
        if ((start !== null && at < start) || (since !== null && id <= since)) return 'done';
        return 'take';
      };
      const take = (tweet: SourceTweet) => {
        tweets.push(tweet);
        state.a = tweet.id;
      };
      /** The pinned post, once the walk has passed its place (or the timeline ended). */
      const placePinned = (before: bigint | null) => {
        const pinned = state.p;
        if (!pinned || (before !== null && BigInt(pinned.id) < before)) return;
        state.p = null;
        if (place(pinned) === 'take') take(pinned);
      };
      const finish = (): TimelinePage => {
        placePinned(null);
        return { tweets, nextCursor: null };
      };
      for (let pages = 0; pages < MAX_WEB_PAGES; pages++) {
        const web = await readPage(query.xUserId, state.c, signal);
        if (state.c === null && state.a === null && state.p === null) {
          state.p = web.pinned.find((t) => place(t) === 'take') ?? null;
        }
        let done = false;
        for (const tweet of web.posts) {
          if (state.p?.id === tweet.id) state.p = null;
          placePinned(BigInt(tweet.id));
          if (tweets.length >= maxResults) return { tweets, nextCursor: cursor() };
          const verdict = place(tweet);
          if (verdict === 'done') {
            done = true;
            break;
          }
          if (verdict === 'take') take(tweet);
          if (tweets.length >= maxResults) return { tweets, nextCursor: cursor() };
        }
        if (done) return finish();
        // A page without a post of the user (only pinned or promoted entries) does not end the
        // timeline; a few in a row, no cursor, or a cursor X gives again do.
        state.e = web.posts.length === 0 ? state.e + 1 : 0;
        if (!web.bottom || web.bottom === state.c || state.e >= EMPTY_PAGES_LIMIT) return finish();
        state.c = web.bottom;
      }
      return { tweets, nextCursor: cursor() };
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
          includePromotedContent: false,
          withBirdwatchNotes: false,
          withVoice: false,
          withCommunity: false,
        },
        signal,
      );
      return (body.data?.tweetResult ?? [])
        .map((entry) => tweetOf(entry.result))
        .filter((tweet): tweet is WireTweetResult => tweet !== null)
        .map(toSourceTweet);
    },

    /** The timeline's budget (the collector paces backfills and polls by it). */
    rateBudget(): RateBudget {
      const timeline = rateStatus().endpoints.find((e) => e.endpoint === 'UserTweetsAndReplies');
      return timeline
        ? { limit: timeline.limit, remaining: timeline.remaining, resetAt: timeline.resetAt }
        : { limit: null, remaining: null, resetAt: null };
    },

    rateStatus,
  };
}

export { restMs };
