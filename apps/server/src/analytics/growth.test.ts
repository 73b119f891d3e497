import { describe, expect, it } from 'vitest';
import { growth } from './growth.js';
import { at, makeProfileSnapshot, prepare } from './test-factories.js';

describe('growth', () => {
  it("plots each local day's last follower count and the change over the window", () => {
    const result = growth(
      prepare({
        timezone: 'Europe/Berlin',
        window: { start: at('2026-03-01T00:00:00.000Z'), end: at('2026-03-31T00:00:00.000Z') },
        profileSnapshots: [
          makeProfileSnapshot('2026-03-07T12:00:00.000Z', 110),
          // 23:30 in Berlin, still March 5.
          makeProfileSnapshot('2026-03-05T22:30:00.000Z', 104),
          makeProfileSnapshot('2026-03-05T10:00:00.000Z', 100),
          // 00:30 in Berlin on March 6.
          makeProfileSnapshot('2026-03-05T23:30:00.000Z', 106),
          // Outside the window: ignored here, though the later one gives the followers.
          makeProfileSnapshot('2026-02-20T00:00:00.000Z', 90),
          makeProfileSnapshot('2026-04-05T00:00:00.000Z', 200),
        ],
      }),
    );
    expect(result).toEqual({
      series: [
        { date: '2026-03-05', followers: 104 },
        { date: '2026-03-06', followers: 106 },
        { date: '2026-03-07', followers: 110 },
      ],
      net_change: 10,
      growth_rate: 10,
    });
  });

  it('includes snapshots at both ends of the window', () => {
    const result = growth(
      prepare({
        window: { start: at('2026-03-01T00:00:00.000Z'), end: at('2026-03-08T00:00:00.000Z') },
        profileSnapshots: [
          makeProfileSnapshot('2026-03-01T00:00:00.000Z', 200),
          makeProfileSnapshot('2026-03-08T00:00:00.000Z', 150),
          makeProfileSnapshot('2026-03-08T00:00:00.001Z', 1),
        ],
      }),
    );
    expect(result).toEqual({
      series: [
        { date: '2026-03-01', followers: 200 },
        { date: '2026-03-08', followers: 150 },
      ],
      net_change: -50,
      growth_rate: -25,
    });
  });

  it('has a change of 0 and no rate with one snapshot', () => {
    const result = growth(
      prepare({ profileSnapshots: [makeProfileSnapshot('2026-03-03T00:00:00.000Z', 70)] }),
    );
    expect(result).toEqual({
      series: [{ date: '2026-03-03', followers: 70 }],
      net_change: 0,
      growth_rate: null,
    });
  });

  it('has no rate when the first count is 0', () => {
    const result = growth(
      prepare({
        profileSnapshots: [
          makeProfileSnapshot('2026-03-03T00:00:00.000Z', 0),
          makeProfileSnapshot('2026-03-04T00:00:00.000Z', 12),
        ],
      }),
    );
    expect(result.net_change).toBe(12);
    expect(result.growth_rate).toBeNull();
  });

  it('is empty with null change and rate without snapshots', () => {
    expect(growth(prepare())).toEqual({ series: [], net_change: null, growth_rate: null });
  });
});
