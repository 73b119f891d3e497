import { describe, expect, it } from 'vitest';
import { at, makeInput, makeProfileSnapshot, makeTweet, prepare } from './test-factories.js';
import { formatDay } from './timezone.js';
import { contentTypeOf, engagementOf, prepareWindow } from './window.js';

describe('prepareWindow', () => {
  it('keeps tweets at both ends of the window and drops those just outside', () => {
    const prepared = prepare({
      window: { start: at('2026-03-01T00:00:00.000Z'), end: at('2026-03-08T00:00:00.000Z') },
      tweets: [
        makeTweet({ id: '1', createdAt: at('2026-02-28T23:59:59.999Z') }),
        makeTweet({ id: '2', createdAt: at('2026-03-01T00:00:00.000Z') }),
        makeTweet({ id: '3', createdAt: at('2026-03-08T00:00:00.000Z') }),
        makeTweet({ id: '4', createdAt: at('2026-03-08T00:00:00.001Z') }),
        makeTweet({ id: '5', createdAt: at('2026-03-08T00:00:00.000Z'), isRetweet: true }),
        makeTweet({ id: '6', createdAt: at('2026-03-08T00:00:00.001Z'), isRetweet: true }),
      ],
    });
    expect(prepared.posts.map((post) => post.tweet.id)).toEqual(['2', '3']);
    expect(prepared.retweetCount).toBe(1);
  });

  it('splits posts from retweets and sums the posts only', () => {
    const prepared = prepare({
      tweets: [
        makeTweet({ id: '1', likes: 5, retweets: 2, replies: 1, quotes: 1 }),
        makeTweet({ id: '2', likes: 100, retweets: 50, isRetweet: true }),
        makeTweet({ id: '3', likes: 3, isReply: true }),
        makeTweet({ id: '4', quotes: 4, isQuote: true }),
      ],
    });
    expect(prepared.posts.map((post) => [post.tweet.id, post.engagement])).toEqual([
      ['1', 9],
      ['3', 3],
      ['4', 4],
    ]);
    expect(prepared.retweetCount).toBe(1);
    expect(prepared.totals).toEqual({
      likes: 8,
      retweets: 2,
      replies: 1,
      quotes: 5,
      engagement: 16,
    });
  });

  it('buckets posts by local date, weekday and hour across New York DST days', () => {
    const prepared = prepare({
      timezone: 'America/New_York',
      tweets: [
        // Saturday 2026-03-07 23:30 EST.
        makeTweet({ id: '1', createdAt: at('2026-03-08T04:30:00.000Z') }),
        // Sunday 2026-03-08 01:30 EST, then 03:30 EDT one UTC hour later (02:xx does not exist).
        makeTweet({ id: '2', createdAt: at('2026-03-08T06:30:00.000Z') }),
        makeTweet({ id: '3', createdAt: at('2026-03-08T07:30:00.000Z') }),
        // Sunday 2026-11-01 01:30 EDT and, an hour later, 01:30 EST again.
        makeTweet({ id: '4', createdAt: at('2026-11-01T05:30:00.000Z') }),
        makeTweet({ id: '5', createdAt: at('2026-11-01T06:30:00.000Z') }),
        // Sunday 2026-11-01 23:30 EST is Monday in UTC.
        makeTweet({ id: '6', createdAt: at('2026-11-02T04:30:00.000Z') }),
      ],
      window: { start: at('2026-03-01T00:00:00.000Z'), end: at('2026-11-30T00:00:00.000Z') },
    });
    expect(prepared.posts.map((p) => [formatDay(p.day), p.weekday, p.hour])).toEqual([
      ['2026-03-07', 5, 23],
      ['2026-03-08', 6, 1],
      ['2026-03-08', 6, 3],
      ['2026-11-01', 6, 1],
      ['2026-11-01', 6, 1],
      ['2026-11-01', 6, 23],
    ]);
    // 2026-03-01 00:00 UTC is still February 28 in New York.
    expect(formatDay(prepared.firstDay)).toBe('2026-02-28');
    expect(formatDay(prepared.lastDay)).toBe('2026-11-29');
  });

  it('reads followers and following from the latest snapshot, even one after the window', () => {
    const prepared = prepare({
      profileSnapshots: [
        makeProfileSnapshot('2026-03-10T00:00:00.000Z', 500, 50),
        makeProfileSnapshot('2026-04-02T00:00:00.000Z', 520, 52),
        makeProfileSnapshot('2026-02-01T00:00:00.000Z', 400, 40),
      ],
    });
    expect(prepared.followers).toBe(520);
    expect(prepared.following).toBe(52);
    // Only the window's snapshots feed growth.
    expect(prepared.profileSnapshots.map((s) => s.followers)).toEqual([500]);
  });

  it('has null followers and following without a profile snapshot', () => {
    const prepared = prepare();
    expect(prepared.followers).toBeNull();
    expect(prepared.following).toBeNull();
    expect(prepared.posts).toEqual([]);
  });

  it('sorts the window profile snapshots by time', () => {
    const prepared = prepareWindow(
      makeInput({
        profileSnapshots: [
          makeProfileSnapshot('2026-03-20T00:00:00.000Z', 3),
          makeProfileSnapshot('2026-03-05T00:00:00.000Z', 1),
          makeProfileSnapshot('2026-03-10T00:00:00.000Z', 2),
        ],
      }),
    );
    expect(prepared.profileSnapshots.map((s) => s.followers)).toEqual([1, 2, 3]);
  });
});

describe('contentTypeOf', () => {
  const media = (type: 'photo' | 'video' | 'animated_gif') => ({
    type,
    url: null,
    previewUrl: null,
  });

  it('ranks video (or GIF) over image over link over text', () => {
    expect(contentTypeOf(makeTweet({ id: '1', media: [media('photo'), media('video')] }))).toBe(
      'video',
    );
    expect(
      contentTypeOf(
        makeTweet({ id: '2', media: [media('animated_gif')], urls: ['https://a.example'] }),
      ),
    ).toBe('video');
    expect(
      contentTypeOf(makeTweet({ id: '3', media: [media('photo')], urls: ['https://a.example'] })),
    ).toBe('image');
    expect(contentTypeOf(makeTweet({ id: '4', urls: ['https://a.example/post'] }))).toBe('link');
    expect(contentTypeOf(makeTweet({ id: '5' }))).toBe('text');
  });

  it('does not count links to X or Twitter statuses as links', () => {
    const statusLinks = [
      'https://x.com/someone/status/123',
      'http://twitter.com/someone/statuses/456',
      'https://www.twitter.com/a/status/7/photo/1',
      'https://mobile.x.com/b/status/8',
      'HTTPS://X.COM/C/STATUS/9',
    ];
    expect(contentTypeOf(makeTweet({ id: '1', urls: statusLinks }))).toBe('text');
    // A profile on X is not a status; one outside link among status links makes a link post.
    expect(contentTypeOf(makeTweet({ id: '2', urls: ['https://x.com/someone'] }))).toBe('link');
    expect(
      contentTypeOf(makeTweet({ id: '3', urls: [...statusLinks, 'https://example.org'] })),
    ).toBe('link');
  });
});

describe('engagementOf', () => {
  it('adds likes, retweets, replies and quotes', () => {
    expect(engagementOf({ likes: 1, retweets: 20, replies: 300, quotes: 4000 })).toBe(4321);
  });
});
