import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_PREFERENCES,
  PREFERENCES_STORAGE_KEY,
  createPreferencesStore,
  preferencesStore,
  usePreferences,
  type Preferences,
} from './preferences';

const storage = () => window.localStorage;

function stored(): unknown {
  const raw = storage().getItem(PREFERENCES_STORAGE_KEY);
  return raw === null ? null : JSON.parse(raw);
}

/** What the browser fires in the other tabs after one tab writes the key. */
function storageEvent(key: string | null, area: Storage = storage()): StorageEvent {
  return new StorageEvent('storage', { key, storageArea: area });
}

afterEach(() => {
  preferencesStore.reset();
});

describe('preferences store', () => {
  it('starts from the spec defaults', () => {
    const store = createPreferencesStore(storage(), new EventTarget());
    expect(store.getSnapshot()).toEqual({
      autoRefresh: true,
      refreshInterval: 30_000,
      showNotifications: true,
      soundEnabled: false,
      compactMode: false,
      logLevel: 'info',
      performanceMonitoring: false,
    } satisfies Preferences);
    expect(store.getSnapshot()).toEqual(DEFAULT_PREFERENCES);
  });

  it('saves every change and reads it back in a new page', () => {
    const store = createPreferencesStore(storage(), new EventTarget());
    store.update({ compactMode: true, refreshInterval: 60_000 });
    store.update({ logLevel: 'debug', autoRefresh: false });

    expect(stored()).toEqual({
      ...DEFAULT_PREFERENCES,
      compactMode: true,
      refreshInterval: 60_000,
      logLevel: 'debug',
      autoRefresh: false,
    });
    const reloaded = createPreferencesStore(storage(), new EventTarget());
    expect(reloaded.getSnapshot()).toEqual(store.getSnapshot());
  });

  it('keeps one snapshot object until something changes', () => {
    const store = createPreferencesStore(storage(), new EventTarget());
    const listener = vi.fn();
    store.subscribe(listener);
    const first = store.getSnapshot();
    expect(store.getSnapshot()).toBe(first);

    store.update({ autoRefresh: true, soundEnabled: false });
    expect(store.getSnapshot()).toBe(first);
    expect(listener).not.toHaveBeenCalled();

    store.update({ soundEnabled: true });
    expect(store.getSnapshot()).not.toBe(first);
    expect(store.getSnapshot().soundEnabled).toBe(true);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('ignores invalid values in an update and keeps the current ones', () => {
    const store = createPreferencesStore(storage(), new EventTarget());
    store.update({ refreshInterval: 60_000 });
    store.update({
      refreshInterval: 1_234,
      logLevel: 'verbose' as Preferences['logLevel'],
      compactMode: true,
    });
    expect(store.getSnapshot()).toMatchObject({
      refreshInterval: 60_000,
      logLevel: 'info',
      compactMode: true,
    });
  });

  it.each([
    ['not JSON', '{"autoRefresh":'],
    ['a number', '42'],
    ['null', 'null'],
    ['a list', '[true, false]'],
  ])('falls back to the defaults when the stored value is %s', (_name, raw) => {
    storage().setItem(PREFERENCES_STORAGE_KEY, raw);
    expect(createPreferencesStore(storage(), new EventTarget()).getSnapshot()).toEqual(
      DEFAULT_PREFERENCES,
    );
  });

  it('keeps the valid fields of a partial or damaged value, field by field', () => {
    storage().setItem(
      PREFERENCES_STORAGE_KEY,
      JSON.stringify({
        autoRefresh: false,
        refreshInterval: 7,
        showNotifications: 'yes',
        compactMode: true,
        logLevel: 'verbose',
        somethingOld: 1,
      }),
    );
    expect(createPreferencesStore(storage(), new EventTarget()).getSnapshot()).toEqual({
      ...DEFAULT_PREFERENCES,
      autoRefresh: false,
      compactMode: true,
    });
  });

  it('follows changes made in another tab', () => {
    const otherTab = createPreferencesStore(storage(), new EventTarget());
    const thisTabWindow = new EventTarget();
    const thisTab = createPreferencesStore(storage(), thisTabWindow);
    const listener = vi.fn();
    const unsubscribe = thisTab.subscribe(listener);

    otherTab.update({ compactMode: true, logLevel: 'warn' });
    thisTabWindow.dispatchEvent(storageEvent(PREFERENCES_STORAGE_KEY));
    expect(listener).toHaveBeenCalledTimes(1);
    expect(thisTab.getSnapshot()).toMatchObject({ compactMode: true, logLevel: 'warn' });

    // Other keys, and the same value again, change nothing.
    thisTabWindow.dispatchEvent(storageEvent('perch.clientId'));
    thisTabWindow.dispatchEvent(storageEvent(PREFERENCES_STORAGE_KEY));
    expect(listener).toHaveBeenCalledTimes(1);

    // A reset (the key removed) and a clear() in the other tab bring back the defaults.
    otherTab.reset();
    thisTabWindow.dispatchEvent(storageEvent(PREFERENCES_STORAGE_KEY));
    expect(thisTab.getSnapshot()).toEqual(DEFAULT_PREFERENCES);
    otherTab.update({ soundEnabled: true });
    thisTabWindow.dispatchEvent(storageEvent(PREFERENCES_STORAGE_KEY));
    storage().clear();
    thisTabWindow.dispatchEvent(storageEvent(null));
    expect(thisTab.getSnapshot()).toEqual(DEFAULT_PREFERENCES);
    expect(listener).toHaveBeenCalledTimes(4);

    // Unsubscribed, it stops listening.
    unsubscribe();
    otherTab.update({ compactMode: true });
    thisTabWindow.dispatchEvent(storageEvent(PREFERENCES_STORAGE_KEY));
    expect(listener).toHaveBeenCalledTimes(4);
  });

  it('ignores storage events of sessionStorage', () => {
    const target = new EventTarget();
    const store = createPreferencesStore(storage(), target);
    store.subscribe(() => undefined);
    storage().setItem(PREFERENCES_STORAGE_KEY, JSON.stringify({ compactMode: true }));
    target.dispatchEvent(storageEvent(PREFERENCES_STORAGE_KEY, window.sessionStorage));
    expect(store.getSnapshot().compactMode).toBe(false);
  });

  it('reset brings back the defaults and forgets the saved value', () => {
    const store = createPreferencesStore(storage(), new EventTarget());
    const listener = vi.fn();
    store.subscribe(listener);
    store.update({ compactMode: true, performanceMonitoring: true });
    store.reset();
    expect(store.getSnapshot()).toEqual(DEFAULT_PREFERENCES);
    expect(storage().getItem(PREFERENCES_STORAGE_KEY)).toBeNull();
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it('still applies changes when the storage cannot be used', () => {
    const broken = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => {
        throw new Error('SecurityError');
      },
    } as unknown as Storage;
    const store = createPreferencesStore(broken, new EventTarget());
    expect(store.getSnapshot()).toEqual(DEFAULT_PREFERENCES);
    store.update({ compactMode: true });
    expect(store.getSnapshot().compactMode).toBe(true);
    store.reset();
    expect(store.getSnapshot()).toEqual(DEFAULT_PREFERENCES);

    const memoryOnly = createPreferencesStore(null, null);
    memoryOnly.update({ soundEnabled: true });
    expect(memoryOnly.getSnapshot().soundEnabled).toBe(true);
  });
});

describe('usePreferences', () => {
  it("re-renders with this browser's preferences and updates them", () => {
    const { result } = renderHook(() => usePreferences());
    expect(result.current[0]).toEqual(DEFAULT_PREFERENCES);

    act(() => result.current[1]({ compactMode: true }));
    expect(result.current[0].compactMode).toBe(true);
    expect(preferencesStore.getSnapshot().compactMode).toBe(true);
    expect(stored()).toMatchObject({ compactMode: true });

    act(() => preferencesStore.update({ refreshInterval: 120_000 }));
    expect(result.current[0].refreshInterval).toBe(120_000);
  });

  it('follows another tab through the window storage event', () => {
    const { result } = renderHook(() => usePreferences());
    storage().setItem(
      PREFERENCES_STORAGE_KEY,
      JSON.stringify({ ...DEFAULT_PREFERENCES, showNotifications: false }),
    );
    act(() => {
      window.dispatchEvent(storageEvent(PREFERENCES_STORAGE_KEY));
    });
    expect(result.current[0].showNotifications).toBe(false);
  });
});
