import { WEEKDAYS } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { postingPatterns, topIndices } from './posting-patterns.js';
import { at, makeTweet, prepare } from './test-factories.js';

const zeros = () => new Array<number>(24).fill(0);

describe('postingPatterns', () => {
  it('is all zeros with every weekday at 0 for an empty window', () => {
    expect(postingPatterns(prepare())).toEqual({
      heatmap: [zeros(), zeros(), zeros(), zeros(), zeros(), zeros(), zeros()],
      hourly: zeros(),
      peak_hours: [],
      // Every weekday, Monday to Sunday.
      peak_days: WEEKDAYS.map((day) => ({ day, count: 0 })),
    });
  });

  it('counts posts per local weekday and hour, with ties in calendar and clock order', () => {
    const tweets = [
      // Berlin is UTC+1 in March before the 29th: Tuesday 2026-03-03 09:xx local.
      makeTweet({ id: '1', createdAt: at('2026-03-03T08:00:00.000Z') }),
      makeTweet({ id: '2', createdAt: at('2026-03-10T08:59:00.000Z') }),
      // Friday 2026-03-06 09:30 and 17:00 local.
      makeTweet({ id: '3', createdAt: at('2026-03-06T08:30:00.000Z') }),
      makeTweet({ id: '4', createdAt: at('2026-03-06T16:00:00.000Z') }),
      // Sunday 00:30 in Berlin but before the window's UTC start: not counted.
      makeTweet({ id: '5', createdAt: at('2026-02-28T23:30:00.000Z') }),
      makeTweet({ id: '6', createdAt: at('2026-03-01T23:30:00.000Z') }),
      // A retweet is not a post.
      makeTweet({ id: '7', createdAt: at('2026-03-06T16:00:00.000Z'), isRetweet: true }),
    ];
    const patterns = postingPatterns(prepare({ tweets, timezone: 'Europe/Berlin' }));
    const hourly = zeros();
    hourly[9] = 3;
    hourly[17] = 1;
    hourly[0] = 1;
    expect(patterns.hourly).toEqual(hourly);
    expect(patterns.heatmap[1]![9]).toBe(2);
    expect(patterns.heatmap[4]![9]).toBe(1);
    expect(patterns.heatmap[4]![17]).toBe(1);
    // 2026-03-01 23:30 UTC is Monday 2026-03-02 00:30 in Berlin.
    expect(patterns.heatmap[0]![0]).toBe(1);
    expect(patterns.heatmap.flat().reduce((a, b) => a + b, 0)).toBe(5);
    expect(patterns.peak_hours).toEqual([9, 0, 17]);
    expect(patterns.peak_days).toEqual([
      { day: 'Tuesday', count: 2 },
      { day: 'Friday', count: 2 },
      { day: 'Monday', count: 1 },
      { day: 'Wednesday', count: 0 },
      { day: 'Thursday', count: 0 },
      { day: 'Saturday', count: 0 },
      { day: 'Sunday', count: 0 },
    ]);
  });
});

describe('topIndices', () => {
  it('lists non-zero counts, most first, equal counts by index, at most the limit', () => {
    expect(topIndices([0, 2, 5, 2, 0, 5, 1], 3)).toEqual([2, 5, 1]);
    expect(topIndices([0, 1], 3)).toEqual([1]);
    expect(topIndices([0, 0], 3)).toEqual([]);
  });
});
