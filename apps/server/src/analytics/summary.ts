import { WEEKDAYS, type Summary } from '@perch/shared';
import { growthRate } from './growth.js';
import { postingCounts, topIndices } from './posting-patterns.js';
import { average, perFollowers } from './stats.js';
import type { PreparedWindow } from './window.js';

/** How many heatmap cells `peak_times` lists. */
const PEAK_TIMES_SHOWN = 3;
const HOURS_PER_DAY = 24;

/** avg_engagement / followers x 100: the engagement rate every block reports. */
export function engagementRate(prepared: PreparedWindow): number | null {
  return perFollowers(
    average(prepared.totals.engagement, prepared.posts.length),
    prepared.followers,
  );
}

/** The summary block: totals, averages, rates and peak posting times of the window's posts. */
export function summary(prepared: PreparedWindow): Summary {
  const { posts, totals } = prepared;
  const { heatmap, hourly, daily } = postingCounts(posts);
  const peakDay = topIndices(daily, 1)[0];
  const peakHour = topIndices(hourly, 1)[0];
  // Flattened as weekday x 24 + hour, so index order is weekday then hour (the tie order).
  const cells = heatmap.flat();
  return {
    handle: prepared.handle,
    twitter_username: prepared.handle,
    total_tweets: posts.length,
    total_likes: totals.likes,
    total_retweets: totals.retweets,
    total_replies: totals.replies,
    total_quotes: totals.quotes,
    avg_likes_per_tweet: average(totals.likes, posts.length),
    avg_retweets_per_tweet: average(totals.retweets, posts.length),
    avg_replies_per_tweet: average(totals.replies, posts.length),
    avg_engagement: average(totals.engagement, posts.length),
    engagement_rate: engagementRate(prepared),
    growth_rate: growthRate(prepared.profileSnapshots),
    peak_day: peakDay === undefined ? null : WEEKDAYS[peakDay]!,
    peak_hour: peakHour ?? null,
    peak_times: topIndices(cells, PEAK_TIMES_SHOWN).map((cell) => ({
      day: WEEKDAYS[Math.floor(cell / HOURS_PER_DAY)]!,
      hour: cell % HOURS_PER_DAY,
      count: cells[cell]!,
    })),
    followers: prepared.followers,
    following: prepared.following,
  };
}
