import { ENGAGEMENT_BUCKETS } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { engagement, engagementDistribution, interactionBreakdown } from './engagement.js';
import { makeProfileSnapshot, makeTweet, prepare } from './test-factories.js';

const photo = { type: 'photo', url: null, previewUrl: null } as const;

describe('engagement', () => {
  it('averages per post and per content type, with the summary rate', () => {
    const prepared = prepare({
      tweets: [
        makeTweet({ id: '1', likes: 8, retweets: 2, replies: 1, quotes: 1 }),
        makeTweet({ id: '2', likes: 2, retweets: 0, replies: 3, quotes: 1 }),
        makeTweet({ id: '3', likes: 20, retweets: 4, replies: 2, quotes: 2, media: [photo] }),
        makeTweet({ id: '4', likes: 2, urls: ['https://example.org'] }),
        makeTweet({ id: '5', likes: 50, isRetweet: true }),
      ],
      profileSnapshots: [makeProfileSnapshot('2026-03-03T00:00:00.000Z', 50)],
    });
    expect(engagement(prepared)).toEqual({
      // (12 + 6 + 28 + 2) / 4 = 12; 12 / 50 x 100 = 24.
      engagementRate: 24,
      averages: { likes: 8, retweets: 1.5, replies: 1.5, quote_count: 1, engagement_rate: 24 },
      engagementByType: { text: 9, image: 28, video: 0, link: 2 },
    });
  });

  it('is all 0 with null rates for an empty window without followers', () => {
    expect(engagement(prepare())).toEqual({
      engagementRate: null,
      averages: { likes: 0, retweets: 0, replies: 0, quote_count: 0, engagement_rate: null },
      engagementByType: { text: 0, image: 0, video: 0, link: 0 },
    });
  });
});

describe('engagementDistribution', () => {
  it('puts each post in its bucket at the bucket edges, all buckets present', () => {
    const counts = [0, 1, 9, 10, 99, 100, 999, 1_000, 9_999, 10_000, 250_000, 5];
    const prepared = prepare({
      tweets: [
        ...counts.map((likes, index) => makeTweet({ id: String(index + 1), likes })),
        makeTweet({ id: '99', likes: 7, isRetweet: true }),
      ],
    });
    expect(engagementDistribution(prepared)).toEqual({
      buckets: [
        { bucket: '0', count: 1 },
        { bucket: '1-9', count: 3 },
        { bucket: '10-99', count: 2 },
        { bucket: '100-999', count: 2 },
        { bucket: '1k-9.9k', count: 2 },
        { bucket: '10k+', count: 2 },
      ],
    });
  });

  it('lists the six buckets at 0 for an empty window', () => {
    expect(engagementDistribution(prepare()).buckets.map((b) => [b.bucket, b.count])).toEqual(
      ENGAGEMENT_BUCKETS.map((bucket) => [bucket, 0]),
    );
  });
});

describe('interactionBreakdown', () => {
  it('gives each kind as a percentage of total engagement', () => {
    const prepared = prepare({
      tweets: [
        makeTweet({ id: '1', likes: 30, retweets: 10, replies: 5, quotes: 0 }),
        makeTweet({ id: '2', likes: 20, retweets: 10, replies: 15, quotes: 10 }),
        makeTweet({ id: '3', likes: 1000, isRetweet: true }),
      ],
    });
    expect(interactionBreakdown(prepared)).toEqual({
      likes: 50,
      retweets: 20,
      replies: 20,
      quotes: 10,
    });
  });

  it('is all 0 when there is no engagement', () => {
    const prepared = prepare({ tweets: [makeTweet({ id: '1' })] });
    expect(interactionBreakdown(prepared)).toEqual({
      likes: 0,
      retweets: 0,
      replies: 0,
      quotes: 0,
    });
  });
});
