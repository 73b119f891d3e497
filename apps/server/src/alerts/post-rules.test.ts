import {
  ALERT_METRICS,
  type EngagementMultipleKind,
  type MetricThresholdKind,
  type PostAlertKind,
  type WordsKind,
} from '@perch/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluatePostRule, firingKey, isPostRule, withoutFired } from './post-rules.js';
import type { AlertPost, Firing, MetricReading, PostRuleContext } from './types.js';

const HOUR = 3_600_000;
const CREATED = Date.parse('2026-03-01T12:00:00.000Z');
const NOW = CREATED + 200 * HOUR;
const CONTEXT: PostRuleContext = { now: NOW, medianEngagement: { week: 10, month: 20 } };

const rule = <K extends PostAlertKind>(kind: K, enabled = true) => ({ id: 7, enabled, kind });
const reading = (hours: number, counts: Partial<MetricReading> = {}): MetricReading => ({
  takenAt: CREATED + hours * HOUR,
  likes: 0,
  retweets: 0,
  replies: 0,
  quotes: 0,
  ...counts,
});
const post = (readings: MetricReading[], text = ''): AlertPost => ({
  id: '1900',
  text,
  createdAt: CREATED,
  readings,
});
const threshold = (
  metric: MetricThresholdKind['metric'],
  value: number,
  withinHours: number,
): MetricThresholdKind => ({
  type: 'metric_threshold',
  metric,
  threshold: value,
  within_hours: withinHours,
});

describe('metric_threshold', () => {
  it('fires on the latest reading within the hours after posting, with its numbers', () => {
    const readings = [reading(1, { likes: 40 }), reading(5, { likes: 120 })];
    expect(evaluatePostRule(rule(threshold('likes', 100, 6)), post(readings), CONTEXT)).toEqual({
      ruleId: 7,
      postId: '1900',
      at: NOW,
      numbers: { value: 120, threshold: 100, within_hours: 6, taken_at: CREATED + 5 * HOUR },
    });
  });

  it('does not count a reading taken after the window, even a higher one', () => {
    const readings = [reading(1, { likes: 40 }), reading(30, { likes: 500 })];
    expect(evaluatePostRule(rule(threshold('likes', 100, 24)), post(readings), CONTEXT)).toBe(null);
    // The window's edge counts: a reading at exactly 24 h is inside.
    const atEdge = [reading(24, { likes: 100 })];
    expect(evaluatePostRule(rule(threshold('likes', 100, 24)), post(atEdge), CONTEXT)).not.toBe(
      null,
    );
  });

  it('reads reposts from retweets, and views only where X gives them', () => {
    const readings = [reading(2, { retweets: 5, views: 900 }), reading(3, { views: null })];
    expect(evaluatePostRule(rule(threshold('reposts', 5, 4)), post(readings), CONTEXT)).toBe(null);
    expect(
      evaluatePostRule(rule(threshold('views', 900, 4)), post(readings), CONTEXT)?.numbers.value,
    ).toBe(900);
    expect(
      evaluatePostRule(rule(threshold('views', 1, 4)), post([reading(1)]), CONTEXT),
    ).toBeNull();
  });

  it('does not fire when switched off, or without readings', () => {
    const readings = [reading(1, { likes: 500 })];
    expect(evaluatePostRule(rule(threshold('likes', 1, 2), false), post(readings), CONTEXT)).toBe(
      null,
    );
    expect(evaluatePostRule(rule(threshold('likes', 1, 2)), post([]), CONTEXT)).toBe(null);
  });

  /** Readings at distinct times from 2 h before posting to 200 h after. */
  const readingsArb = fc
    .uniqueArray(fc.integer({ min: -120, max: 12_000 }), { maxLength: 12 })
    .chain((minutes) =>
      fc.tuple(
        ...minutes.map((minute) =>
          fc.record({
            takenAt: fc.constant(CREATED + minute * 60_000),
            likes: fc.nat(300),
            retweets: fc.nat(300),
            replies: fc.nat(300),
            quotes: fc.nat(300),
            views: fc.option(fc.nat(10_000), { nil: null }),
          }),
        ),
      ),
    );
  const kindArb = fc.record({
    type: fc.constant('metric_threshold' as const),
    metric: fc.constantFrom(...ALERT_METRICS),
    threshold: fc.integer({ min: 1, max: 400 }),
    within_hours: fc.integer({ min: 1, max: 168 }),
  });
  const valueOf = (kind: MetricThresholdKind, r: MetricReading) =>
    ({
      likes: r.likes,
      reposts: r.retweets,
      replies: r.replies,
      quotes: r.quotes,
      views: r.views ?? null,
    })[kind.metric];

  it('fires iff the last known value within the window reaches the threshold', () => {
    fc.assert(
      fc.property(kindArb, readingsArb, (kind, readings) => {
        const until = CREATED + kind.within_hours * HOUR;
        const last = readings
          .filter((r) => r.takenAt >= CREATED && r.takenAt <= until)
          .filter((r) => valueOf(kind, r) !== null)
          .sort((a, b) => a.takenAt - b.takenAt)
          .at(-1);
        const expected = last !== undefined && valueOf(kind, last)! >= kind.threshold;
        const firing = evaluatePostRule(rule(kind), post(readings), CONTEXT);
        expect(firing !== null).toBe(expected);
        if (firing) expect(firing.numbers.value).toBeGreaterThanOrEqual(kind.threshold);
      }),
    );
  });

  it('is monotone in the threshold, and blind to readings after the window', () => {
    fc.assert(
      fc.property(kindArb, readingsArb, fc.integer({ min: 1, max: 400 }), (kind, readings, t) => {
        const fires = (k: MetricThresholdKind, rs: MetricReading[]) =>
          evaluatePostRule(rule(k), post(rs), CONTEXT) !== null;
        if (fires(kind, readings))
          expect(fires({ ...kind, threshold: Math.min(t, kind.threshold) }, readings)).toBe(true);
        const late = reading(kind.within_hours + 1, {
          likes: 999,
          retweets: 999,
          replies: 999,
          quotes: 999,
          views: 99_999,
        });
        expect(fires(kind, [...readings, late])).toBe(fires(kind, readings));
      }),
    );
  });
});

