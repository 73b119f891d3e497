import { FILTER_MESSAGES, PLACEHOLDER_TWITTER_USERNAME } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import type { NotificationChannel } from '../db/types.js';
import {
  fanOutDeliveries,
  goesAsDigest,
  type FanOutFollower,
  type FanOutTweet,
} from './fan-out-rules.js';

const HANDLE = 7;
const HANDLE_X_ID = '1000';

const tweet = (overrides: Partial<FanOutTweet> = {}): FanOutTweet => ({
  handle_id: HANDLE,
  tweet_id: '111',
  referenced_types: '[]',
  in_reply_to_user_id: null,
  text: 'A new post about the giveaway',
  media: '[]',
  x_user_id: HANDLE_X_ID,
  ...overrides,
});

/** A follower with both channels connected and on, Twitter connected, no filter. */
const follower = (overrides: Partial<FanOutFollower> = {}): FanOutFollower => ({
  user_id: 1,
  handle_id: HANDLE,
  telegram_enabled: true,
  discord_enabled: 1,
  telegram_chat_id: '42',
  telegram_stopped_reason: null,
  discord_user_id: '123456789',
  discord_stopped_reason: null,
  twitter_username: 'reader',
  x_username: null,
  notification_preferences: null,
  filter_include: null,
  filter_exclude: null,
  filter_media_only: null,
  ...overrides,
});

const BOTH: NotificationChannel[] = ['telegram', 'discord'];
const none = JSON.stringify({
  include_replies: false,
  include_retweets: false,
  include_quotes: false,
});

/** Each case: one tweet, one follower; what each channel gets (null: held back by nothing). */
const cases: {
  name: string;
  tweet?: Partial<FanOutTweet>;
  follower?: Partial<FanOutFollower>;
  channels?: NotificationChannel[];
  /** channel -> held-back reason (null: to be sent); channels missing get nothing. */
  expected: Partial<Record<NotificationChannel, string | null>>;
}[] = [
  { name: 'both channels connected and on', expected: { telegram: null, discord: null } },
  {
    name: 'only the channels this server delivers on',
    channels: ['discord'],
    expected: { discord: null },
  },
  {
    name: 'a channel switched off for the handle',
    follower: { telegram_enabled: 0 },
    expected: { discord: null },
  },
  {
    name: 'a channel not connected',
    follower: { discord_user_id: null },
    expected: { telegram: null },
  },
  {
    name: 'a stopped channel',
    follower: { telegram_stopped_reason: 'You blocked the bot' },
    expected: { discord: null },
  },
  {
    name: 'Twitter not connected (the placeholder username)',
    follower: { twitter_username: PLACEHOLDER_TWITTER_USERNAME },
    expected: {},
  },
  {
    name: 'Twitter not connected (no username)',
    follower: { twitter_username: null },
    expected: {},
  },
  {
    name: 'Twitter connected through an X account',
    follower: { twitter_username: PLACEHOLDER_TWITTER_USERNAME, x_username: 'reader' },
    expected: { telegram: null, discord: null },
  },
  {
    name: 'a reply, replies switched off',
    tweet: { referenced_types: '["replied_to"]', in_reply_to_user_id: '2000' },
    follower: { notification_preferences: none },
    expected: {},
  },
  {
    name: 'a thread of the handle is not a reply',
    tweet: { referenced_types: '["replied_to"]', in_reply_to_user_id: HANDLE_X_ID },
    follower: { notification_preferences: none },
    expected: { telegram: null, discord: null },
  },
  {
    name: 'a repost, reposts switched off',
    tweet: { referenced_types: '["retweeted"]' },
    follower: { notification_preferences: '{"include_retweets":false}' },
    expected: {},
  },
  {
    name: 'a quote, quotes switched off',
    tweet: { referenced_types: '["quoted"]' },
    follower: { notification_preferences: '{"include_quotes":false}' },
    expected: {},
  },
  {
    name: 'a quote, only replies switched off',
    tweet: { referenced_types: '["quoted"]' },
    follower: { notification_preferences: '{"include_replies":false}' },
    expected: { telegram: null, discord: null },
  },
  {
    name: 'an excluded term holds the tweet back on both channels',
    follower: { filter_exclude: '["giveaway"]' },
    expected: {
      telegram: FILTER_MESSAGES.heldBackContains('giveaway'),
      discord: FILTER_MESSAGES.heldBackContains('giveaway'),
    },
  },
  {
    name: 'media only, a tweet without media',
    follower: { filter_media_only: 1 },
    expected: {
      telegram: FILTER_MESSAGES.heldBackNoMedia,
      discord: FILTER_MESSAGES.heldBackNoMedia,
    },
  },
  {
    name: 'media only, a tweet with a photo',
    tweet: { media: '[{"type":"photo"}]' },
    follower: { filter_media_only: true },
    expected: { telegram: null, discord: null },
  },
  {
    name: 'included terms, none in the tweet',
    follower: { filter_include: '["launch","release"]', discord_enabled: false },
    expected: { telegram: FILTER_MESSAGES.heldBackNoneOf(['launch', 'release']) },
  },
  {
    name: 'included terms, one in the tweet',
    follower: { filter_include: '["Giveaway"]' },
    expected: { telegram: null, discord: null },
  },
];

describe('fan-out rules', () => {
  it.each(cases)('$name', ({ tweet: t, follower: f, channels, expected }) => {
    const deliveries = fanOutDeliveries([tweet(t)], [follower(f)], channels ?? BOTH);
    expect(Object.fromEntries(deliveries.map((d) => [d.channel, d.heldBackReason]))).toEqual(
      expected,
    );
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ user_id: 1, handle_id: HANDLE, tweet_id: '111' });
    }
  });

  it('goes tweet by tweet, then follower by follower, Telegram before Discord', () => {
    const other = { handle_id: 8, x_user_id: '3000' };
    const deliveries = fanOutDeliveries(
      [tweet({ tweet_id: 'a' }), tweet({ tweet_id: 'b', ...other }), tweet({ tweet_id: 'c' })],
      [
        follower({ user_id: 1 }),
        follower({ user_id: 2, discord_user_id: null }),
        follower({ user_id: 3, handle_id: 8 }),
      ],
      BOTH,
    );
    expect(deliveries.map((d) => `${d.tweet_id}:${d.user_id}:${d.channel}`)).toEqual([
      'a:1:telegram',
      'a:1:discord',
      'a:2:telegram',
      'b:3:telegram',
      'b:3:discord',
      'c:1:telegram',
      'c:1:discord',
      'c:2:telegram',
    ]);
  });

  it('gives a tweet of a handle nobody follows no deliveries', () => {
    expect(fanOutDeliveries([tweet({ handle_id: 99 })], [follower()], BOTH)).toEqual([]);
  });
});

describe('digest rule', () => {
  it.each([
    { waiting: 6, digestAfter: 5, digest: true },
    { waiting: 5, digestAfter: 5, digest: false },
    { waiting: 1, digestAfter: 5, digest: false },
    { waiting: 50, digestAfter: 0, digest: false },
    { waiting: 2, digestAfter: 1, digest: true },
  ])('$waiting waiting, digest after $digestAfter: $digest', ({ waiting, digestAfter, digest }) => {
    expect(goesAsDigest(waiting, digestAfter)).toBe(digest);
  });
});
