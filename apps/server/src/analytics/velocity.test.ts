import { describe, expect, it } from 'vitest';
import { at, makeMetricSnapshot, makeTweet, prepare } from './test-factories.js';
import { velocity } from './velocity.js';

const HOUR = 3_600_000;
const P = at('2026-03-10T12:00:00.000Z');
const Q = at('2026-03-11T08:00:00.000Z');
const S = at('2026-03-12T08:00:00.000Z');

const tweets = [
  makeTweet({ id: '1', createdAt: P }),
  makeTweet({ id: '2', createdAt: Q }),
  makeTweet({ id: '3', createdAt: S }),
  makeTweet({ id: '4', createdAt: S }),
  makeTweet({ id: '5', createdAt: S, isRetweet: true }),
  makeTweet({ id: '6', createdAt: at('2026-02-20T00:00:00.000Z') }),
];

const metricSnapshots = [
  // Post 1, out of order: engagement 20 at 0.5 h, 50 at 2 h, 60 at 4 h, 100 at 8 h.
  makeMetricSnapshot('1', P + 4 * HOUR, { likes: 40, retweets: 10, replies: 5, quotes: 5 }),
  makeMetricSnapshot('1', P + 0.5 * HOUR, { likes: 20 }),
  makeMetricSnapshot('1', P + 8 * HOUR, { likes: 100 }),
  makeMetricSnapshot('1', P + 2 * HOUR, { likes: 30, retweets: 20 }),
  // Post 2: 12 at exactly 1 h, 27 at 1.5 h; too young for 3 h and 6 h.
  makeMetricSnapshot('2', Q + HOUR, { replies: 12 }),
  makeMetricSnapshot('2', Q + 1.5 * HOUR, { replies: 20, quotes: 7 }),
  // Post 3: only half an hour of history, with two snapshots at one instant.
  makeMetricSnapshot('3', S, {}),
  makeMetricSnapshot('3', S + 0.5 * HOUR, { likes: 5 }),
  makeMetricSnapshot('3', S + 0.5 * HOUR, { likes: 9 }),
  // Post 4: a snapshot from before its creation is ignored, leaving it unmeasured.
  makeMetricSnapshot('4', S - HOUR, { likes: 1000 }),
  // A retweet and a post outside the window are not measured.
  makeMetricSnapshot('5', S + 2 * HOUR, { likes: 9000 }),
  makeMetricSnapshot('6', at('2026-02-20T02:00:00.000Z'), { likes: 9000 }),
];

describe('velocity', () => {
  it('interpolates engagement at 1, 3 and 6 hours and finds the steepest rise', () => {
    const result = velocity(prepare({ tweets, metricSnapshots }));
    // Post 1 at 1 h: 20 + (50 - 20) x 0.5 / 1.5 = 30; post 2 at 1 h: exactly 12.
    expect(result.avg_1h).toBe(21);
    expect(result.posts_measured_1h).toBe(2);
    // Post 1 at 3 h: halfway from 50 to 60 = 55, over 3 hours.
    expect(result.avg_3h).toBeCloseTo(55 / 3, 12);
    expect(result.posts_measured_3h).toBe(1);
    // Post 1 at 6 h: halfway from 60 to 100 = 80, over 6 hours.
    expect(result.avg_6h).toBeCloseTo(80 / 6, 12);
    expect(result.posts_measured_6h).toBe(1);
    // Between snapshots: post 1 gives 20, 5, 10 per hour; post 2 gives 15 in 0.5 h = 30;
    // post 3 gives 10 (its same-instant pair is skipped). Post 1's climb from creation
    // (40 per hour) is not between two snapshots.
    expect(result.peak).toBe(30);
  });

  it('measures a post only once its newest snapshot is as old as the age', () => {
    const result = velocity(
      prepare({
        tweets: [makeTweet({ id: '1', createdAt: P })],
        metricSnapshots: [makeMetricSnapshot('1', P + 3 * HOUR - 1, { likes: 6 })],
      }),
    );
    expect(result).toMatchObject({
      posts_measured_1h: 1,
      posts_measured_3h: 0,
      posts_measured_6h: 0,
      avg_3h: null,
      avg_6h: null,
      // One snapshot makes no pair.
      peak: null,
    });
    // From (creation, 0) to (3 h - 1 ms, 6): at 1 h, 6 x 1 h / (3 h - 1 ms).
    expect(result.avg_1h).toBeCloseTo((6 * HOUR) / (3 * HOUR - 1), 12);
  });

  it('is all null with zero counts without snapshots, never estimated from totals', () => {
    const result = velocity(
      prepare({ tweets: [makeTweet({ id: '1', createdAt: P, likes: 500, retweets: 80 })] }),
    );
    expect(result).toEqual({
      avg_1h: null,
      avg_3h: null,
      avg_6h: null,
      posts_measured_1h: 0,
      posts_measured_3h: 0,
      posts_measured_6h: 0,
      peak: null,
    });
  });
});