describe('engagement_multiple', () => {
  const multiple = (k: number, period: 'week' | 'month' = 'week'): EngagementMultipleKind => ({
    type: 'engagement_multiple',
    multiple: k,
    period,
  });

  it('fires when engagement reaches the multiple of the period median, with its numbers', () => {
    // Engagement 10 + 5 + 3 + 2 = 20 = 2 x the week median of 10, below 2 x the month median.
    const readings = [reading(200, { likes: 10, retweets: 5, replies: 3, quotes: 2 })];
    expect(evaluatePostRule(rule(multiple(2)), post(readings), CONTEXT)?.numbers).toEqual({
      engagement: 20,
      median: 10,
      multiple: 2,
      threshold: 20,
      taken_at: CREATED + 200 * HOUR,
    });
    expect(evaluatePostRule(rule(multiple(2, 'month')), post(readings), CONTEXT)).toBe(null);
  });

  it('uses the latest reading, at any age', () => {
    const readings = [reading(300, { likes: 50 }), reading(1, { likes: 5 })];
    expect(evaluatePostRule(rule(multiple(5)), post(readings), CONTEXT)?.numbers.engagement).toBe(
      50,
    );
  });

  it('does not fire with a median of 0 or unknown', () => {
    const readings = [reading(1, { likes: 1000 })];
    for (const medianEngagement of [{ week: 0 }, { week: null }, {}]) {
      expect(
        evaluatePostRule(rule(multiple(1.5)), post(readings), { now: NOW, medianEngagement }),
      ).toBe(null);
    }
  });

  it('fires iff engagement >= multiple x median, monotone in the multiple', () => {
    const counts = fc.nat(5_000);
    fc.assert(
      fc.property(
        fc.tuple(counts, counts, counts, counts),
        fc.double({ min: 1.001, max: 1000, noNaN: true }),
        fc.option(fc.double({ min: 0, max: 5_000, noNaN: true }), { nil: null }),
        ([likes, retweets, replies, quotes], k, median) => {
          const p = post([reading(3, { likes, retweets, replies, quotes })]);
          const context = { now: NOW, medianEngagement: { month: median } };
          const fires = (m: number) => evaluatePostRule(rule(multiple(m, 'month')), p, context);
          const engagement = likes + retweets + replies + quotes;
          expect(fires(k) !== null).toBe(median !== null && median > 0 && engagement >= k * median);
          if (fires(k)) expect(fires(1.001 + (k - 1.001) / 2)).not.toBe(null);
        },
      ),
    );
  });
});

