import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { TWEET_PAGE_MESSAGES, tweetPageResponseSchema } from '@perch/shared';
import type { SourceTweet } from '../src/domain/tweet-source.js';
import { upsertTweets } from '../src/modules/tweets/tweets.repository.js';
import { dataOf, expectError } from './assertions.js';
import { makeTweet } from './factories.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { handleFollowedBy, postsOfOneSecond, storeNewestFirst } from './notify-helpers.js';

type TweetPage = z.infer<typeof tweetPageResponseSchema>;

const MINUTE = 60_000;
const NOW = Date.now();

/** A tweet `age` minutes old with these counts (likes, retweets, replies, quotes). */
function tweet(
  key: string,
  age: number,
  text: string,
  [likes, retweets, replies, quotes]: [number, number, number, number],
  extra: Partial<SourceTweet> = {},
): SourceTweet & { key: string } {
  return {
    ...makeTweet({
      text,
      createdAt: new Date(NOW - age * MINUTE).toISOString(),
      likeCount: likes,
      retweetCount: retweets,
      replyCount: replies,
      quoteCount: quotes,
      ...extra,
    }),
    key,
  };
}

const photo = [{ type: 'photo' as const, url: 'https://pbs.example/moon.jpg', previewUrl: null }];
// Engagement in the comments: likes + retweets + replies + quotes.
const TWEETS = [
  tweet('A', 1, 'Launch day for the new rocket engine', [50, 10, 5, 1]), // 66
  tweet('B', 2, '@ops Replying: the launchpad is ready', [5, 0, 2, 0], {
    referencedTypes: ['replied_to'],
  }), // 7
  tweet('C', 3, 'Quote of the week: "Launch" went well', [20, 2, 1, 0], {
    referencedTypes: ['quoted'],
  }), // 23
  tweet('D', 4, 'RT @esa: Launching Ariane 6 tonight', [0, 300, 0, 0], {
    referencedTypes: ['retweeted'],
  }), // 300
  tweet('E', 5, 'Photo of the Moon 🌕 at night', [80, 1, 1, 1], { media: photo }), // 83
  tweet('F', 6, 'Café au lait & crème brûlée', [3, 0, 0, 0]), // 3
  tweet('G', 7, 'Données du jour: 東京 ロケット', [1, 0, 0, 0]), // 1
  tweet('H', 8, "It's rocket-science: 100% done* (really)", [7, 7, 7, 7]), // 28
  tweet('I', 9, 'key:value and NEAR/2 "quoted" -minus', [3, 0, 0, 0]), // 3
];
const keyOf = new Map(TWEETS.map((t) => [t.id, t.key]));

