import { describe, expect, it } from 'vitest';
import { makeCompleteAnalytics, withPrevious } from '../test/analytics-fixtures';
import {
  peakComparison,
  periodName,
  pointsComparison,
  previousPartlyCollectedFrom,
  previousValues,
  relativeComparison,
} from './compare';

describe('comparison texts', () => {
  it('names the period', () => {
    expect(periodName(7)).toBe('week');
    expect(periodName(30)).toBe('month');
    expect(periodName(14)).toBe('14 days');
  });

  it.each([
    { now: 112, before: 100, period: 7, text: '+12% vs last week', tone: 'up', value: '+12%' },
    { now: 75, before: 100, period: 30, text: '-25% vs last month', tone: 'down', value: '-25%' },
    { now: 100.4, before: 100, period: 7, text: '+0.4% vs last week', tone: 'up', value: '+0.4%' },
    {
      now: 3,
      before: 2,
      period: 14,
      text: '+50% vs the previous 14 days',
      tone: 'up',
      value: '+50%',
    },
  ])(
    'gives a change in percent of the previous value, up green and down red: $text',
    ({ now, before, period, ...expected }) => {
      expect(relativeComparison(now, before, period)).toEqual(expected);
    },
  );

  it('is neutral when equal, and never a percentage of nothing', () => {
    expect(relativeComparison(100, 100, 7)).toEqual({
      text: 'same as last week',
      tone: 'neutral',
    });
    expect(relativeComparison(5, 0, 7)).toEqual({ text: 'up from 0 last week', tone: 'up' });
    expect(relativeComparison(0, 0, 7)).toEqual({ text: 'same as last week', tone: 'neutral' });
    expect(relativeComparison(5, null, 30)).toEqual({
      text: 'no data last month',
      tone: 'neutral',
    });
    // A period without posts: its zeros are no data, not a value.
    expect(relativeComparison(5, 0, 7, false)).toEqual({
      text: 'no data last week',
      tone: 'neutral',
    });
    expect(relativeComparison(5, 0, 14, false)?.text).toBe('no data the previous 14 days');
    expect(relativeComparison(null, 4, 7)).toBeNull();
  });

  it('compares growth in points', () => {
    expect(pointsComparison(1.25, 0.75, 7)).toEqual({
      text: '+0.5 pts vs last week',
      tone: 'up',
      value: '+0.5 pts',
    });
    expect(pointsComparison(-2, 1.5, 7)).toEqual({
      text: '-3.5 pts vs last week',
      tone: 'down',
      value: '-3.5 pts',
    });
    expect(pointsComparison(1, 1, 7)?.tone).toBe('neutral');
    expect(pointsComparison(1, null, 7)?.text).toBe('no data last week');
    expect(pointsComparison(null, 1, 7)).toBeNull();
  });

  it('puts the previous peak beside this one', () => {
    const tuesday = { peak_day: 'Tuesday', peak_hour: 14 } as const;
    expect(peakComparison(tuesday, { peak_day: 'Monday', peak_hour: 9 }, 7)).toEqual({
      text: 'last week: Mon 09:00',
      tone: 'neutral',
    });
    expect(peakComparison(tuesday, tuesday, 30)?.text).toBe('same as last month');
    expect(peakComparison(tuesday, { peak_day: null, peak_hour: null }, 7)?.text).toBe(
      'no data last week',
    );
  });
});

describe('the previous period on the chart', () => {
  const week = makeCompleteAnalytics('nasa', {
    period: 7,
    window: { start: '2025-03-03T12:00:00.000Z', end: '2025-03-10T12:00:00.000Z' },
    collected_since: '2025-02-01T00:00:00.000Z',
  });

  const series = ['2025-02-24', '2025-02-25', '2025-02-26'].map((date, index) => ({
    date,
    tweets: index,
    likes: 10 * index,
    retweets: 0,
    replies: 0,
    quotes: 0,
    engagement: 10 * index,
    engagement_rate: null,
  }));

  it('lines the previous days up with the window, point i against point i', () => {
    const data = withPrevious(week, { series });
    expect(previousValues(data, 'likes', 4)).toEqual([0, 10, 20, null]);
    expect(previousValues(data, 'engagement_rate', 2)).toEqual([null, null]);
    expect(previousValues(week, 'likes', 2)).toEqual([null, null]);
  });

  it('draws nothing before collection began, and nothing at all when it began later', () => {
    const partly = withPrevious(
      { ...week, collected_since: '2025-02-25T08:00:00.000Z' },
      { series },
    );
    // Feb 24 was not collected: no point there, rather than a 0.
    expect(previousValues(partly, 'likes', 3)).toEqual([null, 10, 20]);
    expect(previousPartlyCollectedFrom(partly)).toBe('Feb 25');

    const later = withPrevious({ ...week, collected_since: '2025-03-05T00:00:00.000Z' });
    expect(previousValues(later, 'likes', 2)).toEqual([null, null]);
    expect(previousPartlyCollectedFrom(later)).toBeNull();
    expect(previousPartlyCollectedFrom(withPrevious(week))).toBeNull();
  });
});