describe('words', () => {
  const words = (include: string[], exclude: string[] = []): WordsKind => ({
    type: 'words',
    include,
    exclude,
  });
  const matches = (kind: WordsKind, text: string) =>
    evaluatePostRule(rule(kind), post([], text), CONTEXT) !== null;

  it('matches whole words in any script, and exclude wins', () => {
    expect(matches(words(['launch']), 'Launch day!')).toBe(true);
    expect(matches(words(['launch']), 'Relaunching soon')).toBe(false);
    expect(matches(words(['запуск']), 'ЗАПУСК ракеты')).toBe(true);
    expect(matches(words(['抽奖']), '参加抽奖活动')).toBe(true);
    expect(matches(words(['free giveaway']), 'A FREE\ngiveaway')).toBe(true);
    expect(matches(words(['launch'], ['delayed']), 'Launch delayed')).toBe(false);
    expect(evaluatePostRule(rule(words(['launch'])), post([], 'launch'), CONTEXT)).toEqual({
      ruleId: 7,
      postId: '1900',
      at: NOW,
      numbers: {},
    });
  });

  const wordArb = fc.constantFrom<string>(
    'rocket',
    'orbit',
    'ракета',
    'орбита',
    'πύραυλος',
    'τροχιά',
    'صاروخ',
    'مدار',
    'רקטה',
  );
  const textArb = fc.array(wordArb, { maxLength: 8 });
  const separatorArb = fc.constantFrom(' ', ', ', '! ', ' — ', '\n', ' #');

  it('fires iff an included word is present and no excluded one, as whole words', () => {
    fc.assert(
      fc.property(
        textArb,
        wordArb,
        fc.option(wordArb, { nil: undefined }),
        separatorArb,
        (textWords, include, exclude, separator) => {
          // The contract refuses a term in both lists.
          fc.pre(include !== exclude);
          const text = textWords.join(separator);
          const kind = words([include], exclude === undefined ? [] : [exclude]);
          const has = (word: string) => textWords.includes(word);
          expect(matches(kind, text)).toBe(
            has(include) && !(exclude !== undefined && has(exclude)),
          );
          // Glued to more letters it is another word.
          expect(matches(words([include]), textWords.map((w) => `${w}x`).join(' '))).toBe(false);
        },
      ),
    );
  });
});

describe('firing keys', () => {
  const firing = (ruleId: number, postId?: string): Firing => ({
    ruleId,
    postId,
    at: NOW,
    numbers: {},
  });

  it('drops firings already recorded and repeats within the batch', () => {
    const fired = new Set([firingKey(1, 'a')]);
    const batch = [firing(1, 'a'), firing(1, 'b'), firing(2, 'a'), firing(1, 'b'), firing(3)];
    expect(withoutFired(batch, fired)).toEqual([firing(1, 'b'), firing(2, 'a'), firing(3)]);
  });

  it('gives one key per rule and post', () => {
    fc.assert(
      fc.property(fc.nat(), fc.string(), fc.nat(), fc.string(), (r1, p1, r2, p2) => {
        expect(firingKey(r1, p1) === firingKey(r2, p2)).toBe(r1 === r2 && p1 === p2);
      }),
    );
  });

  it('tells post rules from handle rules', () => {
    expect(isPostRule(rule({ type: 'words', include: ['x'], exclude: [] }))).toBe(true);
    expect(isPostRule({ id: 1, enabled: true, kind: { type: 'silence', days: 3 } })).toBe(false);
  });
});