describe.each(DIALECTS)('tweet browsing API (%s)', (dialect) => {
  let t: TestApp;
  let alice: TestClient;
  let aliceId: number;

  beforeAll(async () => {
    t = await buildTestApp(dialect);
    alice = new TestClient(t.app);
    const { data } = await alice.register(t.db, 'alice');
    aliceId = data.user.id;
    const handleId = await handleFollowedBy(t, 'searchable', [data.user.id]);
    await upsertTweets(t.db.db, handleId, TWEETS, new Date().toISOString());
    // Another handle's tweets never show up in this one's results.
    const otherId = await handleFollowedBy(t, 'other_one', [data.user.id]);
    await upsertTweets(
      t.db.db,
      otherId,
      [makeTweet({ text: 'Launch launch launch rocket' })],
      new Date().toISOString(),
    );
  });

  afterAll(async () => {
    await t.close();
  });

  async function browse(query: string): Promise<TweetPage & { keys: string[] }> {
    const page = dataOf(
      await alice.get(`/api/v1/handles/searchable/tweets?${query}`),
      tweetPageResponseSchema,
    );
    return { ...page, keys: page.tweets.map((tw) => keyOf.get(tw.id) ?? tw.id) };
  }
  const search = (q: string, extra = '') =>
    browse(`q=${encodeURIComponent(q)}${extra ? `&${extra}` : ''}`);

  it('without parameters lists every tweet newest first, as before', async () => {
    const page = await browse('');
    expect(page).toMatchObject({ page: 1, limit: 50, total: 9, has_more: false });
    expect(page.keys).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I']);
    // A blank search is no search.
    expect((await search('   ')).keys).toEqual(page.keys);
  });

  it('finds tweets holding every word, the last one as a prefix, in any case', async () => {
    const launch = await search('launch');
    expect(launch.keys).toEqual(['A', 'B', 'C', 'D']);
    expect(launch).toMatchObject({ total: 4, has_more: false });
    expect((await search('LAUNCH DAY')).keys).toEqual(['A']);
    expect((await search('day launch')).keys).toEqual(['A']);
    expect((await search('lau')).keys).toEqual(['A', 'B', 'C', 'D']);
    expect((await search('rocket')).keys).toEqual(['A', 'H']);
    // Only the last word is a prefix: 'launc' must be a whole word when another follows.
    expect((await search('launc day')).keys).toEqual([]);
    expect((await search('100')).keys).toEqual(['H']);
    expect((await search('ariane 6')).keys).toEqual(['D']);
  });

  it('says when nothing matches: an empty page, total 0', async () => {
    const none = await search('zebra');
    expect(none).toMatchObject({ tweets: [], total: 0, has_more: false, page: 1 });
    expect((await search('launch zebra')).total).toBe(0);
  });

  it('reads quotes, operators and punctuation as plain text, never as query syntax', async () => {
    for (const q of [
      '"launch',
      'launch"',
      'launch*',
      '(launch)',
      'launch:',
      '"launch"',
      '-launch',
    ]) {
      expect((await search(q)).keys, q).toEqual(['A', 'B', 'C', 'D']);
    }
    // Operators of either engine are words like any other.
    expect((await search('launch OR zebra')).keys).toEqual([]);
    expect((await search('launch AND day')).keys).toEqual([]);
    expect((await search('launch & day')).keys).toEqual(['A']);
    expect((await search('launch | zebra')).keys).toEqual([]);
    expect((await search('!launch')).keys).toEqual(['A', 'B', 'C', 'D']);
    expect((await search('NEAR')).keys).toEqual(['I']);
    expect((await search('key:value')).keys).toEqual(['I']);
    expect((await search('text:launch')).keys).toEqual([]);
    expect((await search('-minus')).keys).toEqual(['I']);
    expect((await search('"quoted"')).keys).toEqual(['I']);
    expect((await search("it's")).keys).toEqual(['H']);
    expect((await search("'launch' \\ day;")).keys).toEqual(['A']);
    expect((await search('rocket-science')).keys).toEqual(['H']);
    // Nothing searchable at all: no match, and no error.
    for (const q of ['"', "'", '*', '-', ':', '""', '*:*', '\\', '%', '_', '🌕', '( ) & | ! <->']) {
      const page = await search(q);
      expect(page, q).toMatchObject({ tweets: [], total: 0, has_more: false });
    }
  });

  it('matches unicode words: accents as written, CJK, emoji ignored', async () => {
    expect((await search('café')).keys).toEqual(['F']);
    expect((await search('crème brûlée')).keys).toEqual(['F']);
    expect((await search('données')).keys).toEqual(['G']);
    expect((await search('東京')).keys).toEqual(['G']);
    expect((await search('ロケ')).keys).toEqual(['G']);
    expect((await search('moon 🌕')).keys).toEqual(['E']);
    expect((await search('🌕 moon')).keys).toEqual(['E']);
  });

  it('filters by type: originals, replies, quotes, retweets, with media', async () => {
    expect((await browse('type=post')).keys).toEqual(['A', 'E', 'F', 'G', 'H', 'I']);
    expect((await browse('type=reply')).keys).toEqual(['B']);
    expect((await browse('type=quote')).keys).toEqual(['C']);
    expect((await browse('type=retweet')).keys).toEqual(['D']);
    const media = await browse('type=media');
    expect(media.keys).toEqual(['E']);
    expect(media.tweets[0]).toMatchObject({ has_photo: true });
    expect(await browse('type=post&limit=2&page=2')).toMatchObject({
      keys: ['F', 'G'],
      total: 6,
      has_more: true,
    });
    expect((await search('launch', 'type=retweet')).keys).toEqual(['D']);
    expect((await search('launch', 'type=post')).keys).toEqual(['A']);
    expect((await search('moon', 'type=reply')).total).toBe(0);
  });

  it('sorts by likes or by engagement, ties newest first', async () => {
    expect((await browse('sort=newest')).keys).toEqual([
      'A',
      'B',
      'C',
      'D',
      'E',
      'F',
      'G',
      'H',
      'I',
    ]);
    expect((await browse('sort=likes')).keys).toEqual([
      'E',
      'A',
      'C',
      'H',
      'B',
      'F',
      'I',
      'G',
      'D',
    ]);
    expect((await browse('sort=engagement')).keys).toEqual([
      'D',
      'E',
      'A',
      'H',
      'C',
      'B',
      'F',
      'I',
      'G',
    ]);
    expect((await search('launch', 'sort=engagement')).keys).toEqual(['D', 'A', 'C', 'B']);
    expect((await search('launch', 'sort=likes')).keys).toEqual(['A', 'C', 'B', 'D']);
    expect((await browse('type=post&sort=likes')).keys).toEqual(['E', 'A', 'H', 'F', 'I', 'G']);
  });

  it('lists posts of one second newest first by post id, whatever order they were stored in', async () => {
    const handleId = await handleFollowedBy(t, 'threaded', [aliceId]);
    const posts = postsOfOneSecond(NOW - 30 * MINUTE);
    await storeNewestFirst(t, handleId, posts);
    const idsOf = async (query: string) =>
      dataOf(
        await alice.get(`/api/v1/handles/threaded/tweets?${query}`),
        tweetPageResponseSchema,
      ).tweets.map((tw) => tw.id);
    // Neither the storage order nor the ids' text order ('999…' first) is this one.
    const newestFirst = posts.map((post) => post.id).reverse();
    expect(await idsOf('')).toEqual(newestFirst);
    // Equal counts: the same ties under every sort, with a search, and across pages.
    expect(await idsOf('sort=likes')).toEqual(newestFirst);
    expect(await idsOf('sort=engagement')).toEqual(newestFirst);
    expect(await idsOf('q=thread')).toEqual(newestFirst);
    expect(await idsOf('q=thread&type=post&sort=likes')).toEqual(newestFirst);
    const pages = [];
    for (const page of [1, 2, 3]) pages.push(...(await idsOf(`limit=1&page=${page}`)));
    expect(pages).toEqual(newestFirst);
  });

  it('pages through the matches with the total of all of them', async () => {
    const first = await search('launch', 'limit=3');
    expect(first).toMatchObject({ page: 1, limit: 3, total: 4, has_more: true });
    expect(first.keys).toEqual(['A', 'B', 'C']);
    const second = await search('launch', 'limit=3&page=2');
    expect(second).toMatchObject({ page: 2, total: 4, has_more: false, keys: ['D'] });
    // Past the end: no rows, the total still told.
    const beyond = await search('launch', 'limit=3&page=3');
    expect(beyond).toMatchObject({ tweets: [], total: 4, has_more: false });
    const sorted = await search('launch', 'limit=2&page=2&sort=engagement');
    expect(sorted).toMatchObject({ keys: ['C', 'B'], total: 4, has_more: false });
  });

  it('refuses bad parameters with a 400 that says what is allowed', async () => {
    const get = (query: string) => alice.get(`/api/v1/handles/searchable/tweets?${query}`);
    expectError(await get('type=video'), 400, {
      message: 'type must be one of: post, reply, quote, retweet, media',
      code: 'VALIDATION_ERROR',
    });
    expectError(await get('type=reply&type=quote'), 400, { message: TWEET_PAGE_MESSAGES.type });
    expectError(await get('type='), 400, { message: TWEET_PAGE_MESSAGES.type });
    expectError(await get('sort=oldest'), 400, {
      message: 'sort must be one of: newest, likes, engagement',
    });
    expectError(await get(`q=${'a'.repeat(101)}`), 400, {
      message: 'Search text must be at most 100 characters',
    });
    expectError(await get('q=a&q=b'), 400, { message: TWEET_PAGE_MESSAGES.qType });
    expectError(await get('page=0'), 400, { message: TWEET_PAGE_MESSAGES.page });
    expectError(await get('limit=500'), 400, { message: TWEET_PAGE_MESSAGES.limit });
    expectError(await get('limit=abc'), 400, { message: TWEET_PAGE_MESSAGES.limit });
    // At the bounds: 100 characters (after trimming) is fine.
    expect((await get(`q=${encodeURIComponent(` ${'a'.repeat(100)} `)}`)).statusCode).toBe(200);
    expect((await get(`q=${encodeURIComponent('\u0000launch')}`)).statusCode).toBe(200);
  });

  it('keeps the search in step with edits of stored text', async () => {
    const handle = await handleFollowedBy(t, 'editable', []);
    const original = makeTweet({ text: 'Countdown started' });
    await upsertTweets(t.db.db, handle, [original], new Date().toISOString());
    const admin = new TestClient(t.app);
    await admin.register(t.db, `root_${dialect}`, 'admin');
    const find = async (q: string) =>
      dataOf(
        await admin.get(`/api/v1/handles/editable/tweets?q=${encodeURIComponent(q)}`),
        tweetPageResponseSchema,
      ).total;
    expect(await find('countdown')).toBe(1);
    // The full text of a long post replaces a truncated copy (upsertTweets).
    await upsertTweets(
      t.db.db,
      handle,
      [{ ...original, text: 'Liftoff confirmed' }],
      new Date().toISOString(),
    );
    expect(await find('countdown')).toBe(0);
    expect(await find('liftoff')).toBe(1);
    // A metrics-only refresh keeps it found.
    await upsertTweets(
      t.db.db,
      handle,
      [{ ...original, text: 'Liftoff confirmed', likeCount: 99 }],
      new Date().toISOString(),
    );
    expect(await find('liftoff')).toBe(1);
  });
});
