import { describe, expect, it } from 'vitest';
import { contentTypes, enhancedContent, mediaStats } from './content.js';
import { makeTweet, prepare, retweetsOnlyTypes } from './test-factories.js';
import type { AnalyticsTweet } from './types.js';

const photo = { type: 'photo', url: 'https://img.example/p.jpg', previewUrl: null } as const;
const video = { type: 'video', url: null, previewUrl: 'https://img.example/v.jpg' } as const;
const gif = { type: 'animated_gif', url: null, previewUrl: null } as const;

const tweets: AnalyticsTweet[] = [
  makeTweet({ id: '1', media: [photo, photo], likes: 10 }),
  makeTweet({ id: '2', media: [photo, video], likes: 20, isReply: true }),
  makeTweet({ id: '3', media: [gif], likes: 6, isQuote: true }),
  makeTweet({ id: '4', urls: ['https://example.org/a'], likes: 3, isReply: true, isQuote: true }),
  makeTweet({ id: '5', urls: ['https://x.com/a/status/5'], likes: 1, isQuote: true }),
  makeTweet({ id: '6', likes: 2 }),
  makeTweet({ id: '7', media: [video], likes: 99, isRetweet: true }),
  makeTweet({ id: '8', isRetweet: true }),
];

describe('contentTypes', () => {
  it('puts each post in one type and counts retweets, replies and quotes', () => {
    expect(contentTypes(prepare({ tweets }))).toEqual({
      text: 2,
      image: 1,
      video: 2,
      link: 1,
      retweets: 2,
      replies: 2,
      quotes: 3,
    });
  });

  it('counts only retweets in a retweet-only window', () => {
    const only = tweets.filter((tweet) => tweet.isRetweet);
    expect(contentTypes(prepare({ tweets: only }))).toEqual(retweetsOnlyTypes(2));
  });
});

describe('mediaStats', () => {
  it('counts media items of posts and averages engagement with and without media', () => {
    expect(mediaStats(prepare({ tweets }))).toEqual({
      photos: 3,
      videos: 1,
      gifs: 1,
      posts_with_media: 3,
      // (10 + 20 + 6) / 3 and (3 + 1 + 2) / 3.
      avg_engagement_with_media: 12,
      avg_engagement_without_media: 2,
    });
  });

  it('averages to 0 when one side has no posts', () => {
    expect(mediaStats(prepare({ tweets: [makeTweet({ id: '1', likes: 4 })] }))).toEqual({
      photos: 0,
      videos: 0,
      gifs: 0,
      posts_with_media: 0,
      avg_engagement_with_media: 0,
      avg_engagement_without_media: 4,
    });
  });
});

describe('enhancedContent', () => {
  it('combines the media counts, content types and thread performance', () => {
    expect(enhancedContent(prepare({ tweets }))).toEqual({
      mediaBreakdown: { photos: 3, videos: 1, gifs: 1, posts_with_media: 3 },
      contentTypes: { text: 2, image: 1, video: 2, link: 1, retweets: 2, replies: 2, quotes: 3 },
      threadAnalysis: {
        thread_count: 0,
        avg_thread_length: 0,
        avg_thread_engagement: 0,
        // (10 + 20 + 6 + 3 + 1 + 2) / 6.
        avg_standalone_engagement: 7,
        best_thread: null,
      },
    });
  });
});
