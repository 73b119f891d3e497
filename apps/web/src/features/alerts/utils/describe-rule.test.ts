import type { AlertKind } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { describeRule, firingNumbers, termList } from './describe-rule';

describe('describeRule', () => {
  it.each<[AlertKind, string]>([
    [
      { type: 'metric_threshold', metric: 'likes', threshold: 1000, within_hours: 24 },
      'A post reaches 1,000 likes within 24 hours of posting.',
    ],
    [
      { type: 'metric_threshold', metric: 'replies', threshold: 1, within_hours: 1 },
      'A post reaches 1 reply within 1 hour of posting.',
    ],
    [
      { type: 'engagement_multiple', multiple: 2.5, period: 'week' },
      "A post's engagement reaches 2.5× the handle's median of the last 7 days.",
    ],
    [
      { type: 'engagement_multiple', multiple: 3, period: 'month' },
      "A post's engagement reaches 3× the handle's median of the last 30 days.",
    ],
    [{ type: 'words', include: ['launch'], exclude: [] }, 'A post mentions “launch”.'],
    [
      { type: 'words', include: ['a', 'b', 'c'], exclude: ['d'] },
      'A post mentions “a”, “b” or “c”, but not “d”.',
    ],
    [
      { type: 'follower_change', percent: 5, accounts: 100, direction: 'down' },
      'Followers drop by 5% or 100 accounts within 24 hours.',
    ],
    [
      { type: 'follower_change', accounts: 1, direction: 'up' },
      'Followers grow by 1 account within 24 hours.',
    ],
    [
      { type: 'follower_change', percent: 12.5, direction: 'either' },
      'Followers change by 12.5% within 24 hours.',
    ],
    [{ type: 'silence', days: 1 }, 'The handle has not posted for 1 day.'],
    [{ type: 'silence', days: 14 }, 'The handle has not posted for 14 days.'],
  ])('describes %j', (kind, text) => {
    expect(describeRule(kind)).toBe(text);
  });

  it('joins terms with commas and a final "or"', () => {
    expect(termList([])).toBe('');
    expect(termList(['x'])).toBe('“x”');
    expect(termList(['x', 'y'])).toBe('“x” or “y”');
  });
});

describe('firingNumbers', () => {
  it('names the numbers, in a set order, with signs, percentages and times', () => {
    const numbers = firingNumbers(
      { type: 'follower_change', percent: 5, direction: 'either' },
      {
        taken_at: Date.parse('2025-03-10T12:00:00.000Z'),
        change: -120,
        followers: 880,
        followers_before: 1000,
        percent_change: 12,
        percent: 5,
        something_new: 7,
      },
    );
    expect(numbers.map(({ label, value }) => [label, value])).toEqual([
      ['Followers', '880'],
      ['Before', '1,000'],
      ['Change', '−120'],
      ['Change (%)', '12%'],
      ['Percent needed', '5%'],
      ['Measured', expect.stringMatching(/Mar 10, 2025/)],
      ['Something new', '7'],
    ]);
  });

  it('names a threshold rule’s value by its metric', () => {
    const numbers = firingNumbers(
      { type: 'metric_threshold', metric: 'views', threshold: 5000, within_hours: 6 },
      { threshold: 5000, value: 6123.4 },
    );
    expect(numbers.map(({ label, value }) => [label, value])).toEqual([
      ['Views', '6,123.4'],
      ['Threshold', '5,000'],
    ]);
  });
});
