import { describe, expect, it } from 'vitest';
import { describeFiring } from './alert-summary.js';

describe('describeFiring', () => {
  it('says what each kind of rule saw, with its numbers', () => {
    expect(
      describeFiring(
        'nasa',
        { type: 'metric_threshold', metric: 'reposts', threshold: 1000, within_hours: 1 },
        { value: 1204, threshold: 1000 },
      ),
    ).toBe('A post by @nasa reached 1,204 reposts within 1 hour (threshold 1,000).');
    expect(
      describeFiring(
        'nasa',
        { type: 'engagement_multiple', multiple: 2.5, period: 'month' },
        { engagement: 98211, median: 21400.25 },
      ),
    ).toBe('A post by @nasa has 98,211 engagements, 2.5x or more the monthly median of 21,400.3.');
    expect(
      describeFiring(
        'esa',
        { type: 'follower_change', percent: 2, direction: 'down' },
        { change: -3000, percent_change: 1.5, followers_before: 200000, followers: 197000 },
      ),
    ).toBe('@esa lost 3,000 followers (−1.5%) within 24 hours: 200,000 → 197,000.');
    expect(
      describeFiring('spacex', { type: 'silence', days: 3 }, { days_silent: 4.7, days: 3 }),
    ).toBe('@spacex has not posted for 4 days.');
  });

  it('lists a words rule as alternatives: any of them fires it', () => {
    const words = (include: string[]) =>
      describeFiring('nasa', { type: 'words', include, exclude: [] }, {});
    expect(words(['launch'])).toBe('A post by @nasa mentions "launch".');
    expect(words(['launch', 'liftoff'])).toBe('A post by @nasa mentions "launch" or "liftoff".');
    expect(words(['a', 'b', 'c'])).toBe('A post by @nasa mentions "a", "b" or "c".');
  });

  it('a follower gain of one is singular', () => {
    expect(
      describeFiring(
        'esa',
        { type: 'follower_change', accounts: 1, direction: 'up' },
        { change: 1, followers_before: 0, followers: 1 },
      ),
    ).toBe('@esa gained 1 follower within 24 hours: 0 → 1.');
  });
});
