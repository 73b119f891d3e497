import { describe, expect, it } from 'vitest';
import { emptyTimeseriesPoint } from '@perch/shared';
import { at, makeProfileSnapshot, makeTweet, marchDays, prepare } from './test-factories.js';
import { timeseries } from './timeseries.js';

describe('timeseries', () => {
  it('lists every day of the window, oldest first, empty days included', () => {
    const { series } = timeseries(
      prepare({
        window: { start: at('2026-03-01T10:00:00.000Z'), end: at('2026-03-04T10:00:00.000Z') },
      }),
    );
    expect(series).toEqual([
      emptyTimeseriesPoint('2026-03-01', null),
      emptyTimeseriesPoint('2026-03-02', null),
      emptyTimeseriesPoint('2026-03-03', null),
      emptyTimeseriesPoint('2026-03-04', null),
    ]);
  });

  it('sums each day and rates it by its posts and the followers', () => {
    const { series } = timeseries(
      prepare({
        window: { start: at('2026-03-01T10:00:00.000Z'), end: at('2026-03-03T10:00:00.000Z') },
        tweets: [
          makeTweet({ id: '1', createdAt: at('2026-03-01T11:00:00.000Z'), likes: 6, retweets: 2 }),
          makeTweet({ id: '2', createdAt: at('2026-03-01T23:59:59.999Z'), replies: 1, quotes: 1 }),
          makeTweet({ id: '3', createdAt: at('2026-03-03T10:00:00.000Z'), likes: 40 }),
          makeTweet({
            id: '4',
            createdAt: at('2026-03-02T12:00:00.000Z'),
            likes: 9,
            isRetweet: true,
          }),
        ],
        profileSnapshots: [makeProfileSnapshot('2026-02-01T00:00:00.000Z', 200)],
      }),
    );
    expect(series).toEqual([
      // (8 + 2) / 2 posts / 200 x 100.
      {
        date: '2026-03-01',
        tweets: 2,
        likes: 6,
        retweets: 2,
        replies: 1,
        quotes: 1,
        engagement: 10,
        engagement_rate: 2.5,
      },
      emptyTimeseriesPoint('2026-03-02', 0),
      {
        date: '2026-03-03',
        tweets: 1,
        likes: 40,
        retweets: 0,
        replies: 0,
        quotes: 0,
        engagement: 40,
        engagement_rate: 20,
      },
    ]);
  });

  it('has a null rate on every day when followers are 0', () => {
    const { series } = timeseries(
      prepare({
        window: { start: at('2026-03-01T00:00:00.000Z'), end: at('2026-03-02T00:00:00.000Z') },
        tweets: [makeTweet({ id: '1', createdAt: at('2026-03-01T05:00:00.000Z'), likes: 1 })],
        profileSnapshots: [makeProfileSnapshot('2026-03-01T00:00:00.000Z', 0)],
      }),
    );
    expect(series.map((point) => point.engagement_rate)).toEqual([null, null]);
    expect(series.map((point) => point.tweets)).toEqual([1, 0]);
  });

  it.each([
    {
      change: 'spring-forward',
      // 2026-03-07 12:00 EST to 2026-03-09 12:00 EDT: 47 hours, three local dates.
      window: ['2026-03-07T17:00:00.000Z', '2026-03-09T16:00:00.000Z'],
      postedAt: [
        // 2026-03-08 00:30 EST and 23:30 EDT: both on the 8th.
        '2026-03-08T05:30:00.000Z',
        '2026-03-09T03:30:00.000Z',
        // 2026-03-09 00:30 EDT.
        '2026-03-09T04:30:00.000Z',
      ],
      days: [
        ['2026-03-07', 0],
        ['2026-03-08', 2],
        ['2026-03-09', 1],
      ],
    },
    {
      change: 'fall-back',
      // 2026-10-31 00:00 EDT to 2026-11-02 00:00 EST: 49 hours, three local dates (of the last, only its first instant).
      window: ['2026-10-31T04:00:00.000Z', '2026-11-02T05:00:00.000Z'],
      postedAt: [
        // 2026-11-01 23:30 EST (already November 2 in UTC).
        '2026-11-02T04:30:00.000Z',
        // 2026-10-31 23:59 EDT.
        '2026-11-01T03:59:00.000Z',
        // The window's last instant: 2026-11-02 00:00 EST.
        '2026-11-02T05:00:00.000Z',
      ],
      days: [
        ['2026-10-31', 1],
        ['2026-11-01', 1],
        ['2026-11-02', 1],
      ],
    },
  ])('counts local days across the New York $change day', ({ window, postedAt, days }) => {
    const { series } = timeseries(
      prepare({
        timezone: 'America/New_York',
        window: { start: at(window[0]!), end: at(window[1]!) },
        tweets: postedAt.map((iso, index) =>
          makeTweet({ id: String(index + 1), createdAt: at(iso) }),
        ),
      }),
    );
    expect(series.map((point) => [point.date, point.tweets])).toEqual(days);
  });

  it('has period + 1 days for a window that does not start at local midnight', () => {
    const { series } = timeseries(
      prepare({
        timezone: 'Asia/Kathmandu',
        window: { start: at('2026-03-01T12:34:00.000Z'), end: at('2026-03-08T12:34:00.000Z') },
      }),
    );
    expect(series.map((point) => point.date)).toEqual(marchDays(1, 8));
  });
});
