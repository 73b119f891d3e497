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
 *   cut here, with a cursor of ours (x-web-timeline-walk.ts).
 */
import { tweetIdsToAsk, userIdsToAsk } from '../x-ids.js';
import type { Kysely } from 'kysely';
import { X_WEB_OPERATIONS } from '@perch/shared';
import type { Database } from '../../db/types.js';
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
import {
  createGraphqlClient,
  type GraphqlCall,
  type OperationsInUse,
  type XWebRequestOptions,
} from './x-web-graphql.js';
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
import { TimelineWalk, type WebPage } from './x-web-timeline-walk.js';

export interface XWebSourceOptions extends XWebRequestOptions {
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
  /** Tests: how long a request waits for a busy account (default 60 s). */
  busyWaitMs?: number;
}

const HANDLE_RE = /^[A-Za-z0-9_]{1,15}$/;
/** Web pages read at most per timeline() call before answering a short page. */
const MAX_WEB_PAGES = 10;
/** Posts asked per web page (as x.com's client and twscrape ask; X may answer fewer). */
const WEB_PAGE_SIZE = 40;
const newestFirst = (a: { id: string }, b: { id: string }) =>
  BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0;

/** What the source's reads need: the GraphQL call, the pool and the clock. */
interface WebReads {
  graphql: (...args: Parameters<GraphqlCall>) => Promise<WireBody>;
  pool: XWebPool;
  now: () => number;
}

async function lookupUser(
  web: WebReads,
  username: string,
  signal?: AbortSignal,
): Promise<SourceProfile> {
  if (!HANDLE_RE.test(username)) {
    throw new SourceError('not_found', `Not a valid X username: ${username}`);
  }
  const body = await web.graphql(
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

/** Every operation's budget over the active accounts, as X's headers told it. */
function rateStatus(web: WebReads): RateStatus {
  const at = web.now();
  const active = web.pool.known().filter((row) => row.status === 'ACTIVE');
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
async function readPage(
  web: WebReads,
  xUserId: string,
  webCursor: string | null,
  signal?: AbortSignal,
): Promise<WebPage> {
  const body = await web.graphql(
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

async function timeline(
  web: WebReads,
  query: TimelineQuery,
  signal?: AbortSignal,
): Promise<TimelinePage> {
  const walk = new TimelineWalk(query);
  for (let pages = 0; pages < MAX_WEB_PAGES; pages++) {
    const done = walk.add(await readPage(web, query.xUserId, walk.state.c, signal));
    if (done) return done;
  }
  return walk.page();
}

async function usersByIds(web: WebReads, ids: string[], signal?: AbortSignal): Promise<UsersById> {
  const { asked, missing } = userIdsToAsk(ids);
  if (asked.length === 0) return { profiles: [], missing };
  const body = await web.graphql(
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
}

async function tweetsByIds(
  web: WebReads,
  ids: string[],
  signal?: AbortSignal,
): Promise<SourceTweet[]> {
  const wanted = tweetIdsToAsk(ids);
  if (wanted.length === 0) return [];
  const body = await web.graphql(
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
}

/** The timeline's budget (the collector paces backfills and polls by it). */
function rateBudget(web: WebReads): RateBudget {
  const timeline = rateStatus(web).endpoints.find((e) => e.endpoint === 'UserTweetsAndReplies');
  return timeline
    ? { limit: timeline.limit, remaining: timeline.remaining, resetAt: timeline.resetAt }
    : { limit: null, remaining: null, resetAt: null };
}

/** The pool, the operations, the transaction ids and the GraphQL call, wired to one another. */
function wire(options: XWebSourceOptions) {
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
    sleep: options.sleep,
  });
  const graphql = async (...args: Parameters<GraphqlCall>) => (await call(...args)) as WireBody;
  return { pool, operations, transactionIds, reads: { graphql, pool, now } satisfies WebReads };
}

export function createXWebSource(
  options: XWebSourceOptions,
): TweetSource & { pool: XWebPool; operations: OperationsInUse; transactionIds: TransactionIds } {
  const { pool, operations, transactionIds, reads } = wire(options);
  return {
    name: 'x-web',
    timelineDepth: 3_200,
    pool,
    operations,
    transactionIds,
    lookupUser: (username, signal) => lookupUser(reads, username, signal),
    timeline: (query, signal) => timeline(reads, query, signal),
    usersByIds: (ids, signal) => usersByIds(reads, ids, signal),
    tweetsByIds: (ids, signal) => tweetsByIds(reads, ids, signal),
    /** The timeline's budget (the collector paces backfills and polls by it). */
    rateBudget: () => rateBudget(reads),
    rateStatus: () => rateStatus(reads),
  };
}

export { restMs };
