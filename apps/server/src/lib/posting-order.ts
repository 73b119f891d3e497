/**
 * The order in which posts were posted, the one every list, feed and delivery follows:
 * - `created_at` first. X gives it to the second, and a thread's posts often share one.
 * - Then the post id, an X snowflake that grows with time: a decimal string of up to 19 digits
 *   without leading zeros, so a longer id is newer and ids of one length compare as text. Text
 *   alone is wrong ('999' after '1000'), and a cast to a number differs between the databases.
 * - Never our storage id: sources list posts newest first, and posts of one second may be
 *   stored by separate calls in any order.
 *
 * Newest-first lists take the reverse: a tie goes to the larger id first.
 */

/** What posting order reads of a post. */
export interface PostingKey {
  /** Time of posting as stored: ISO 8601 in UTC, one format, so text order is time order. */
  createdAt: string;
  /** The post's X id (decimal), never a storage id. */
  id: string;
}

/** Orders X post ids by value: negative when `a` is older. */
export function comparePostIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Oldest first: by time of posting, then by post id; the same order as the SQL's. */
export function comparePostingOrder(a: PostingKey, b: PostingKey): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return comparePostIds(a.id, b.id);
}
