/**
 * Behaviour only the x-api source has: rate-limit headers, retries, auth failures and the wire
 * mapping, all against the loopback fake X server (real HTTP, no mocks of our code).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeXServer, type FakeXServer } from '../../test/fakes/fake-x-server.js';
import { type BilledRead, type BilledReadsListener } from '../domain/tweet-source.js';
import { createXApiSource, type XApiSourceOptions } from './x-api-source.js';
import { sourceFailure as failure } from '../../test/assertions.js';

let fake: FakeXServer;
let userId: string;

beforeEach(async () => {
  fake = await startFakeXServer();
  userId = fake.addUser({ username: 'XDevelopers', followersCount: 513_962, likeCount: 2100 }).id;
  fake.addTweets(userId, [
    {
      id: '1524796546306478083',
      text: 'Launch day! #DevsInTheDetails https://t.co/abc @XDevelopers https://t.co/img',
      created_at: '2022-05-12T17:00:00.000Z',
      conversation_id: '1524796546306478083',
      lang: 'en',
      public_metrics: {
        retweet_count: 156,
        reply_count: 23,
        like_count: 892,
        quote_count: 12,
        bookmark_count: 34,
        impression_count: 15200,
      },
      entities: {
        hashtags: [{ start: 12, end: 29, tag: 'DevsInTheDetails' }],
        urls: [
          {
            start: 30,
            end: 53,
            url: 'https://t.co/abc',
            expanded_url: 'https://example.com/post',
            display_url: 'example.com/post',
          },
          {
            start: 67,
            end: 90,
            url: 'https://t.co/img',
            expanded_url: 'https://x.com/XDevelopers/status/1524796546306478083/photo/1',
            display_url: 'pic.x.com/img',
            media_key: '3_1524796540000000000',
          },
        ],
      },
      attachments: { media_keys: ['3_1524796540000000000'] },
      media: [
        {
          media_key: '3_1524796540000000000',
          type: 'photo',
          url: 'https://pbs.twimg.com/media/FSjmK.jpg',
        },
      ],
    },
    {
      id: '1524468552404668416',
      text: '@someone thanks!',
      created_at: '2022-05-11T19:16:40.000Z',
      conversation_id: '1524400000000000000',
      in_reply_to_user_id: '783214',
      lang: 'en',
      public_metrics: { retweet_count: 0, reply_count: 1, like_count: 5, quote_count: 0 },
      referenced_tweets: [{ type: 'replied_to', id: '1524400000000000000' }],
    },
  ]);
});
afterEach(() => fake.close());

const source = (options: Partial<XApiSourceOptions> = {}) =>
  createXApiSource({
    baseUrl: fake.baseUrl,
    bearerToken: fake.bearerToken,
    retryBaseMs: 2,
    ...options,
  });

describe('x-api source', () => {
  it('sends the bearer token and the documented fields', async () => {
    const s = source();
    const profile = await s.lookupUser('xdevelopers');
    await s.timeline({ xUserId: profile.xUserId, sinceId: '1', startTime: '2022-01-01T00:00:00Z' });
    expect(fake.requests.map((r) => r.authorization)).toEqual([
      `Bearer ${fake.bearerToken}`,
      `Bearer ${fake.bearerToken}`,
    ]);
    expect(fake.requests[0]!.query['user.fields']).toBe('public_metrics,protected,created_at,name');
    expect(fake.requests[1]!.query).toMatchObject({
      max_results: '100',
      since_id: '1',
      start_time: '2022-01-01T00:00:00Z',
      expansions: 'attachments.media_keys,referenced_tweets.id,referenced_tweets.id.author_id',
      'media.fields': 'type,url,preview_image_url',
      'user.fields': 'username',
    });
    expect(fake.requests[1]!.query['tweet.fields']?.split(',').sort()).toEqual(
      [
        'attachments',
        'conversation_id',
        'created_at',
        'entities',
        'in_reply_to_user_id',
        'lang',
        'public_metrics',
        'referenced_tweets',
        'note_tweet',
        'author_id',
      ].sort(),
    );
  });

  it('maps profiles and tweets from the wire format', async () => {
    const s = source();
    expect(await s.lookupUser('XDevelopers')).toEqual({
      xUserId: userId,
      username: 'XDevelopers',
      name: 'XDevelopers',
      followersCount: 513_962,
      followingCount: 50,
      tweetCount: 0,
      likeCount: 2100,
      protected: false,
    });
    const page = await s.timeline({ xUserId: userId });
    expect(page.nextCursor).toBeNull();
    expect(page.tweets[0]).toEqual({
      id: '1524796546306478083',
      text: 'Launch day! #DevsInTheDetails https://t.co/abc @XDevelopers https://t.co/img',
      createdAt: '2022-05-12T17:00:00.000Z',
      lang: 'en',
      likeCount: 892,
      retweetCount: 156,
      replyCount: 23,
      quoteCount: 12,
      impressionCount: 15200,
      conversationId: '1524796546306478083',
      inReplyToUserId: null,
      referencedTypes: [],
      hashtags: ['DevsInTheDetails'],
      // The media's t.co entity is not a link.
      urls: ['https://example.com/post'],
      media: [{ type: 'photo', url: 'https://pbs.twimg.com/media/FSjmK.jpg', previewUrl: null }],
    });
    expect(page.tweets[1]).toMatchObject({
      impressionCount: null,
      inReplyToUserId: '783214',
      referencedTypes: ['replied_to'],
      hashtags: [],
      urls: [],
      media: [],
    });
  });

  it('unescapes the HTML entities X puts in tweet text, once', async () => {
    const id = fake.addUser({ username: 'amp_user' }).id;
    fake.addTweets(id, [
      {
        id: '1600000000000000000',
        text: 'Q&amp;A &lt;3 &gt;_&lt; typed: &amp;lt;b&amp;gt; &amp;amp;',
        created_at: '2022-05-12T17:00:00.000Z',
      },
    ]);
    const page = await source().timeline({ xUserId: id });
    expect(page.tweets[0]?.text).toBe('Q&A <3 >_< typed: &lt;b&gt; &amp;');
  });

  it('returns an empty page when the window has no tweets', async () => {
    const page = await source().timeline({ xUserId: userId, startTime: '2023-01-01T00:00:00Z' });
    expect(page).toEqual({ tweets: [], nextCursor: null });
  });

  it('waits for the rate-limit reset instead of sending a request that would get a 429', async () => {
    const s = source();
    fake.setRateLimit('users/tweets', { limit: 5, remaining: 1, resetInSeconds: 2 });
    await s.timeline({ xUserId: userId });
    expect(s.rateBudget()).toMatchObject({ limit: 5, remaining: 0 });
    const resetAt = Date.parse(s.rateBudget().resetAt!);
    const started = Date.now();
    await s.timeline({ xUserId: userId });
    expect(Date.now()).toBeGreaterThanOrEqual(resetAt);
    expect(Date.now() - started).toBeGreaterThan(500);
    const timeline = fake.requests.filter((r) => r.endpoint === 'users/tweets');
    expect(timeline).toHaveLength(2);
    expect(timeline.map((r) => r.status)).toEqual([200, 200]);
    expect(timeline.every((r) => r.remainingBefore! > 0)).toBe(true);
    expect(s.rateBudget()).toMatchObject({ limit: 5, remaining: 4 });
  });

  it('throws rate_limited without a request when the reset is more than 60 s away', async () => {
    const s = source();
    fake.setRateLimit('users/tweets', { limit: 5, remaining: 1, resetInSeconds: 600 });
    await s.timeline({ xUserId: userId });
    const error = await failure(s.timeline({ xUserId: userId }));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(590_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(601_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('stops waiting for a reset when aborted', async () => {
    const s = source();
    fake.setRateLimit('users/tweets', { limit: 5, remaining: 1, resetInSeconds: 30 });
    await s.timeline({ xUserId: userId });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await expect(s.timeline({ xUserId: userId }, controller.signal)).rejects.toThrow(/abort/i);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('maps a 429 to rate_limited with retryAfterMs from x-rate-limit-reset', async () => {
    const s = source();
    fake.setRateLimit('users/tweets', { limit: 5, remaining: 0, resetInSeconds: 120 });
    const error = await failure(s.timeline({ xUserId: userId }));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(110_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(121_000);
    expect(fake.requests.map((r) => r.status)).toEqual([429]);
    // The 429's headers said remaining 0: the next call is refused locally.
    expect((await failure(s.timeline({ xUserId: userId }))).kind).toBe('rate_limited');
    expect(fake.requests).toHaveLength(1);
  });

  it('retries 5xx with backoff and succeeds', async () => {
    fake.failNext('users/tweets', 500, 2);
    const page = await source().timeline({ xUserId: userId });
    expect(page.tweets).toHaveLength(2);
    expect(fake.requests.map((r) => r.status)).toEqual([500, 500, 200]);
  });

  it('gives up after 3 retries with unavailable', async () => {
    fake.failNext('users/by/username', 503, 10);
    const error = await failure(source().lookupUser('XDevelopers'));
    expect(error.kind).toBe('unavailable');
    expect(fake.requests).toHaveLength(4);
  });

  it('treats network failures as unavailable after retries', async () => {
    const baseUrl = fake.baseUrl;
    await fake.close();
    const s = createXApiSource({ baseUrl, bearerToken: 'x', retryBaseMs: 1 });
    expect((await failure(s.lookupUser('XDevelopers'))).kind).toBe('unavailable');
    fake = await startFakeXServer(); // afterEach closes it
  });

  it.each([401, 403])('maps %i to auth with exactly one request', async (status) => {
    fake.failNext('tweets', status, 5);
    const error = await failure(source().tweetsByIds(['1524796546306478083']));
    expect(error.kind).toBe('auth');
    expect(fake.requests).toHaveLength(1);
  });

  it('maps 402 to credits with exactly one request', async () => {
    fake.failNext('tweets', 402, 5);
    const error = await failure(source().tweetsByIds(['1524796546306478083']));
    expect(error.kind).toBe('credits');
    expect(error.message).toBe(
      'X API credits are depleted: add credits in the X Developer Console',
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('maps a wrong bearer token to auth with no retry storm', async () => {
    const error = await failure(source({ bearerToken: 'wrong' }).lookupUser('XDevelopers'));
    expect(error.kind).toBe('auth');
    expect(fake.requests.map((r) => r.status)).toEqual([401]);
  });

  it('reads suspended and unknown users on the timeline too', async () => {
    const suspended = fake.addUser({ username: 'gone', suspended: true });
    const s = source();
    expect((await failure(s.timeline({ xUserId: suspended.id }))).kind).toBe('suspended');
    expect((await failure(s.timeline({ xUserId: '999' }))).kind).toBe('not_found');
    expect((await failure(s.lookupUser('not a handle!'))).kind).toBe('not_found');
    expect(fake.requests).toHaveLength(2);
  });
});

/** A long post's whole text: over 280 characters, a hashtag and a link past what `text` keeps. */
const LONG_NOTE =
  'A long post about the release &amp; what comes next. ' +
  'Every paragraph of it matters, so it is repeated here to pass the limit. '.repeat(5) +
  'The end. #LongRead https://t.co/long';
