import { describe, expect, it } from 'vitest';
import { makeTweet, prepare, X_USER_ID } from './test-factories.js';
import { threadPerformance } from './threads.js';
import type { AnalyticsTweet } from './types.js';

const OTHER_USER = '2002';

/** A post of the handle in a conversation, replying to `replyTo`. */
const reply = (
  id: string,
  conversationId: string,
  replyTo: string,
  likes: number,
): AnalyticsTweet =>
  makeTweet({ id, conversationId, inReplyToUserId: replyTo, isReply: true, likes });

const tweets = [
  // Thread 100: a root and two replies to the handle itself; 10 + 5 + 3 = 18.
  makeTweet({ id: '100', likes: 10 }),
  reply('101', '100', X_USER_ID, 5),
  reply('102', '100', X_USER_ID, 3),
  // A reply to someone else in the same conversation is not part of the thread.
  reply('103', '100', OTHER_USER, 7),
  // Thread 200: two posts, also 18.
  makeTweet({ id: '200', likes: 2 }),
  reply('201', '200', X_USER_ID, 16),
  // A root without replies, and a self-reply whose root is not in the window.
  makeTweet({ id: '300', likes: 4 }),
  reply('401', '400', X_USER_ID, 1),
  // A retweet never belongs to a thread.
  makeTweet({ id: '500', conversationId: '100', inReplyToUserId: X_USER_ID, isRetweet: true }),
];

describe('threadPerformance', () => {
  it('finds threads and compares them with standalone posts', () => {
    expect(threadPerformance(prepare({ tweets }))).toEqual({
      thread_count: 2,
      // 5 thread posts over 2 threads.
      avg_thread_length: 2.5,
      avg_thread_engagement: 18,
      // Posts 103, 300 and 401: (7 + 4 + 1) / 3.
      avg_standalone_engagement: 4,
      // Equal engagement: the longer thread wins.
      best_thread: { conversation_id: '100', length: 3, engagement: 18 },
    });
  });

  it('breaks a full tie by the larger conversation id as a number', () => {
    const result = threadPerformance(
      prepare({
        tweets: [
          makeTweet({ id: '99', likes: 1 }),
          reply('990', '99', X_USER_ID, 4),
          makeTweet({ id: '100', likes: 2 }),
          reply('1000', '100', X_USER_ID, 3),
        ],
      }),
    );
    expect(result.best_thread).toEqual({ conversation_id: '100', length: 2, engagement: 5 });
    expect(result.avg_standalone_engagement).toBe(0);
  });

  it('has no threads without the handle user id', () => {
    expect(threadPerformance(prepare({ tweets, xUserId: null }))).toEqual({
      thread_count: 0,
      avg_thread_length: 0,
      avg_thread_engagement: 0,
      // All 8 posts: 10 + 5 + 3 + 7 + 2 + 16 + 4 + 1 = 48.
      avg_standalone_engagement: 6,
      best_thread: null,
    });
  });

  it('is zeros and null for an empty window', () => {
    expect(threadPerformance(prepare())).toEqual({
      thread_count: 0,
      avg_thread_length: 0,
      avg_thread_engagement: 0,
      avg_standalone_engagement: 0,
      best_thread: null,
    });
  });
});
