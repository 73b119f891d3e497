import { tweetSchema } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { toApiTweet } from './api-tweet.js';
import { at, makeTweet } from './test-factories.js';

describe('toApiTweet', () => {
  it('builds the API tweet object that the tweets list shows', () => {
    const tweet = makeTweet({
      id: '1899000000000000001',
      text: 'New release #Perch https://t.co/x',
      createdAt: at('2026-03-10T08:15:30.250Z'),
      lang: 'en',
      likes: 12,
      retweets: 3,
      replies: 2,
      quotes: 1,
      impressions: 900,
      conversationId: '1899000000000000000',
      inReplyToUserId: '1001',
      isReply: true,
      isQuote: true,
      hashtags: ['Perch'],
      urls: ['https://perch.example/release'],
      media: [
        { type: 'photo', url: 'https://img.example/1.jpg', previewUrl: null },
        { type: 'animated_gif', url: null, previewUrl: 'https://img.example/2.jpg' },
        { type: 'video', url: null, previewUrl: null },
      ],
    });
    const apiTweet = toApiTweet(tweet, 'Perch_Dev');
    expect(apiTweet).toEqual({
      id: '1899000000000000001',
      text: 'New release #Perch https://t.co/x',
      created_at: '2026-03-10T08:15:30.250Z',
      url: 'https://x.com/Perch_Dev/status/1899000000000000001',
      like_count: 12,
      retweet_count: 3,
      reply_count: 2,
      quote_count: 1,
      impression_count: 900,
      lang: 'en',
      is_retweet: false,
      is_quote: true,
      is_reply: true,
      has_photo: true,
      has_video: true,
      media_urls: ['https://img.example/1.jpg', 'https://img.example/2.jpg'],
      media: [
        { type: 'photo', url: 'https://img.example/1.jpg', preview_url: null },
        { type: 'animated_gif', url: null, preview_url: 'https://img.example/2.jpg' },
        { type: 'video', url: null, preview_url: null },
      ],
      hashtags: ['Perch'],
      urls: ['https://perch.example/release'],
      conversation_id: '1899000000000000000',
      in_reply_to_user_id: '1001',
    });
    expect(tweetSchema.parse(apiTweet)).toEqual(apiTweet);
  });

  it('says a retweet without media has neither photo nor video', () => {
    const apiTweet = toApiTweet(makeTweet({ id: '7', isRetweet: true, lang: null }), 'a');
    expect(apiTweet).toMatchObject({
      is_retweet: true,
      has_photo: false,
      has_video: false,
      media_urls: [],
      lang: null,
      created_at: '2026-03-10T12:00:00.000Z',
    });
  });
});