const LONG_TEXT = LONG_NOTE.replaceAll('&amp;', '&');

/** Adds bob, his long post and a short one, and XDevelopers' retweets of both. */
function seedRetweets() {
  const bob = fake.addUser({ username: 'bob_writer' });
  const hashtagAt = [...LONG_NOTE].length - 25;
  fake.addTweets(bob.id, [
    {
      id: '1700000000000000001',
      text: '',
      created_at: '2023-09-01T10:00:00.000Z',
      lang: 'en',
      note_tweet: {
        text: LONG_NOTE,
        entities: {
          hashtags: [{ start: hashtagAt, end: hashtagAt + 9, tag: 'LongRead' }],
          urls: [
            {
              start: hashtagAt + 10,
              end: hashtagAt + 32,
              url: 'https://t.co/long',
              expanded_url: 'https://example.com/long',
              display_url: 'example.com/long',
            },
          ],
        },
      },
    },
    {
      id: '1700000000000000002',
      text: 'Short &lt;and&gt; sweet #tiny',
      created_at: '2023-09-01T11:00:00.000Z',
      entities: { hashtags: [{ start: 24, end: 29, tag: 'tiny' }] },
    },
  ]);
  fake.addRetweet(userId, {
    id: '1700000000000000010',
    created_at: '2023-09-02T10:00:00.000Z',
    of: '1700000000000000001',
  });
  fake.addRetweet(userId, {
    id: '1700000000000000011',
    created_at: '2023-09-02T11:00:00.000Z',
    of: '1700000000000000002',
  });
  return bob;
}

