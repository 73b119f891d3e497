/**
 * The x-web source's mapping of X's web GraphQL objects, on the shapes X sends (as twscrape,
 * Nitter and RSSHub read them): long posts, retweets, quotes, replies, media, views, HTML
 * escapes, visibility wrappers, and both the older (legacy) and newer (core, privacy) user shapes.
 * The paths over HTTP are in test/x-web.test.ts and the contract suite.
 */
import { describe, expect, it } from 'vitest';
import { totpCode } from './x-web-http.js';
import { toSourceProfile, toSourceTweet } from './x-web-parse.js';

const author = {
  __typename: 'User',
  rest_id: '11348282',
  core: { screen_name: 'NASA', name: 'NASA' },
  legacy: { screen_name: 'NASA', name: 'NASA' },
};

describe('x-web mapping', () => {
  it('takes a long post whole from note_tweet, unescaped once, with its entities', () => {
    const tweet = toSourceTweet({
      __typename: 'Tweet',
      rest_id: '1900000000000000001',
      core: { user_results: { result: author } },
      views: { count: '12345' },
      note_tweet: {
        note_tweet_results: {
          result: {
            text: `${'a'.repeat(300)} &lt;b&gt; &amp;lt; #Moon`,
            entity_set: {
              hashtags: [{ text: 'Moon' }],
              urls: [{ expanded_url: 'https://nasa.gov/moon', url: 'https://t.co/x' }],
            },
          },
        },
      },
      legacy: {
        full_text: `${'a'.repeat(275)}…`,
        created_at: 'Wed Oct 10 20:19:24 +0000 2018',
        lang: 'en',
        favorite_count: 5,
        retweet_count: 4,
        reply_count: 3,
        quote_count: 2,
        conversation_id_str: '1900000000000000001',
        entities: { hashtags: [], urls: [] },
      },
    });
    expect(tweet).toEqual({
      id: '1900000000000000001',
      text: `${'a'.repeat(300)} <b> &lt; #Moon`,
      createdAt: '2018-10-10T20:19:24.000Z',
      lang: 'en',
      likeCount: 5,
      retweetCount: 4,
      replyCount: 3,
      quoteCount: 2,
      impressionCount: 12345,
      conversationId: '1900000000000000001',
      inReplyToUserId: null,
      referencedTypes: [],
      hashtags: ['Moon'],
      urls: ['https://nasa.gov/moon'],
      media: [],
    });
  });

  it("rebuilds a retweet's whole text and takes the shared post's entities and media", () => {
    const shared = {
      __typename: 'TweetWithVisibilityResults',
      tweet: {
        __typename: 'Tweet',
        rest_id: '1800000000000000000',
        core: {
          user_results: { result: { ...author, core: { screen_name: 'esa', name: 'ESA' } } },
        },
        legacy: {
          full_text: 'Launch window opens today #Ariane',
          entities: { hashtags: [{ text: 'Ariane' }], urls: [] },
          extended_entities: {
            media: [
              { type: 'video', media_url_https: 'https://pbs.twimg.com/v.jpg' },
              { type: 'photo', media_url_https: 'https://pbs.twimg.com/p.jpg' },
            ],
          },
        },
      },
    };
    const tweet = toSourceTweet({
      __typename: 'Tweet',
      rest_id: '1900000000000000002',
      legacy: {
        full_text: 'RT @esa: Launch window opens tod…',
        created_at: 'Thu Oct 11 08:00:00 +0000 2018',
        retweeted_status_result: { result: shared },
        entities: { hashtags: [], urls: [] },
      },
    });
    expect(tweet.text).toBe('RT @esa: Launch window opens today #Ariane');
    expect(tweet.referencedTypes).toEqual(['retweeted']);
    expect(tweet.hashtags).toEqual(['Ariane']);
    expect(tweet.media).toEqual([
      { type: 'video', url: null, previewUrl: 'https://pbs.twimg.com/v.jpg' },
      { type: 'photo', url: 'https://pbs.twimg.com/p.jpg', previewUrl: null },
    ]);
    // No views on the wire: unknown, not zero.
    expect(tweet.impressionCount).toBeNull();
  });

  it('marks quotes and replies', () => {
    const quote = toSourceTweet({
      rest_id: '3',
      legacy: { full_text: 'Look', is_quote_status: true, quoted_status_id_str: '2' },
    });
    expect(quote.referencedTypes).toEqual(['quoted']);
    const reply = toSourceTweet({
      rest_id: '4',
      legacy: {
        full_text: '@esa congrats',
        in_reply_to_status_id_str: '1',
        in_reply_to_user_id_str: '99',
      },
    });
    expect(reply).toMatchObject({ referencedTypes: ['replied_to'], inReplyToUserId: '99' });
  });

  it('reads profiles in the older and the newer user shapes, and none of an unavailable user', () => {
    const counts = {
      followers_count: 10,
      friends_count: 2,
      statuses_count: 7,
      favourites_count: 1,
    };
    expect(
      toSourceProfile({
        __typename: 'User',
        rest_id: '1',
        legacy: { screen_name: 'old_shape', name: 'Old', protected: true, ...counts },
      }),
    ).toEqual({
      xUserId: '1',
      username: 'old_shape',
      name: 'Old',
      followersCount: 10,
      followingCount: 2,
      tweetCount: 7,
      likeCount: 1,
      protected: true,
      avatarUrl: null,
      verified: false,
    });
    expect(
      toSourceProfile({
        __typename: 'User',
        rest_id: '2',
        core: { screen_name: 'new_shape', name: 'New' },
        privacy: { protected: false },
        legacy: counts,
      }),
    ).toMatchObject({ username: 'new_shape', name: 'New', protected: false });
    expect(toSourceProfile({ __typename: 'UserUnavailable', reason: 'Suspended' })).toBeNull();
  });

  it('computes RFC 6238 codes (the test vector of its appendix B, SHA-1)', () => {
    // Secret "12345678901234567890" in base32; at 59 s the 8-digit code is 94287082.
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(totpCode(secret, 59_000)).toBe('287082');
    expect(totpCode(secret, 1_111_111_109_000)).toBe('081804');
  });
});
