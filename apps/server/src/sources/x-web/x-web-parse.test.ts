/**
 * Reading X's web GraphQL answers as X sends them in late 2026 (fixtures in
 * test/fixtures/x-web, written by hand on the shapes twscrape and Nitter record): the 2026 user
 * shape and its legacy fallback, badges, unavailable users, a UserTweetsAndReplies page with its
 * pinned, promoted, tombstoned, wrapped, long, retweeted, quoted and reply posts, a page of only
 * pinned and promoted entries, and errors without data.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  authorIdOf,
  graphqlErrors,
  hasData,
  timelinePage,
  toSourceProfile,
  toSourceTweet,
  tweetOf,
  unavailableKind,
  type WireBody,
  type WireTweetResult,
  type WireUserResult,
} from './x-web-parse.js';

function fixture(name: string): WireBody {
  const file = new URL(`../../../test/fixtures/x-web/${name}`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as WireBody;
}

const ORBIT = '1456789012345678901';
const MIRA = '987654321';

function usersByRestIds(): (WireUserResult | null | undefined)[] {
  return (fixture('users-by-rest-ids.json').data?.users ?? []).map((entry) => entry.result);
}

describe('x-web users', () => {
  it('reads the 2026 user shape: names, counts, avatar and badge from their new places', () => {
    const user = fixture('user-by-screen-name.json').data?.user?.result;
    expect(toSourceProfile(user)).toEqual({
      xUserId: ORBIT,
      username: 'OrbitLabsHQ',
      name: 'Orbit Labs',
      followersCount: 48213,
      followingCount: 311,
      tweetCount: 2964,
      likeCount: 3187,
      protected: false,
      avatarUrl: 'https://pbs.twimg.com/profile_images/1702233445566778899/Qm3xTz8a_normal.jpg',
      verified: true,
    });
  });

  it('falls back to legacy only where the new place is missing, and empty legacy is missing', () => {
    const [mixed] = usersByRestIds();
    expect(toSourceProfile(mixed)).toEqual({
      xUserId: MIRA,
      username: 'mira_codes',
      name: 'Mira Okafor',
      // relationship_counts.followers wins over legacy; following and posts come from legacy.
      followersCount: 5400,
      followingCount: 120,
      tweetCount: 8800,
      likeCount: null,
      protected: false,
      avatarUrl: null,
      verified: true,
    });
  });

  it('reads an older legacy-only user whole', () => {
    const [, legacyOnly] = usersByRestIds();
    expect(toSourceProfile(legacyOnly)).toEqual({
      xUserId: '27990123',
      username: 'SpaceWxService',
      name: 'Space Weather Service',
      followersCount: 250310,
      followingCount: 48,
      tweetCount: 17120,
      likeCount: 12,
      protected: true,
      avatarUrl: 'https://pbs.twimg.com/profile_images/1598877665544332211/Sw1rVt0k_normal.png',
      verified: true,
    });
  });

  it('gives no profile for UserUnavailable, an empty result or no rest_id, and says why', () => {
    const suspended = fixture('user-by-screen-name-suspended.json').data?.user?.result;
    expect(toSourceProfile(suspended)).toBeNull();
    expect(unavailableKind(suspended)).toBe('suspended');

    const [, , unavailable, empty] = usersByRestIds();
    expect(toSourceProfile(unavailable)).toBeNull();
    expect(unavailableKind(unavailable)).toBe('suspended');
    expect(toSourceProfile(empty)).toBeNull();
    expect(unavailableKind(empty)).toBe('not_found');

    expect(toSourceProfile({ __typename: 'User', core: { screen_name: 'ghost' } })).toBeNull();
  });

  it.each<[WireUserResult | undefined, string]>([
    [{ __typename: 'UserUnavailable', reason: 'Suspended' }, 'suspended'],
    [{ __typename: 'UserUnavailable', unavailable_reason: 'Suspended' }, 'suspended'],
    [{ __typename: 'UserUnavailable', message: 'User is suspended' }, 'suspended'],
    [{ __typename: 'UserUnavailable', reason: 'Protected' }, 'protected'],
    [
      { __typename: 'UserUnavailable', reason: 'NoReason', message: 'User is not available' },
      'not_found',
    ],
    [undefined, 'not_found'],
  ])('unavailableKind(%j) is %s', (user, kind) => {
    expect(unavailableKind(user)).toBe(kind);
  });

  const base: WireUserResult = { __typename: 'User', rest_id: '1', core: { screen_name: 'a' } };
  it.each<[string, WireUserResult, boolean]>([
    ['verification.verified', { ...base, verification: { verified: true } }, true],
    ['is_blue_verified', { ...base, is_blue_verified: true }, true],
    ['verification.is_blue_verified', { ...base, verification: { is_blue_verified: true } }, true],
    [
      'verification.verified_type Government',
      { ...base, verification: { verified_type: 'Government' } },
      true,
    ],
    ['legacy.verified_type Business', { ...base, legacy: { verified_type: 'Business' } }, true],
    ['an unknown verified_type', { ...base, verification: { verified_type: 'Other' } }, false],
    [
      'no badge at all',
      { ...base, is_blue_verified: false, verification: { verified: false } },
      false,
    ],
  ])('verified from %s: %s', (_name, user, verified) => {
    expect(toSourceProfile(user)?.verified).toBe(verified);
  });
});

const MIRA_NOTE = [
  'Thread-free long post, because some things need room.',
  '',
  'What I learned integrating a star tracker on a 3U cubesat:',
  '- Baffle length matters more than lens quality below 600 km.',
  '- Budget twice the thermal margin you think you need & log everything.',
  '- Your attitude filter will lie to you at eclipse exit. Plan for it.',
  '- Test with the real harness, not the bench one.',
  '',
  'Slides: https://t.co/Sl1d3sXyZa #cubesat',
].join('\n');

const ORBIT_NOTE = [
  "Field notes from this week's test campaign:",
  '',
  '1. The new star tracker held lock through every slew, even at 2°/s.',
  '2. Radio thermal margins are better than modelled & we can cut the heater duty cycle by a third.',
  '3. Pass planning for the ground station now runs in 40 s instead of 6 min.',
  '4. We broke one harness connector. Only one.',
  '',
  'Full write-up with plots: https://t.co/Fn4kQ2pLxe #smallsat #cubesat',
].join('\n');

describe('x-web timeline page (UserTweetsAndReplies)', () => {
  const page = timelinePage(fixture('user-tweets-and-replies.json'));
  const byId = (id: string) => {
    const tweet = page.tweets.find((t) => t.rest_id === id);
    if (!tweet) throw new Error(`post ${id} is not on the page`);
    return tweet;
  };

  it('takes the posts in order, modules included, each once; pinned, promoted and tombstones out', () => {
    expect(page.tweets.map((t) => t.rest_id)).toEqual([
      '2110287009674167506', // retweet of a long post
      '2110263156667319506', // conversation module: the post replied to (another author)
      '2110267527132087506', // conversation module: the reply (again later: kept once)
      '2110123448595383506', // quote
      '2110065034523575506', // TweetWithVisibilityResults
      '2110027977847735506', // long post
    ]);
    expect(page.pinnedIds).toEqual(['2090469451756471506']);
    expect(page.pinned.map(authorIdOf)).toEqual([ORBIT]);
    expect(page.promoted).toBe(1);
    expect(page.topCursor).toBe('DAAHCgABHUk2xV8AAAALAAIAAAATMjExMDI4NzAwOTY3NDE2NzUwNgAA');
    expect(page.bottomCursor).toBe('DAAHCgABHUk2xV7__-sLAAIAAAATMjExMDAyNzk3Nzg0NzczNTUwNgAA');
    // The pinned entry and eleven added entries (posts, modules, promoted, tombstone, cursors).
    expect(page.entries).toBe(12);
  });

  it('keeps other authors of a conversation module for the caller to filter', () => {
    expect(page.tweets.map(authorIdOf)).toEqual([ORBIT, MIRA, ORBIT, ORBIT, ORBIT, ORBIT]);
  });

  it('reads a reply: replied_to, the user replied to, the text unescaped once', () => {
    expect(toSourceTweet(byId('2110267527132087506'))).toMatchObject({
      text: '@mira_codes A 130 mm Dobsonian & a red torch. Skip anything with a motor <3',
      createdAt: '2026-10-14T07:12:40.000Z',
      conversationId: '2110263156667319506',
      inReplyToUserId: MIRA,
      referencedTypes: ['replied_to'],
      impressionCount: 1377,
    });
  });

  it("reads a retweet of a long post as 'RT @author: ' and the whole shared text", () => {
    expect(toSourceTweet(byId('2110287009674167506'))).toEqual({
      id: '2110287009674167506',
      text: `RT @mira_codes: ${MIRA_NOTE}`,
      createdAt: '2026-10-14T08:30:05.000Z',
      lang: 'en',
      likeCount: 0,
      retweetCount: 57,
      replyCount: 0,
      quoteCount: 0,
      impressionCount: null,
      conversationId: '2110287009674167506',
      inReplyToUserId: null,
      referencedTypes: ['retweeted'],
      hashtags: ['cubesat'],
      urls: ['https://mira.dev/talks/star-tracker'],
      media: [
        {
          type: 'video',
          url: null,
          previewUrl:
            'https://pbs.twimg.com/ext_tw_video_thumb/2109978120011223040/pu/img/kT9vPq1xWm3RzA2b.jpg',
        },
      ],
    });
  });

  it('reads a long post whole from its note, with the note entities', () => {
    const tweet = toSourceTweet(byId('2110027977847735506'));
    expect(tweet.text).toBe(ORBIT_NOTE);
    expect(tweet.text.length).toBeGreaterThan(280);
    expect(tweet.hashtags).toEqual(['smallsat', 'cubesat']);
    expect(tweet.urls).toEqual(['https://orbitlabs.space/blog/test-campaign-3']);
    expect(tweet.referencedTypes).toEqual([]);
  });

  it('reads a quote: quoted, its own text, entities and photo', () => {
    expect(toSourceTweet(byId('2110123448595383506'))).toEqual({
      id: '2110123448595383506',
      text: 'Huge day for the team >> watch it with us #smallsat https://t.co/Lv4nQ8sTr2 https://t.co/Ph0tQxW9zK',
      createdAt: '2026-10-13T21:40:09.000Z',
      lang: 'en',
      likeCount: 512,
      retweetCount: 61,
      replyCount: 17,
      quoteCount: 3,
      impressionCount: 33002,
      conversationId: '2110123448595383506',
      inReplyToUserId: null,
      referencedTypes: ['quoted'],
      hashtags: ['smallsat'],
      urls: ['https://orbitlabs.space/live'],
      media: [
        { type: 'photo', url: 'https://pbs.twimg.com/media/GfQ2xVbXMAAy3kP.jpg', previewUrl: null },
      ],
    });
  });

  it('unwraps TweetWithVisibilityResults', () => {
    const tweet = byId('2110065034523575506');
    expect(tweet.__typename).toBeUndefined();
    expect(toSourceTweet(tweet)).toMatchObject({
      id: '2110065034523575506',
      text: 'Static fire complete. Data review tonight, go/no-go tomorrow morning.',
      likeCount: 240,
      impressionCount: 12890,
    });
  });

  it('skips tombstones and unavailable posts without failing', () => {
    expect(page.tweets.some((t) => t.rest_id === '2110084542231479506')).toBe(false);
    expect(tweetOf({ __typename: 'TweetTombstone' })).toBeNull();
    expect(tweetOf({ __typename: 'TweetUnavailable', rest_id: '1' })).toBeNull();
    expect(tweetOf({ __typename: 'TweetWithVisibilityResults' })).toBeNull();
    expect(tweetOf(null)).toBeNull();
  });
});

describe('x-web timeline page edges', () => {
  it('tells a page of only pinned, promoted and cursor entries from an empty one', () => {
    const page = timelinePage(fixture('user-tweets-pinned-promoted-only.json'));
    expect(page.pinned.map((t) => toSourceTweet(t).text)).toEqual([
      "We're hiring: flight software engineer (C, Rust). Remote within the EU. https://t.co/Hr8vQ2mPc1",
    ]);
    expect({ ...page, pinned: undefined }).toEqual({
      tweets: [],
      pinned: undefined,
      pinnedIds: ['2090469451756471506'],
      promoted: 1,
      // The top cursor sits in an item; the bottom one in a TimelineReplaceEntry, told by its id.
      topCursor: 'DAAHCgABHUk3aTwAAAALAAIAAAATMjEwODkwMDAwMDAwMDAwMDAwMAAA',
      bottomCursor: 'DAAHCgABHUk3aTv__-sLAAIAAAATMjEwNTAwMDAwMDAwMDAwMDAwMAAA',
      entries: 4,
    });
    expect(timelinePage({ data: { user: { result: { __typename: 'User' } } } })).toEqual({
      tweets: [],
      pinned: [],
      pinnedIds: [],
      promoted: 0,
      topCursor: null,
      bottomCursor: null,
      entries: 0,
    });
  });

  it('tells a promoted item inside a module by its promotedMetadata alone', () => {
    const post = (id: string): WireTweetResult => ({
      __typename: 'Tweet',
      rest_id: id,
      legacy: { full_text: `post ${id}`, created_at: 'Thu Oct 15 10:00:00 +0000 2026' },
    });
    const page = timelinePage({
      data: {
        user: {
          result: {
            __typename: 'User',
            timeline: {
              timeline: {
                instructions: [
                  {
                    type: 'TimelineAddEntries',
                    entries: [
                      {
                        entryId: 'profile-conversation-2110500000000000100',
                        content: {
                          entryType: 'TimelineTimelineModule',
                          items: [
                            {
                              entryId: 'profile-conversation-2110500000000000100-tweet-11',
                              item: {
                                itemContent: {
                                  tweet_results: { result: post('11') },
                                  promotedMetadata: { impressionId: '5c1d2e3f4a5b6c7d' },
                                },
                              },
                            },
                            {
                              entryId: 'profile-conversation-2110500000000000100-tweet-12',
                              item: { itemContent: { tweet_results: { result: post('12') } } },
                            },
                          ],
                        },
                      },
                    ],
                  },
                ],
              },
            },
          },
        },
      },
    });
    expect(page.tweets.map((t) => t.rest_id)).toEqual(['12']);
    expect(page.promoted).toBe(1);
    expect(page.entries).toBe(1);
  });

  it('reads a post whose fields X moved out of a null legacy', () => {
    const tweet: WireTweetResult = {
      __typename: 'Tweet',
      rest_id: '2110500000000000001',
      legacy: null,
      full_text: 'Moved up &amp; still read &amp;lt;3',
      created_at: 'Thu Oct 15 10:00:00 +0000 2026',
      favorite_count: 7,
      user_id_str: ORBIT,
    };
    expect(tweetOf(tweet)).toBe(tweet);
    expect(authorIdOf(tweet)).toBe(ORBIT);
    expect(toSourceTweet(tweet)).toMatchObject({
      text: 'Moved up & still read &lt;3',
      createdAt: '2026-10-15T10:00:00.000Z',
      likeCount: 7,
    });
  });

  it('still marks a retweet whose shared post is gone, with X’s shortened text', () => {
    const tweet = toSourceTweet({
      __typename: 'Tweet',
      rest_id: '2110500000000000002',
      legacy: {
        full_text: 'RT @mira_codes: Launch window opens…',
        created_at: 'Thu Oct 15 10:00:00 +0000 2026',
        retweeted_status_result: { result: { __typename: 'TweetTombstone' } },
      },
    });
    expect(tweet.text).toBe('RT @mira_codes: Launch window opens…');
    expect(tweet.referencedTypes).toEqual(['retweeted']);
  });
});

describe('x-web errors', () => {
  it('reads errors without data as a failure with its codes, not as "not found"', () => {
    const body = fixture('errors-without-data.json');
    expect(hasData(body)).toBe(false);
    expect(graphqlErrors(body)).toEqual({
      codes: [0, -1],
      message: '(0) Dependency: Unspecified; (-1) LoadShed',
    });
  });

  it('counts data with at least one non-null value as usable, errors or not', () => {
    expect(
      hasData({ data: { user: { result: { __typename: 'User' } } }, errors: [{ code: 37 }] }),
    ).toBe(true);
    expect(hasData({ data: {} })).toBe(false);
    expect(hasData({ data: null })).toBe(false);
    expect(hasData({})).toBe(false);
  });

  it('shows a missing code as "?" and gives nothing for an answer without errors', () => {
    expect(graphqlErrors({ errors: [{ message: 'Query: Unspecified' }] })).toEqual({
      codes: [],
      message: '(?) Query: Unspecified',
    });
    expect(graphqlErrors({ data: {} })).toEqual({ codes: [], message: '' });
  });
});
