import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ERROR_MESSAGE_MS, SUCCESS_MESSAGE_MS, useTimedMessage } from './use-timed-message';

describe('useTimedMessage', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('clears a success after 3 s and an error after 7 s', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useTimedMessage());
    act(() =>
      result.current.show(
        { kind: 'success', text: '@nasa added successfully!' },
        SUCCESS_MESSAGE_MS,
      ),
    );
    act(() => vi.advanceTimersByTime(2_999));
    expect(result.current.message?.text).toBe('@nasa added successfully!');
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.message).toBeNull();

    act(() =>
      result.current.show({ kind: 'error', text: 'Already monitoring @nasa' }, ERROR_MESSAGE_MS),
    );
    act(() => vi.advanceTimersByTime(6_999));
    expect(result.current.message?.text).toBe('Already monitoring @nasa');
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.message).toBeNull();
  });

  it('restarts the timer when a new message replaces the old one', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useTimedMessage());
    act(() => result.current.show({ kind: 'error', text: 'first' }, ERROR_MESSAGE_MS));
    act(() => vi.advanceTimersByTime(6_000));
    act(() => result.current.show({ kind: 'success', text: 'second' }, SUCCESS_MESSAGE_MS));
    act(() => vi.advanceTimersByTime(2_000));
    expect(result.current.message?.text).toBe('second');
    act(() => vi.advanceTimersByTime(1_000));
    expect(result.current.message).toBeNull();
  });
});
