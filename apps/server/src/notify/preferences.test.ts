import { describe, expect, it } from 'vitest';
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
