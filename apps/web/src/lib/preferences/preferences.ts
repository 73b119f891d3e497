import {
  LOG_LEVELS,
  PREFERENCE_DEFAULTS,
  REFRESH_INTERVAL_CHOICES_MS,
  type LogLevel,
} from '@perch/shared';
import { useSyncExternalStore } from 'react';
import { z } from 'zod';

/** The client preferences of this browser (docs/spec-notes.md, Entities). */
export interface Preferences {
  /** Refresh data in the background. */
  autoRefresh: boolean;
  /** Milliseconds between background refreshes; one of REFRESH_INTERVAL_CHOICES_MS. */
  refreshInterval: number;
  /** A browser notification for each new tweet (when the browser allows them). */
  showNotifications: boolean;
  /** A soft chime for each new tweet. */
  soundEnabled: boolean;
  /** Tighter spacing app-wide. */
  compactMode: boolean;
  /** The quietest level the client logger writes to the console. */
  logLevel: LogLevel;
  /** Log renders slower than SLOW_RENDER_THRESHOLD_MS. */
  performanceMonitoring: boolean;
}

export const DEFAULT_PREFERENCES: Preferences = Object.freeze({ ...PREFERENCE_DEFAULTS });

/** Where the preferences live in localStorage. */
export const PREFERENCES_STORAGE_KEY = 'perch.preferences';

/** What each preference accepts. */
const preferenceFields = {
  autoRefresh: z.boolean(),
  refreshInterval: z
    .number()
    .refine((value) => (REFRESH_INTERVAL_CHOICES_MS as readonly number[]).includes(value)),
  showNotifications: z.boolean(),
  soundEnabled: z.boolean(),
  compactMode: z.boolean(),
  logLevel: z.enum(LOG_LEVELS),
  performanceMonitoring: z.boolean(),
};

/**
 * Every field falls back to its default on its own, so one bad or missing value (an older
 * version, a hand edit) never costs the others; anything that is not an object gives the defaults.
 */
const preferencesSchema = z
  .object({
    autoRefresh: preferenceFields.autoRefresh.catch(DEFAULT_PREFERENCES.autoRefresh),
    refreshInterval: preferenceFields.refreshInterval.catch(DEFAULT_PREFERENCES.refreshInterval),
    showNotifications: preferenceFields.showNotifications.catch(
      DEFAULT_PREFERENCES.showNotifications,
    ),
    soundEnabled: preferenceFields.soundEnabled.catch(DEFAULT_PREFERENCES.soundEnabled),
    compactMode: preferenceFields.compactMode.catch(DEFAULT_PREFERENCES.compactMode),
    logLevel: preferenceFields.logLevel.catch(DEFAULT_PREFERENCES.logLevel),
    performanceMonitoring: preferenceFields.performanceMonitoring.catch(
      DEFAULT_PREFERENCES.performanceMonitoring,
    ),
  })
  .catch(() => ({ ...DEFAULT_PREFERENCES }));

/** The valid preferences in `value`, defaults for the rest. Never throws. */
export function parsePreferences(value: unknown): Preferences {
  return preferencesSchema.parse(value);
}

function parseStored(raw: string | null): Preferences {
  if (raw === null) return DEFAULT_PREFERENCES;
  try {
    return parsePreferences(JSON.parse(raw));
  } catch {
    return DEFAULT_PREFERENCES;
  }
}

function samePreferences(a: Preferences, b: Preferences): boolean {
  return (Object.keys(a) as (keyof Preferences)[]).every((key) => a[key] === b[key]);
}

export interface PreferencesStore {
  /** The current preferences: the same object until they change (for useSyncExternalStore). */
  getSnapshot(): Preferences;
  /** Calls `listener` after every change, from this tab or another; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** Merges and saves `patch`; fields with invalid values keep their current value. */
  update(patch: Partial<Preferences>): void;
  /** Back to the defaults, in every tab. */
  reset(): void;
}

/** localStorage, or null where it cannot be reached (storage disabled, no window). */
function browserStorage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

/**
 * A preferences store persisted in `storage` and following the `storage` events that `target`
 * receives when another tab changes them. Without storage (or when writing fails) the
 * preferences still apply to this page, just not beyond it.
 */
export function createPreferencesStore(
  storage: Storage | null = browserStorage(),
  target: EventTarget | null = typeof window === 'undefined' ? null : window,
): PreferencesStore {
  const listeners = new Set<() => void>();
  let current = parseStored(read());

  function read(): string | null {
    try {
      return storage?.getItem(PREFERENCES_STORAGE_KEY) ?? null;
    } catch {
      return null;
    }
  }

  function write(next: Preferences | null): void {
    try {
      if (next) storage?.setItem(PREFERENCES_STORAGE_KEY, JSON.stringify(next));
      else storage?.removeItem(PREFERENCES_STORAGE_KEY);
    } catch {
      // Full or blocked storage: the change still holds for this page.
    }
  }

  function replace(next: Preferences): boolean {
    if (samePreferences(current, next)) return false;
    current = next;
    for (const listener of [...listeners]) listener();
    return true;
  }

  function handleStorage(event: Event): void {
    const { key, storageArea } = event as StorageEvent;
    // A null key is `localStorage.clear()` in another tab.
    if (key !== null && key !== PREFERENCES_STORAGE_KEY) return;
    if (storageArea && storageArea !== storage) return;
    replace(parseStored(read()));
  }

  return {
    getSnapshot: () => current,
    subscribe(listener) {
      if (listeners.size === 0) target?.addEventListener('storage', handleStorage);
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) target?.removeEventListener('storage', handleStorage);
      };
    },
    update(patch) {
      const next: Preferences = { ...current };
      for (const key of Object.keys(patch) as (keyof Preferences)[]) {
        const checked = preferenceFields[key]?.safeParse(patch[key]);
        if (checked?.success) Object.assign(next, { [key]: checked.data });
      }
      if (replace(next)) write(next);
    },
    reset() {
      write(null);
      replace(DEFAULT_PREFERENCES);
    },
  };
}

/** This browser's preferences, shared by every part of the app. */
export const preferencesStore: PreferencesStore = createPreferencesStore();

const updatePreferences = (patch: Partial<Preferences>) => preferencesStore.update(patch);

/** The preferences, re-rendering on every change (this tab or another), and their updater. */
export function usePreferences(): [Preferences, (patch: Partial<Preferences>) => void] {
  const preferences = useSyncExternalStore(
    preferencesStore.subscribe,
    preferencesStore.getSnapshot,
    preferencesStore.getSnapshot,
  );
  return [preferences, updatePreferences];
}

/**
 * The person's refresh interval (Settings, Preferences; 30 s by default): how often data that is
 * not being collected right now refreshes in the background.
 */
export function backgroundRefreshMs(): number {
  return preferencesStore.getSnapshot().refreshInterval;
}
