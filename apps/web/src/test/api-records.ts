import type { Handle, Tweet } from '@perch/shared';

/** Records as the API sends them, for tests of any feature. */

let nextId = 1;

/** A server handle record with sensible defaults (a finished backfill). */
export function makeHandle(overrides: Partial<Handle> & { handle: string }): Handle {
  const id = overrides.id ?? nextId++;
  return {
    id,
    twitter_username: overrides.handle,
    username: overrides.handle,
    created_at: '2025-03-01T00:00:00.000Z',
    added_at: '2025-03-01T00:00:00.000Z',
    backfill_days: 15,
    backfill_status: 'completed',
    backfill_progress: 100,
    initial_backfill_complete: true,
    backfill_completed_at: '2025-03-01T01:00:00.000Z',
    estimated_completion: null,
    total_tweets_collected: 120,
    tweets_count: 120,
    analytics_available: true,
    followers_count: 1000,
    following_count: 10,
    tweet_count: 5000,
    telegram_enabled: false,
    discord_enabled: false,
    last_error: null,
    ...overrides,
  };
}

/** A collected tweet with sensible defaults. */
export function makeTweet(overrides: Partial<Tweet> & { id: string }): Tweet {
  return {
    text: `Tweet ${overrides.id}`,
    created_at: '2025-03-10T11:00:00.000Z',
    url: `https://x.com/nasa/status/${overrides.id}`,
    like_count: 0,
    retweet_count: 0,
    reply_count: 0,
    quote_count: 0,
    impression_count: null,
    lang: 'en',
    is_retweet: false,
    is_quote: false,
    is_reply: false,
    has_photo: false,
    has_video: false,
    media_urls: [],
    media: [],
    hashtags: [],
    urls: [],
    conversation_id: null,
    in_reply_to_user_id: null,
    ...overrides,
  };
}
