import { SUCCESS_BANNER_MS } from '@perch/shared';
import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useAdminBannerState } from './use-admin-banner';

describe('the admin banner', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('clears a success after 5 s and keeps an error until dismissed', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useAdminBannerState());
    act(() => result.current.notify.success('Done.'));
    expect(result.current.message).toEqual({ kind: 'success', text: 'Done.' });
    act(() => vi.advanceTimersByTime(SUCCESS_BANNER_MS - 1));
    expect(result.current.message?.text).toBe('Done.');
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.message).toBeNull();

    act(() => result.current.notify.error('Failed.', 'Because.'));
    act(() => vi.advanceTimersByTime(SUCCESS_BANNER_MS * 3));
    expect(result.current.message).toEqual({ kind: 'error', text: 'Failed.', details: 'Because.' });
    act(() => result.current.dismiss());
    expect(result.current.message).toBeNull();
  });

  it('replaces one outcome with the next, and an error stops the success timer', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useAdminBannerState());
    act(() => result.current.notify.success('Done.'));
    act(() => vi.advanceTimersByTime(SUCCESS_BANNER_MS - 100));
    act(() => result.current.notify.error('Failed.', 'Failed.'));
    act(() => vi.advanceTimersByTime(200));
    expect(result.current.message).toEqual({ kind: 'error', text: 'Failed.', details: undefined });
    act(() => result.current.notify.success('Done again.'));
    expect(result.current.message?.kind).toBe('success');
  });
});