/** A listener that keeps every billed read, as the cost meter would. */
function meter() {
  const reads: BilledRead[] = [];
  const listener: BilledReadsListener = (batch) => {
    reads.push(...batch);
  };
  /** Distinct (kind, id): what X bills within one UTC day. */
  const distinct = (kind: BilledRead['kind']) =>
    new Set(reads.filter((r) => r.kind === kind).map((r) => r.id)).size;
  return { reads, listener, distinct };
}

describe('x-api source: long posts and retweets', () => {
  it('returns the whole text of a long post and the hashtags and links of all of it', async () => {
    seedRetweets();
    const s = source();
    const [long] = await s.tweetsByIds(['1700000000000000001']);
    expect(long?.text).toBe(LONG_TEXT);
    expect(long?.hashtags).toEqual(['LongRead']);
    expect(long?.urls).toEqual(['https://example.com/long']);
    // X itself sends only the start: the source asked for the note.
    expect(fake.requests[0]!.query['tweet.fields']).toContain('note_tweet');
  });

  it('writes a retweet as RT @author: and the whole shared text, on timelines and by id', async () => {
    const bob = seedRetweets();
    const s = source();
    const page = await s.timeline({ xUserId: userId, startTime: '2023-09-02T00:00:00Z' });
    const byId = new Map(page.tweets.map((t) => [t.id, t]));
    expect(byId.get('1700000000000000010')).toMatchObject({
      text: `RT @${bob.username}: ${LONG_TEXT}`,
      referencedTypes: ['retweeted'],
      hashtags: ['LongRead'],
      urls: ['https://example.com/long'],
    });
    expect(byId.get('1700000000000000011')).toMatchObject({
      text: 'RT @bob_writer: Short <and> sweet #tiny',
      hashtags: ['tiny'],
    });
    const [again] = await s.tweetsByIds(['1700000000000000010']);
    expect(again?.text).toBe(`RT @bob_writer: ${LONG_TEXT}`);
  });

  it('keeps X text of a retweet whose shared post X did not include', async () => {
    fake.addTweets(userId, [
      {
        id: '1700000000000000020',
        text: 'RT @someone_gone: a post that was deleted since…',
        created_at: '2023-09-03T10:00:00.000Z',
        referenced_tweets: [{ type: 'retweeted', id: '1600000000000000099' }],
      },
    ]);
    const [tweet] = await source().tweetsByIds(['1700000000000000020']);
    expect(tweet?.text).toBe('RT @someone_gone: a post that was deleted since…');
  });
});

