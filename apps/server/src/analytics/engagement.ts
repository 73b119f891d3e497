import {
  CONTENT_TYPES,
  ENGAGEMENT_BUCKETS,
  type ContentType,
  type Engagement,
  type EngagementBucket,
  type EngagementDistribution,
  type InteractionBreakdown,
} from '@perch/shared';
import { average } from './stats.js';
import { engagementRate } from './summary.js';
import type { PreparedWindow } from './window.js';

/** The engagement block: per-post averages and average engagement per content type. */
export function engagement(prepared: PreparedWindow): Engagement {
  const { posts, totals } = prepared;
  const sums: Record<ContentType, number> = { text: 0, image: 0, video: 0, link: 0 };
  const counts: Record<ContentType, number> = { text: 0, image: 0, video: 0, link: 0 };
  for (const post of posts) {
    sums[post.contentType] += post.engagement;
    counts[post.contentType] += 1;
  }
  const byType = { text: 0, image: 0, video: 0, link: 0 };
  for (const type of CONTENT_TYPES) byType[type] = average(sums[type], counts[type]);
  const rate = engagementRate(prepared);
  return {
    engagementRate: rate,
    averages: {
      likes: average(totals.likes, posts.length),
      retweets: average(totals.retweets, posts.length),
      replies: average(totals.replies, posts.length),
      quote_count: average(totals.quotes, posts.length),
      engagement_rate: rate,
    },
    engagementByType: byType,
  };
}

/** The ENGAGEMENT_BUCKETS index of an engagement: 0, 1-9, 10-99, 100-999, 1k-9.9k, 10k+. */
function bucketIndex(value: number): number {
  if (value <= 0) return 0;
  if (value < 10) return 1;
  if (value < 100) return 2;
  if (value < 1_000) return 3;
  if (value < 10_000) return 4;
  return 5;
}

/** The engagement-distribution block: posts per engagement bucket, every bucket present. */
export function engagementDistribution(prepared: PreparedWindow): EngagementDistribution {
  const counts = new Array<number>(ENGAGEMENT_BUCKETS.length).fill(0);
  for (const post of prepared.posts) counts[bucketIndex(post.engagement)]! += 1;
  return {
    buckets: ENGAGEMENT_BUCKETS.map((bucket: EngagementBucket, index) => ({
      bucket,
      count: counts[index]!,
    })),
  };
}

/** The interaction-breakdown block: each kind's share of total engagement in percent. */
export function interactionBreakdown(prepared: PreparedWindow): InteractionBreakdown {
  const { likes, retweets, replies, quotes, engagement: total } = prepared.totals;
  const share = (part: number) => (total === 0 ? 0 : (part / total) * 100);
  return {
    likes: share(likes),
    retweets: share(retweets),
    replies: share(replies),
    quotes: share(quotes),
  };
}
