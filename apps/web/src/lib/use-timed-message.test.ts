import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTimedMessage } from './use-timed-message';

const SUCCESS_MESSAGE_MS = 3_000;
const ERROR_MESSAGE_MS = 7_000;

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

  it("uses the hook's display time when show is given none, and a message without one stays", () => {
    vi.useFakeTimers();
    const timed = renderHook(() => useTimedMessage(5_000));
    act(() => timed.result.current.show({ kind: 'success', text: 'Saved', details: 'by Discord' }));
    act(() => vi.advanceTimersByTime(4_999));
    expect(timed.result.current.message).toEqual({
      kind: 'success',
      text: 'Saved',
      details: 'by Discord',
    });
    act(() => vi.advanceTimersByTime(1));
    expect(timed.result.current.message).toBeNull();

    const lasting = renderHook(() => useTimedMessage());
    act(() => lasting.result.current.show({ kind: 'error', text: 'Discord refused the token' }));
    act(() => vi.advanceTimersByTime(60_000));
    expect(lasting.result.current.message?.text).toBe('Discord refused the token');
    act(() => lasting.result.current.clear());
    expect(lasting.result.current.message).toBeNull();
  });
});