describe('x-api source: billed reads', () => {
  it('reports every post and user X bills, as many as the fake counted', async () => {
    const bob = seedRetweets();
    const m = meter();
    const s = source({ onBilledReads: m.listener });
    await s.lookupUser('XDevelopers');
    await s.timeline({ xUserId: userId });
    await s.tweetsByIds(['1700000000000000010', '1524796546306478083']);
    await s.usersByIds([userId, bob.id]);
    // Read again the same day: billed once.
    await s.timeline({ xUserId: userId });
    const billed = fake.billing();
    expect(m.distinct('post')).toBe(billed.posts);
    expect(m.distinct('user')).toBe(billed.users);
    // 4 posts of the timeline and bob's 2 it includes; XDevelopers and bob.
    expect(billed).toMatchObject({ posts: 6, users: 2 });
    expect(Object.values(billed.byDay)).toEqual([{ posts: 6, users: 2 }]);
  });

  it('puts each read on the handle it was for', async () => {
    const bob = seedRetweets();
    const m = meter();
    const s = source({ onBilledReads: m.listener });

    await s.timeline({ xUserId: userId, startTime: '2023-09-02T00:00:00Z' });
    // The timeline's posts, the posts it shares and their author: all on the timeline's handle.
    expect(m.reads.map((r) => [r.kind, r.id, r.ownerXUserId]).sort()).toEqual(
      [
        ['post', '1700000000000000010', userId],
        ['post', '1700000000000000011', userId],
        ['post', '1700000000000000001', userId],
        ['post', '1700000000000000002', userId],
        ['user', bob.id, userId],
      ].sort(),
    );

    m.reads.length = 0;
    await s.tweetsByIds(['1700000000000000010', '1700000000000000002']);
    // By id: a post is its author's; a shared post (and its author) is on who shared it,
    // unless it was asked for itself.
    const owners = new Map(m.reads.map((r) => [`${r.kind}:${r.id}`, r.ownerXUserId]));
    expect(owners.get('post:1700000000000000010')).toBe(userId);
    expect(owners.get('post:1700000000000000001')).toBe(userId);
    expect(owners.get('post:1700000000000000002')).toBe(bob.id);
    expect(owners.get(`user:${bob.id}`)).toBe(userId);

    m.reads.length = 0;
    await s.usersByIds([userId, bob.id]);
    await s.lookupUser('bob_writer');
    expect(m.reads).toEqual([
      { kind: 'user', id: userId, ownerXUserId: userId },
      { kind: 'user', id: bob.id, ownerXUserId: bob.id },
      { kind: 'user', id: bob.id, ownerXUserId: bob.id },
    ]);
  });

  it('never fails a request because the listener failed, and awaits it', async () => {
    let settled = 0;
    const s = source({
      onBilledReads: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        settled += 1;
        throw new Error('meter down');
      },
    });
    const page = await s.timeline({ xUserId: userId });
    expect(page.tweets).toHaveLength(2);
    expect(settled).toBe(1);
    const throwing = source({
      onBilledReads: () => {
        throw new Error('meter down');
      },
    });
    expect(await throwing.lookupUser('XDevelopers')).toMatchObject({ xUserId: userId });
  });

  it('reports nothing for an empty page or a user X could not return', async () => {
    const m = meter();
    const s = source({ onBilledReads: m.listener });
    await s.timeline({ xUserId: userId, startTime: '2024-01-01T00:00:00Z' });
    await failure(s.lookupUser('nobody_here'));
    expect(m.reads).toEqual([]);
    expect(fake.billing()).toMatchObject({ posts: 0, users: 0 });
  });
});

