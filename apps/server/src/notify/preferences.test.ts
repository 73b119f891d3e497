import { describe, expect, it } from 'vitest';
import { defaultRetryDelayMs } from './delivery-worker.js';
import { allowsTweet, parsePreferences } from './preferences.js';

describe('notification preferences', () => {
  it('reads stored preferences over the defaults, ignoring junk', () => {
    expect(parsePreferences(null)).toEqual({
      include_replies: true,
      include_retweets: true,
      include_quotes: true,
    });
    expect(parsePreferences('{"include_replies":false,"other":1,"include_quotes":"no"}')).toEqual({
      include_replies: false,
      include_retweets: true,
      include_quotes: true,
    });
    expect(parsePreferences('not json')).toEqual(parsePreferences('{}'));
    expect(parsePreferences('[]')).toEqual(parsePreferences('{}'));
  });

  it('filters replies, retweets and quotes; a thread of the handle is not a reply', () => {
    const none = { include_replies: false, include_retweets: false, include_quotes: false };
    const tweet = (types: string[], inReplyTo: string | null = null) => ({
      referenced_types: JSON.stringify(types),
      in_reply_to_user_id: inReplyTo,
    });
    expect(allowsTweet(none, tweet([]), '1')).toBe(true);
    expect(allowsTweet(none, tweet(['replied_to'], '2'), '1')).toBe(false);
    expect(allowsTweet(none, tweet(['replied_to'], '1'), '1')).toBe(true);
    expect(allowsTweet(none, tweet(['retweeted']), '1')).toBe(false);
    expect(allowsTweet(none, tweet(['quoted']), '1')).toBe(false);
    expect(allowsTweet(parsePreferences('{}'), tweet(['quoted', 'replied_to'], '2'), '1')).toBe(
      true,
    );
  });
});

describe('delivery retry delay', () => {
  it('doubles from 2 s to at most 60 s (the probe period), with +-20 % jitter', () => {
    expect(defaultRetryDelayMs(1, () => 0.5)).toBe(2_000);
    expect(defaultRetryDelayMs(2, () => 0.5)).toBe(4_000);
    expect(defaultRetryDelayMs(5, () => 0.5)).toBe(32_000);
    expect(defaultRetryDelayMs(20, () => 0.5)).toBe(60_000);
    expect(defaultRetryDelayMs(1, () => 0)).toBe(1_600);
    expect(defaultRetryDelayMs(1, () => 1)).toBe(2_400);
  });
});
