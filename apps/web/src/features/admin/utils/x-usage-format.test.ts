import { describe, expect, it } from 'vitest';
import { budgetPercent, formatReads, formatUsd } from './x-usage-format';

describe('X usage formatting', () => {
  it('shows cents from a dollar up and up to four decimals below', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.005)).toBe('$0.005');
    expect(formatUsd(0.01)).toBe('$0.01');
    expect(formatUsd(0.0125)).toBe('$0.0125');
    expect(formatUsd(0.12345)).toBe('$0.1235');
    expect(formatUsd(0.8)).toBe('$0.80');
    expect(formatUsd(1)).toBe('$1.00');
    expect(formatUsd(3.1)).toBe('$3.10');
    expect(formatUsd(1204.499)).toBe('$1,204.50');
  });

  it('counts post and user reads', () => {
    expect(formatReads(0, 0)).toBe('0 post reads · 0 user reads');
    expect(formatReads(1, 1)).toBe('1 post read · 1 user read');
    expect(formatReads(1204, 3)).toBe('1,204 post reads · 3 user reads');
  });

  it('gives the share of the daily limit spent as a whole percent', () => {
    expect(budgetPercent(0, 1)).toBe(0);
    expect(budgetPercent(0.79, 1)).toBe(79);
    expect(budgetPercent(0.8, 1)).toBe(80);
    expect(budgetPercent(0.29, 1)).toBe(29);
    expect(budgetPercent(1.5, 1)).toBe(100);
  });
});
