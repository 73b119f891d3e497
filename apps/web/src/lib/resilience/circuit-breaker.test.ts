import { describe, expect, it, vi } from 'vitest';
import { runOnFakeClock } from '@/test/fake-clock';
import { CircuitBreaker } from './circuit-breaker';

function fail(breaker: CircuitBreaker, times: number): void {
  for (let i = 0; i < times; i += 1) breaker.recordFailure();
}

describe('CircuitBreaker', () => {
  runOnFakeClock(new Date('2026-01-01T00:00:00Z'));

  it('opens after 10 failures within 60 s', () => {
    const breaker = new CircuitBreaker();
    fail(breaker, 9);
    expect(breaker.state).toBe('closed');
    expect(breaker.canRequest()).toBe(true);
    breaker.recordFailure();
    expect(breaker.state).toBe('open');
    expect(breaker.canRequest()).toBe(false);
  });

  it('counts failures per 60 s window', () => {
    const breaker = new CircuitBreaker();
    fail(breaker, 9);
    vi.advanceTimersByTime(59_999);
    breaker.recordSuccess();
    expect(breaker.state).toBe('closed');
    vi.advanceTimersByTime(1);
    fail(breaker, 9);
    expect(breaker.state).toBe('closed');
    breaker.recordFailure();
    expect(breaker.state).toBe('open');
  });

  it('stays open for 60 s, then turns half-open', () => {
    const breaker = new CircuitBreaker();
    fail(breaker, 10);
    vi.advanceTimersByTime(59_999);
    expect(breaker.state).toBe('open');
    breaker.recordFailure();
    vi.advanceTimersByTime(1);
    expect(breaker.state).toBe('half-open');
    expect(breaker.canRequest()).toBe(true);
  });

  it('closes from half-open on a success', () => {
    const breaker = new CircuitBreaker();
    fail(breaker, 10);
    vi.advanceTimersByTime(60_000);
    fail(breaker, 2);
    breaker.recordSuccess();
    expect(breaker.state).toBe('closed');
    fail(breaker, 9);
    expect(breaker.state).toBe('closed');
  });

  it('opens again from half-open after 3 failures, for another 60 s', () => {
    const breaker = new CircuitBreaker();
    fail(breaker, 10);
    vi.advanceTimersByTime(60_000);
    fail(breaker, 2);
    expect(breaker.state).toBe('half-open');
    breaker.recordFailure();
    expect(breaker.state).toBe('open');
    vi.advanceTimersByTime(59_999);
    expect(breaker.state).toBe('open');
    vi.advanceTimersByTime(1);
    expect(breaker.state).toBe('half-open');
  });

  it('takes an injected clock and can be reset', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ now: () => now });
    fail(breaker, 10);
    expect(breaker.state).toBe('open');
    now = 60_000;
    expect(breaker.state).toBe('half-open');
    fail(breaker, 3);
    breaker.reset();
    expect(breaker.state).toBe('closed');
  });

  it('tells its listeners when it opens, when the 60 s are up and when it closes', () => {
    const breaker = new CircuitBreaker();
    const listener = vi.fn();
    const unsubscribe = breaker.subscribe(listener);
    fail(breaker, 9);
    expect(listener).not.toHaveBeenCalled();
    breaker.recordFailure();
    expect(listener).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(59_999);
    expect(listener).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(listener).toHaveBeenCalledTimes(2);
    expect(breaker.state).toBe('half-open');
    breaker.recordSuccess();
    expect(breaker.state).toBe('closed');
    expect(listener).toHaveBeenCalledTimes(3);
    unsubscribe();
    fail(breaker, 10);
    expect(listener).toHaveBeenCalledTimes(3);
  });
});
