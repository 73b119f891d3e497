import { analyticsBlocksSchema } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { computeAnalytics, computeBlocks } from './compute.js';
import { enhancedContent, threadPerformance, topTweets, prepareWindow } from './index.js';
import {
  at,
  makeInput,
  makeMetricSnapshot,
  makeProfileSnapshot,
  makeTweet,
  retweetsOnlyTypes,
  X_USER_ID,
} from './test-factories.js';
import type { AnalyticsInput, AnalyticsTweet, MetricSnapshot } from './types.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A small deterministic generator, so the data set is the same every run. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/**
 * A month of a busy account in New York (across the March DST change) with retweets, replies,
 * threads, media, links, tags, languages, and metric and profile snapshots; some tweets and
 * snapshots fall outside the window.
 */
function generatedInput(tweetCount: number): AnalyticsInput {
  const random = lcg(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const start = at('2026-02-20T05:00:00.000Z');
  const end = start + 30 * DAY;
  const tweets: AnalyticsTweet[] = [];
  const metricSnapshots: MetricSnapshot[] = [];
  for (let i = 0; i < tweetCount; i++) {
    const id = String(1_900_000_000_000_000_000n + BigInt(i) * 4_096n);
    const createdAt = start - 2 * DAY + Math.floor(random() * 34 * DAY);
    const previous = tweets[tweets.length - 1];
    const threadReply = previous !== undefined && random() < 0.1;
    const kind = random();
    const likes = Math.floor(Math.exp(random() * 9));
    tweets.push(
      makeTweet({
        id,
        text: `${pick(['Shipping', 'Reading', 'Building', 'Thinking about'])} ${pick(['rust', 'typescript', 'coffee', 'databases'])} today @friend https://t.co/${i}`,
        createdAt,
        lang: pick(['en', 'en', 'es', 'de', null, '']),
        likes,
        retweets: Math.floor(likes * random() * 0.3),
        replies: Math.floor(likes * random() * 0.1),
        quotes: Math.floor(likes * random() * 0.05),
        conversationId: threadReply ? previous.conversationId : id,
        inReplyToUserId: threadReply ? X_USER_ID : kind < 0.2 ? '2002' : null,
        isReply: threadReply || kind < 0.2,
        isRetweet: !threadReply && kind > 0.9,
        isQuote: kind > 0.8 && kind <= 0.9,
        hashtags: random() < 0.4 ? [pick(['AI', 'ai', 'Rust', 'rust', 'TypeScript'])] : [],
        urls: random() < 0.2 ? [pick(['https://example.org/a', 'https://x.com/a/status/1'])] : [],
        media:
          random() < 0.3
            ? [
                {
                  type: pick(['photo', 'video', 'animated_gif'] as const),
                  url: null,
                  previewUrl: 'https://img.example/p.jpg',
                },
              ]
            : [],
      }),
    );
    if (i % 4 === 0) {
      for (const hours of [0.5, 2, 5, 9]) {
        metricSnapshots.push(
          makeMetricSnapshot(id, createdAt + hours * HOUR, {
            likes: Math.floor((likes * hours) / 9),
          }),
        );
      }
    }
  }
  const profileSnapshots = Array.from({ length: 100 }, (_, i) =>
    makeProfileSnapshot(new Date(start - 5 * DAY + i * 9 * HOUR).toISOString(), 5_000 + i * 7, 300),
  );
  return makeInput({
    tweets,
    metricSnapshots,
    profileSnapshots,
    window: { start, end },
    timezone: 'America/New_York',
  });
}

describe('computeAnalytics', () => {
  it('returns every block in the shape of the shared contract for a generated month', () => {
    const input = generatedInput(3_000);
    const blocks = computeAnalytics(input);
    expect(analyticsBlocksSchema.parse(blocks)).toEqual(blocks);
    const posts = blocks.summary.total_tweets;
    expect(posts).toBeGreaterThan(2_000);
    // Every view of the posts counts the same posts.
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    expect(sum(blocks.postingPatterns.heatmap.flat())).toBe(posts);
    expect(sum(blocks.timeSeries.series.map((point) => point.tweets))).toBe(posts);
    expect(sum(blocks.engagementDistribution.buckets.map((bucket) => bucket.count))).toBe(posts);
    expect(sum(blocks.languages.languages.map((lang) => lang.count))).toBe(posts);
    const types = blocks.contentTypes;
    expect(types.text + types.image + types.video + types.link).toBe(posts);
    // 30 days from 00:00 EST: 31 local dates, one day 23 hours long.
    expect(blocks.timeSeries.series).toHaveLength(31);
    expect(blocks.topTweets.tweets).toHaveLength(10);
    expect(blocks.velocity.posts_measured_6h).toBeGreaterThan(0);
    expect(blocks.threadPerformance.thread_count).toBeGreaterThan(0);
  });

  it('passes the options to top tweets, hashtags and words', () => {
    const input = generatedInput(500);
    const blocks = computeAnalytics(input, {
      topTweetsSort: 'engagement',
      topTweetsLimit: 3,
      hashtagsLimit: 2,
      wordsLimit: 4,
    });
    expect(blocks.topTweets).toEqual(topTweets(prepareWindow(input), 'engagement', 3));
    expect(blocks.hashtags.hashtags).toHaveLength(2);
    expect(blocks.words.words).toHaveLength(4);
  });

  it('equals the single block functions for the blocks it assembles', () => {
    const prepared = prepareWindow(generatedInput(500));
    const blocks = computeBlocks(prepared);
    expect(blocks.enhancedContent).toEqual(enhancedContent(prepared));
    expect(blocks.threadPerformance).toEqual(threadPerformance(prepared));
    expect(blocks.enhancedContent.contentTypes).toEqual(blocks.contentTypes);
    expect(blocks.summary.growth_rate).toBe(blocks.growth.growth_rate);
    expect(blocks.engagement.engagementRate).toBe(blocks.summary.engagement_rate);
  });

  it('counts only the retweets of a retweet-only window', () => {
    const blocks = computeAnalytics(
      makeInput({
        tweets: [
          makeTweet({
            id: '1',
            isRetweet: true,
            likes: 40,
            hashtags: ['AI'],
            text: 'RT @a: hello world',
          }),
          makeTweet({
            id: '2',
            isRetweet: true,
            retweets: 9,
            createdAt: at('2026-03-15T09:00:00.000Z'),
          }),
        ],
        metricSnapshots: [makeMetricSnapshot('1', at('2026-03-10T14:00:00.000Z'), { likes: 40 })],
        profileSnapshots: [makeProfileSnapshot('2026-03-02T00:00:00.000Z', 100)],
      }),
    );
    expect(blocks.contentTypes).toEqual(retweetsOnlyTypes(2));
    expect(blocks.summary).toMatchObject({
      total_tweets: 0,
      total_likes: 0,
      total_retweets: 0,
      avg_engagement: 0,
      engagement_rate: 0,
      peak_day: null,
      peak_hour: null,
      peak_times: [],
      followers: 100,
    });
    expect(blocks.topTweets.tweets).toEqual([]);
    expect(blocks.hashtags.hashtags).toEqual([]);
    expect(blocks.words.words).toEqual([]);
    expect(blocks.velocity.posts_measured_1h).toBe(0);
    expect(blocks.viral.viral_tweet_count).toBe(0);
    expect(blocks.timeSeries.series.every((point) => point.tweets === 0)).toBe(true);
  });

  it('computes an empty window with no data at all', () => {
    const blocks = computeAnalytics(makeInput());
    expect(analyticsBlocksSchema.parse(blocks)).toEqual(blocks);
    expect(blocks.timeSeries.series).toHaveLength(31);
    expect(blocks.growth).toEqual({ series: [], net_change: null, growth_rate: null });
    expect(blocks.interactionBreakdown).toEqual({ likes: 0, retweets: 0, replies: 0, quotes: 0 });
  });
});
