import { describe, expect, it, vi } from 'vitest';
import { runOnFakeClock } from '@/test/fake-clock';
import { ErrorStormDetector, errorPatternKey } from './error-storm';

describe('errorPatternKey', () => {
  it('keeps the first 50 characters of the message, with the status', () => {
    const long = 'x'.repeat(50);
    expect(errorPatternKey({ message: `${long}tail one` })).toBe(long);
    expect(errorPatternKey({ message: `${long}tail one` })).toBe(
      errorPatternKey({ message: `${long}other tail` }),
    );
    expect(errorPatternKey({ message: 'Boom', status: 503 })).toBe('503:Boom');
    expect(errorPatternKey({ message: 'Boom', status: 500 })).not.toBe(
      errorPatternKey({ message: 'Boom', status: 503 }),
    );
  });
});

describe('ErrorStormDetector', () => {
  runOnFakeClock(new Date('2026-01-01T00:00:00Z'));

  it('calls 5 repeats of one pattern within 60 s a storm', () => {
    const detector = new ErrorStormDetector();
    const error = { message: 'Request failed with status 503', status: 503 };
    for (let i = 0; i < 4; i += 1) {
      expect(detector.record(error)).toBe(false);
      vi.advanceTimersByTime(14_000);
    }
    expect(detector.isStorm(error)).toBe(false);
    expect(detector.record(error)).toBe(true);
    expect(detector.isStorm(error)).toBe(true);
    expect(detector.record(error)).toBe(true);
    expect(detector.isStorm({ message: 'Request failed with status 503', status: 500 })).toBe(
      false,
    );
  });

  it('starts counting again once the pattern is 60 s old', () => {
    const detector = new ErrorStormDetector();
    const error = { message: 'Network error' };
    for (let i = 0; i < 4; i += 1) detector.record(error);
    vi.advanceTimersByTime(60_000);
    expect(detector.isStorm(error)).toBe(false);
    for (let i = 0; i < 4; i += 1) expect(detector.record(error)).toBe(false);
    expect(detector.record(error)).toBe(true);
    vi.advanceTimersByTime(60_000);
    expect(detector.isStorm(error)).toBe(false);
  });

  it('keeps at most 100 patterns, trimming to the 50 most recently seen', () => {
    const detector = new ErrorStormDetector();
    for (let i = 0; i < 4; i += 1) detector.record({ message: 'oldest' });
    for (let i = 2; i <= 99; i += 1) detector.record({ message: `error ${i}` });
    for (let i = 0; i < 4; i += 1) detector.record({ message: 'seen again' });
    expect(detector.size).toBe(100);
    detector.record({ message: 'error 100' });
    expect(detector.size).toBe(50);
    // 'oldest' was dropped, so its count starts again; 'seen again' was recent and kept.
    expect(detector.record({ message: 'oldest' })).toBe(false);
    expect(detector.record({ message: 'seen again' })).toBe(true);
    expect(detector.size).toBe(51);
  });

  it('takes an injected clock and can be cleared', () => {
    let now = 0;
    const detector = new ErrorStormDetector({ now: () => now });
    for (let i = 0; i < 5; i += 1) detector.record({ message: 'Boom' });
    expect(detector.isStorm({ message: 'Boom' })).toBe(true);
    now = 59_999;
    expect(detector.isStorm({ message: 'Boom' })).toBe(true);
    now = 60_000;
    expect(detector.isStorm({ message: 'Boom' })).toBe(false);
    detector.clear();
    expect(detector.size).toBe(0);
  });
});
