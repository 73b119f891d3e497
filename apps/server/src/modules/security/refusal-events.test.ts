import { describe, expect, it } from 'vitest';
import { RefusalThrottle } from './refusal-events.js';

describe('RefusalThrottle', () => {
  it('allows a few refusals per IP and type a minute, then none until the minute is over', () => {
    const throttle = new RefusalThrottle(3);
    const start = 1_000_000;
    const allowed = Array.from({ length: 5 }, (_, i) =>
      throttle.allow('10.0.0.1', 'csrf_refused', start + i),
    );
    expect(allowed).toEqual([true, true, true, false, false]);
    // Another IP, or another type, counts apart.
    expect(throttle.allow('10.0.0.2', 'csrf_refused', start + 10)).toBe(true);
    expect(throttle.allow('10.0.0.1', 'rate_limited', start + 10)).toBe(true);
    expect(throttle.allow('10.0.0.1', 'csrf_refused', start + 59_999)).toBe(false);
    expect(throttle.allow('10.0.0.1', 'csrf_refused', start + 60_000)).toBe(true);
  });
});
