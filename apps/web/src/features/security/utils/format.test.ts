import { describe, expect, it } from 'vitest';
import { endOfDayIso, formatEventType, startOfDayIso } from './format';
import { SEVERITY_LOOK } from './looks';

describe('security formatting', () => {
  it('colours risk levels and severities: critical red, high orange, medium yellow, low green', () => {
    expect(Object.fromEntries(Object.entries(SEVERITY_LOOK).map(([k, v]) => [k, v.color]))).toEqual(
      { critical: 'red', high: 'orange', medium: 'yellow', low: 'green' },
    );
  });

  it('writes event types as words', () => {
    expect(formatEventType('login_failed')).toBe('Login failed');
    expect(formatEventType('csrf_refused')).toBe('CSRF refused');
    expect(formatEventType('two_factor_enabled')).toBe('Two factor enabled');
  });

  it('turns calendar days into the first and last instant of that local day', () => {
    expect(startOfDayIso('2025-03-01')).toBe(new Date(2025, 2, 1).toISOString());
    expect(endOfDayIso('2025-03-01')).toBe(new Date(2025, 2, 1, 23, 59, 59, 999).toISOString());
    expect(startOfDayIso('')).toBeNull();
  });
});
