import { describe, expect, it } from 'vitest';
import { average, compareIds, compareText, median, perFollowers } from './stats.js';

describe('stats', () => {
  it('averages to 0 over nothing', () => {
    expect(average(9, 3)).toBe(3);
    expect(average(0, 0)).toBe(0);
    expect(average(5, 0)).toBe(0);
  });

  it('gives a per-follower percentage, null without followers', () => {
    expect(perFollowers(5, 200)).toBe(2.5);
    expect(perFollowers(5, 0)).toBeNull();
    expect(perFollowers(5, null)).toBeNull();
    expect(perFollowers(0, 10)).toBe(0);
  });

  it('takes the median of odd and even counts, and 0 of none', () => {
    expect(median([])).toBe(0);
    expect(median([7])).toBe(7);
    expect(median([9, 1, 5])).toBe(5);
    expect(median([10, 2, 4, 100])).toBe(7);
  });

  it('orders ids by numeric value, not as text', () => {
    expect(compareIds('9', '10')).toBeLessThan(0);
    expect(compareIds('10', '9')).toBeGreaterThan(0);
    expect(compareIds('1899000000000000002', '1899000000000000010')).toBeLessThan(0);
    expect(compareIds('0012', '12')).toBe(0);
    expect(compareIds('0', '00')).toBe(0);
    expect(compareIds('0', '1')).toBeLessThan(0);
  });

  it('orders text by code units', () => {
    expect(compareText('Zig', 'beta')).toBeLessThan(0);
    expect(compareText('b', 'a')).toBeGreaterThan(0);
    expect(compareText('x', 'x')).toBe(0);
  });
});
