import type { Viral } from '@perch/shared';
import { average, median, perFollowers } from './stats.js';
import type { PreparedWindow } from './window.js';

/** A post is viral from this engagement on, however quiet the account. */
const MIN_VIRAL_THRESHOLD = 10;
/** ... and from this multiple of the window's median engagement. */
const VIRAL_MEDIAN_FACTOR = 3;

/** The viral block: posts far above the account's usual engagement, and how far posts spread. */
export function viral(prepared: PreparedWindow): Viral {
  const { posts, totals } = prepared;
  const engagements = new Float64Array(posts.length);
  posts.forEach((post, index) => (engagements[index] = post.engagement));
  const threshold = Math.max(MIN_VIRAL_THRESHOLD, VIRAL_MEDIAN_FACTOR * median(engagements));
  let viralCount = 0;
  for (const value of engagements) if (value >= threshold) viralCount += 1;
  const shared = totals.retweets + totals.quotes;
  return {
    threshold,
    viral_tweet_count: viralCount,
    score: average(viralCount, posts.length) * 100,
    amplification_factor: average(shared, posts.length),
    coefficient: shared / Math.max(1, totals.likes),
    network_amplification: perFollowers(shared, prepared.followers),
  };
}
