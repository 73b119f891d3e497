/** The post reads of the x-api source: a page of a user's timeline, up to 100 posts by id. */
import type { SourceTweet, TimelinePage, TimelineQuery } from '../../domain/tweet-source.js';
import { postReads, reportBilledReads } from './x-api-billing.js';
import type { XApiContext } from './x-api-client.js';
import { tweetsOf } from './x-api-mapping.js';
import { userProblem } from './x-api-problems.js';
import { tweetIdsToAsk } from '../x-ids.js';
import {
  MEDIA_FIELDS,
  TWEET_EXPANSIONS,
  TWEET_FIELDS,
  TWEET_USER_FIELDS,
  type WireTweet,
} from './x-api-wire.js';

/** The fields and expansions of every post read: media, and the full text of retweets. */
const TWEET_QUERY = {
  'tweet.fields': TWEET_FIELDS,
  expansions: TWEET_EXPANSIONS,
  'media.fields': MEDIA_FIELDS,
  'user.fields': TWEET_USER_FIELDS,
};

/** TweetSource.timeline: one page of a user's posts, newest first. */
export async function readTimeline(
  { client, onBilledReads }: XApiContext,
  query: TimelineQuery,
  signal?: AbortSignal,
): Promise<TimelinePage> {
  const maxResults = Math.min(100, Math.max(5, Math.round(query.maxResults ?? 100)));
  const body = await client.request<WireTweet[]>(
    'users/tweets',
    `/2/users/${encodeURIComponent(query.xUserId)}/tweets`,
    {
      max_results: String(maxResults),
      start_time: query.startTime,
      end_time: query.endTime,
      since_id: query.sinceId,
      pagination_token: query.cursor,
      ...TWEET_QUERY,
    },
    signal,
  );
  await reportBilledReads(onBilledReads, postReads(body, query.xUserId));
  if (!body.data) {
    // An empty page has only meta; errors without data mean the user cannot be read.
    const problem = userProblem(body, `Cannot read the timeline of ${query.xUserId}`);
    if (problem) throw problem;
    return { tweets: [], nextCursor: null };
  }
  return { tweets: tweetsOf(body), nextCursor: body.meta?.next_token ?? null };
}

/** TweetSource.tweetsByIds: the first 100 distinct valid ids, with their includes. */
export async function tweetsByIds(
  { client, onBilledReads }: XApiContext,
  ids: string[],
  signal?: AbortSignal,
): Promise<SourceTweet[]> {
  const wanted = tweetIdsToAsk(ids);
  if (wanted.length === 0) return [];
  const body = await client.request<WireTweet[]>(
    'tweets',
    '/2/tweets',
    { ids: wanted.join(','), ...TWEET_QUERY },
    signal,
  );
  await reportBilledReads(onBilledReads, postReads(body, null));
  // Deleted or hidden tweets come back in `errors`: they are simply left out.
  return tweetsOf(body);
}
