/**
 * The `x-api` tweet source: X API v2 with an app-only bearer token (docs/spec-notes.md, X API).
 *
 * - Rate limits: every response's `x-rate-limit-*` headers are kept per endpoint in the source
 *   instance (one token is shared by all handles), and `x-app-limit-24hour-*` for the whole app.
 *   No request is sent while a budget is spent: the source waits when the window resets within
 *   `maxRateLimitWaitMs` (60 s), else throws SourceError('rate_limited', ..., retryAfterMs). A
 *   429 without a usable reset header backs the endpoint off for 60 s, doubling per such 429 in a
 *   row (at most 15 min), and nothing is sent to it meanwhile (x-api/x-api-rate-limits.ts).
 * - Errors: 429 -> rate_limited; 402 -> credits; 401/403 -> auth (none retried); 5xx, network
 *   failures and requests that take longer than `timeoutMs` are retried with exponential backoff
 *   and jitter, then -> unavailable; problem `type`s decide not_found / suspended / protected
 *   (x-api/x-api-client.ts, x-api/x-api-problems.ts).
 * - Billing: X bills every post and user a response carries (pay-per-use, once per resource and
 *   UTC day). Each 200's posts and users are told to `onBilledReads` with the handle they were
 *   read for, so the cost meter sees exactly what X charges (x-api/x-api-billing.ts).
 * - Text: a long post's `text` is truncated by X, and so is a retweet's; the full text comes from
 *   `note_tweet` and from the retweeted post in `includes.tweets` (x-api/x-api-mapping.ts).
 */
import type { BilledReadsListener, TweetSource } from '../domain/tweet-source.js';
import { XApiClient, type XApiClientOptions, type XApiContext } from './x-api/x-api-client.js';
import { readTimeline, tweetsByIds } from './x-api/x-api-tweets.js';
import { lookupUser, usersByIds } from './x-api/x-api-users.js';

export { unescapeXText } from './x-api/x-api-mapping.js';
export type { XEndpoint } from './x-api/x-api-rate-limits.js';

export interface XApiSourceOptions extends XApiClientOptions {
  /**
   * Told of every post and user a 200 carried (the cost meter). Awaited, but its failure never
   * fails the request: the read has happened and been billed either way.
   */
  onBilledReads?: BilledReadsListener;
}

/** Creates the X API v2 source. One instance per bearer token: it owns the rate budgets. */
export function createXApiSource(options: XApiSourceOptions): TweetSource {
  const client = new XApiClient(options);
  const context: XApiContext = { client, onBilledReads: options.onBilledReads };
  return {
    name: 'x-api',
    timelineDepth: 3_200,
    lookupUser: (username, signal) => lookupUser(context, username, signal),
    usersByIds: (ids, signal) => usersByIds(context, ids, signal),
    timeline: (query, signal) => readTimeline(context, query, signal),
    tweetsByIds: (ids, signal) => tweetsByIds(context, ids, signal),
    rateBudget: () => client.limits.rateBudget(),
    rateStatus: () => client.limits.rateStatus(),
  };
}
