import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useApplyCompactMode } from './compact-mode';
import { preferencesStore } from './preferences';

afterEach(() => {
  preferencesStore.reset();
});

const compactAttribute = () => document.documentElement.getAttribute('data-compact');

describe('useApplyCompactMode', () => {
  it('marks <html> while compact mode is on', () => {
    const view = renderHook(() => useApplyCompactMode());
    expect(compactAttribute()).toBeNull();

    act(() => preferencesStore.update({ compactMode: true }));
    expect(compactAttribute()).toBe('true');

    act(() => preferencesStore.update({ compactMode: false }));
    expect(compactAttribute()).toBeNull();

    act(() => preferencesStore.update({ compactMode: true }));
    view.unmount();
    expect(compactAttribute()).toBeNull();
  });

  it('applies a saved choice at once', () => {
    preferencesStore.update({ compactMode: true });
    renderHook(() => useApplyCompactMode());
    expect(compactAttribute()).toBe('true');
  });
});
