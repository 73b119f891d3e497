import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useNow } from './use-now';

describe('useNow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('moves on every interval while enabled, and stands still while not', () => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
    const { result, rerender } = renderHook(({ enabled }) => useNow(1_000, enabled), {
      initialProps: { enabled: true },
    });
    expect(result.current).toBe(1_000_000);
    act(() => vi.advanceTimersByTime(999));
    expect(result.current).toBe(1_000_000);
    act(() => vi.advanceTimersByTime(1));
    expect(result.current).toBe(1_001_000);

    rerender({ enabled: false });
    act(() => vi.advanceTimersByTime(5_000));
    expect(result.current).toBe(1_001_000);
  });
});
