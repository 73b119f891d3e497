import { TOP_TWEETS_LIMIT, type TopTweetSort, type TopTweets } from '@perch/shared';
import { toApiTweet } from './api-tweet.js';
import { compareIds } from './stats.js';
import type { PreparedPost, PreparedWindow } from './window.js';

const SORT_VALUE: Record<TopTweetSort, (post: PreparedPost) => number> = {
  like_count: (post) => post.tweet.likes,
  retweet_count: (post) => post.tweet.retweets,
  reply_count: (post) => post.tweet.replies,
  quote_count: (post) => post.tweet.quotes,
  engagement: (post) => post.engagement,
};

/**
 * Selects the `limit` best posts by one pass with a small sorted buffer, so ranking 100,000
 * posts for a top 10 costs no full sort.
 */
function selectTop(
  posts: readonly PreparedPost[],
  limit: number,
  compare: (a: PreparedPost, b: PreparedPost) => number,
): PreparedPost[] {
  const best: PreparedPost[] = [];
  if (limit <= 0) return best;
  for (const post of posts) {
    if (best.length === limit && compare(post, best[limit - 1]!) >= 0) continue;
    let index = best.length === limit ? limit - 1 : best.length;
    best[index] = post;
    while (index > 0 && compare(best[index]!, best[index - 1]!) < 0) {
      [best[index], best[index - 1]] = [best[index - 1]!, best[index]!];
      index -= 1;
    }
  }
  return best;
}

/** The `limit` best posts by `sortBy` descending, ties newest first (then larger id). */
export function topPosts(
  prepared: PreparedWindow,
  sortBy: TopTweetSort = 'like_count',
  limit: number = TOP_TWEETS_LIMIT,
): PreparedPost[] {
  const value = SORT_VALUE[sortBy];
  return selectTop(
    prepared.posts,
    limit,
    (a, b) =>
      value(b) - value(a) ||
      b.tweet.createdAt - a.tweet.createdAt ||
      compareIds(b.tweet.id, a.tweet.id),
  );
}

/**
 * The top-tweets block: posts by `sortBy` descending, ties newest first (then larger id);
 * at most `limit` (default 10).
 */
export function topTweets(
  prepared: PreparedWindow,
  sortBy: TopTweetSort = 'like_count',
  limit: number = TOP_TWEETS_LIMIT,
): TopTweets {
  return {
    sort_by: sortBy,
    tweets: topPosts(prepared, sortBy, limit).map((post) => ({
      ...toApiTweet(post.tweet, prepared.handle),
      engagement: post.engagement,
    })),
  };
}