describe('x-api source: users by id', () => {
  it('returns found profiles and says why the others are missing, in one request', async () => {
    const locked = fake.addUser({ username: 'locked', protected: true, followersCount: 7 });
    const banned = fake.addUser({ username: 'banned', suspended: true });
    const s = source();
    const result = await s.usersByIds([userId, locked.id, banned.id, '424242', 'not-an-id']);
    expect(result.profiles.map((p) => [p.username, p.protected])).toEqual([
      ['XDevelopers', false],
      ['locked', true],
    ]);
    expect(result.profiles[0]).toEqual(await s.lookupUser('XDevelopers'));
    expect(result.missing).toEqual([
      { xUserId: 'not-an-id', kind: 'not_found' },
      { xUserId: banned.id, kind: 'suspended' },
      { xUserId: '424242', kind: 'not_found' },
    ]);
    const lookups = fake.requests.filter((r) => r.endpoint === 'users');
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.path).toBe('/2/users');
    expect(lookups[0]!.query).toMatchObject({
      ids: `${userId},${locked.id},${banned.id},424242`,
      'user.fields': 'public_metrics,protected,created_at,name',
    });
  });

  it('takes at most 100 distinct ids: splitting a longer list is the caller’s job', async () => {
    const s = source();
    const ids = Array.from({ length: 101 }, (_, n) => String(5_000_000 + n));
    await expect(s.usersByIds(ids)).rejects.toBeInstanceOf(RangeError);
    expect(fake.requests).toHaveLength(0);
    // Duplicates count once.
    const result = await s.usersByIds([...ids.slice(0, 100), ids[0]!]);
    expect(result.missing).toHaveLength(100);
    expect(fake.requests[0]!.query.ids!.split(',')).toHaveLength(100);
    expect(await s.usersByIds([])).toEqual({ profiles: [], missing: [] });
    expect(fake.requests).toHaveLength(1);
  });

  it('follows a renamed account by id while the old name stops resolving', async () => {
    const s = source();
    const before = await s.lookupUser('XDevelopers');
    fake.renameUser(userId, 'XDevs2026');
    expect((await failure(s.lookupUser('XDevelopers'))).kind).toBe('not_found');
    const { profiles } = await s.usersByIds([before.xUserId]);
    expect(profiles).toEqual([{ ...before, username: 'XDevs2026' }]);
    expect((await s.lookupUser('xdevs2026')).xUserId).toBe(userId);
  });

  it('has its own 300-per-15-minutes budget', async () => {
    const s = source();
    await s.usersByIds([userId]);
    expect(s.rateStatus().endpoints).toEqual([
      { endpoint: 'users', limit: 300, remaining: 299, resetAt: expect.any(String) },
    ]);
  });
});

