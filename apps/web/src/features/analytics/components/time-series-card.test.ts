import { describe, expect, it } from 'vitest';
import { uncoveredArea } from './time-series-card';

const rows = ['Feb 21', 'Feb 22', 'Feb 23', 'Feb 24', 'Feb 25', 'Feb 26'].map((day) => ({ day }));

describe('uncoveredArea', () => {
  it('shades from the first day to the first collected day, labelled when wide enough', () => {
    const [area] = uncoveredArea(rows, 2) ?? [];
    expect(area).toMatchObject({ x1: 'Feb 21', x2: 'Feb 23' });
    expect(area?.label).toMatchObject({ value: 'Not collected' });
  });

  it('leaves a narrow area unlabelled', () => {
    const month = Array.from({ length: 30 }, (_, index) => ({ day: `Day ${index + 1}` }));
    const [area] = uncoveredArea(month, 2) ?? [];
    expect(area).toMatchObject({ x1: 'Day 1', x2: 'Day 3' });
    expect(area?.label).toBeUndefined();
  });

  it('shades every day when none was collected, and nothing when all were', () => {
    expect(uncoveredArea(rows, 6)?.[0]).toMatchObject({ x1: 'Feb 21', x2: 'Feb 26' });
    expect(uncoveredArea(rows, 0)).toBeUndefined();
    expect(uncoveredArea(rows.slice(0, 1), 1)).toBeUndefined();
  });
});
