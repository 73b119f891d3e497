/**
 * Behaviour only the x-api source has: rate-limit headers, retries, auth failures and the wire
 * mapping, all against the loopback fake X server (real HTTP, no mocks of our code).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeXServer, type FakeXServer } from '../../../test/fakes/fake-x-server.js';
import { SourceError } from './types.js';
import { createXApiSource, type XApiSourceOptions } from './x-api-source.js';

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

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

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
      expansions: 'attachments.media_keys',
      'media.fields': 'type,url,preview_image_url',
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

  it.each([401, 402, 403])('maps %i to auth with exactly one request', async (status) => {
    fake.failNext('tweets', status, 5);
    const error = await failure(source().tweetsByIds(['1524796546306478083']));
    expect(error.kind).toBe('auth');
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