describe('x-api source: credentials and credits', () => {
  it('stops at 402 once the credits run out and resumes when they are back', async () => {
    const s = source();
    // Enough for the first page only (2 posts, $0.010).
    fake.setCredits(0.01);
    await s.timeline({ xUserId: userId });
    expect(fake.credits()).toBe(0);
    const error = await failure(s.timeline({ xUserId: userId }));
    expect(error.kind).toBe('credits');
    expect(error.message).toBe(
      'X API credits are depleted: add credits in the X Developer Console',
    );
    expect((await failure(s.usersByIds([userId]))).kind).toBe('credits');
    expect(fake.requests.map((r) => r.status)).toEqual([200, 402, 402]);
    fake.setCredits(null);
    expect((await s.timeline({ xUserId: userId })).tweets).toHaveLength(2);
  });

  it('maps a refused token to auth without retrying, until the token is accepted again', async () => {
    const s = source();
    fake.setAuthFailure(401);
    expect((await failure(s.lookupUser('XDevelopers'))).kind).toBe('auth');
    fake.setAuthFailure(403);
    expect((await failure(s.usersByIds([userId]))).kind).toBe('auth');
    expect(fake.requests.map((r) => r.status)).toEqual([401, 403]);
    fake.setAuthFailure(null);
    expect((await s.lookupUser('XDevelopers')).xUserId).toBe(userId);
  });
});

