import { describe, expect, it, vi } from 'vitest';
import { runOnFakeClock } from '@/test/fake-clock';
import { SyncBreaker } from './sync-breaker';

describe('SyncBreaker', () => {
  runOnFakeClock(new Date('2026-01-01T00:00:00Z'));

  it('allows 5 attempts within 10 s and stops the sixth', () => {
    const breaker = new SyncBreaker();
    for (let i = 0; i < 5; i += 1) {
      expect(breaker.isStopped()).toBe(false);
      expect(breaker.tryAttempt()).toBe(true);
      vi.advanceTimersByTime(1_000);
    }
    expect(breaker.isStopped()).toBe(true);
    expect(breaker.tryAttempt()).toBe(false);
  });

  it('syncs again once the window has passed', () => {
    const breaker = new SyncBreaker();
    for (let i = 0; i < 5; i += 1) breaker.tryAttempt();
    vi.advanceTimersByTime(9_999);
    expect(breaker.tryAttempt()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(breaker.isStopped()).toBe(false);
    expect(breaker.tryAttempt()).toBe(true);
  });

  it('rolls: attempts spread over more than 10 s never stop syncing', () => {
    const breaker = new SyncBreaker();
    for (let i = 0; i < 20; i += 1) {
      expect(breaker.tryAttempt()).toBe(true);
      vi.advanceTimersByTime(2_000);
    }
  });

  it('takes an injected clock and can be reset', () => {
    let now = 0;
    const breaker = new SyncBreaker({ now: () => now });
    for (let i = 0; i < 5; i += 1) breaker.tryAttempt();
    expect(breaker.tryAttempt()).toBe(false);
    now = 10_000;
    expect(breaker.tryAttempt()).toBe(true);
    breaker.reset();
    expect(breaker.isStopped()).toBe(false);
  });
});