describe('x-api source: time limit of a request', () => {
  it('gives up on a request that is never answered, retries, then reports unavailable', async () => {
    fake.stallNext('users/tweets', { times: 10 });
    const started = Date.now();
    const error = await failure(
      source({ timeoutMs: 200, maxRetries: 2 }).timeline({ xUserId: userId }),
    );
    expect(error.kind).toBe('unavailable');
    expect(error.message).toBe('X API did not answer within 0.2 s');
    expect(fake.requests).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  });

  it('times out a body that never ends and succeeds on the retry', async () => {
    fake.stallNext('users/tweets', { phase: 'body' });
    const page = await source({ timeoutMs: 200 }).timeline({ xUserId: userId });
    expect(page.tweets).toHaveLength(2);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 200]);
    // Only the answer that arrived whole was billed.
    expect(fake.requests.map((r) => r.billed.posts)).toEqual([0, 2]);
  });

  it('waits for a slow answer within the limit', async () => {
    fake.stallNext('users/by/username', { ms: 100 });
    const profile = await source({ timeoutMs: 2_000 }).lookupUser('XDevelopers');
    expect(profile.xUserId).toBe(userId);
    expect(fake.requests).toHaveLength(1);
  });

  it('throws the caller’s abort reason at once, without retrying', async () => {
    fake.stallNext('users/tweets', { times: 5 });
    const controller = new AbortController();
    const reason = new Error('collector stopping');
    setTimeout(() => controller.abort(reason), 100);
    const s = source({ timeoutMs: 5_000 });
    await expect(s.timeline({ xUserId: userId }, controller.signal)).rejects.toBe(reason);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('x-api source: 429 without a reset and the 24-hour app limit', () => {
  it('backs off 60 s after a 429 without reset header, doubling, and sends nothing meanwhile', async () => {
    let clock = Date.now();
    const s = source({ now: () => clock });
    const noReset = { rateLimitHeaders: false };

    fake.failNext('users/tweets', 429, 1, noReset);
    let error = await failure(s.timeline({ xUserId: userId }));
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 60_000 });
    clock += 59_000;
    error = await failure(s.timeline({ xUserId: userId }));
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 1_000 });
    expect(fake.requests).toHaveLength(1);
    expect(s.rateStatus().endpoints).toEqual([
      {
        endpoint: 'users/tweets',
        limit: null,
        remaining: 0,
        resetAt: new Date(clock + 1_000).toISOString(),
      },
    ]);
    // Other endpoints are not held back.
    await s.lookupUser('XDevelopers');

    clock += 1_000;
    fake.failNext('users/tweets', 429, 1, noReset);
    error = await failure(s.timeline({ xUserId: userId }));
    expect(error.retryAfterMs).toBe(120_000);
    clock += 120_000;
    // The v1.1-style body counts the same.
    fake.failNext('users/tweets', 429, 1, {
      rateLimitHeaders: false,
      body: { errors: [{ code: 88, message: 'Rate limit exceeded' }] },
    });
    error = await failure(s.timeline({ xUserId: userId }));
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 240_000 });
    expect(error.message).toContain('Rate limit exceeded');

    // A success ends the run: the next header-less 429 waits 60 s again.
    clock += 240_000;
    await s.timeline({ xUserId: userId });
    fake.failNext('users/tweets', 429, 1, noReset);
    expect((await failure(s.timeline({ xUserId: userId }))).retryAfterMs).toBe(60_000);
    expect(fake.requests.filter((r) => r.endpoint === 'users/tweets')).toHaveLength(5);
  });

  it('caps the header-less back-off at 15 minutes', async () => {
    let clock = Date.now();
    const s = source({ now: () => clock });
    const waits: number[] = [];
    for (let n = 0; n < 6; n++) {
      fake.failNext('tweets', 429, 1, { rateLimitHeaders: false });
      const error = await failure(s.tweetsByIds(['1524796546306478083']));
      waits.push(error.retryAfterMs!);
      clock += error.retryAfterMs!;
    }
    expect(waits).toEqual([60_000, 120_000, 240_000, 480_000, 900_000, 900_000]);
  });

  it('refuses every endpoint once the app’s 24-hour budget is spent, until its reset', async () => {
    fake.setAppDayLimit({ limit: 1_000, remaining: 2, resetInSeconds: 3_600 });
    const s = source();
    await s.lookupUser('XDevelopers');
    expect(s.rateStatus().appDay).toMatchObject({ limit: 1_000, remaining: 1 });
    await s.timeline({ xUserId: userId });
    const status = s.rateStatus();
    expect(status.appDay).toMatchObject({ limit: 1_000, remaining: 0 });
    expect(Date.parse(status.appDay!.resetAt!) - Date.now()).toBeGreaterThan(3_500_000);
    expect(status.endpoints.map((e) => e.endpoint)).toEqual(['users/tweets', 'users/by/username']);

    for (const call of [
      () => s.timeline({ xUserId: userId }),
      () => s.tweetsByIds(['1524796546306478083']),
      () => s.usersByIds([userId]),
    ]) {
      const error = await failure(call());
      expect(error.kind).toBe('rate_limited');
      expect(error.message).toContain('24-hour');
      expect(error.retryAfterMs).toBeGreaterThan(3_500_000);
    }
    expect(fake.requests).toHaveLength(2);

    // Another instance that did not know gets X's 429 and learns the reset from it.
    const other = source();
    const error = await failure(other.tweetsByIds(['1524796546306478083']));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(3_500_000);
    expect(fake.requests.at(-1)!.status).toBe(429);
  });

  it('reaches 3,200 posts deep', () => {
    expect(source().timelineDepth).toBe(3_200);
  });
});
