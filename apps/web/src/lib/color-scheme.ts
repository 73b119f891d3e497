import { useSyncExternalStore } from 'react';

/**
 * The person's colour scheme without Mantine, for the pages that show before Mantine has loaded
 * (sign-in, registration, the loaders and the error page). It is kept where Mantine's
 * localStorage manager keeps it (app/theme.ts), in the same words, and shown through the same
 * `data-mantine-color-scheme` attribute on <html>, so both sides always agree: a choice made on
 * the sign-in page holds in the signed-in app, and the other way round.
 */
export const COLOR_SCHEME_STORAGE_KEY = 'mantine-color-scheme-value';

export type ColorScheme = 'light' | 'dark';
/** What is stored: Mantine's values, 'auto' following the system. */
type StoredColorScheme = ColorScheme | 'auto';

/** Dark, as MantineProvider's `defaultColorScheme` (app/layout/mantine-layout.tsx). */
const DEFAULT_COLOR_SCHEME: ColorScheme = 'dark';
const ATTRIBUTE = 'data-mantine-color-scheme';

function storedColorScheme(): StoredColorScheme {
  try {
    const value = window.localStorage.getItem(COLOR_SCHEME_STORAGE_KEY);
    return value === 'light' || value === 'dark' || value === 'auto' ? value : DEFAULT_COLOR_SCHEME;
  } catch {
    return DEFAULT_COLOR_SCHEME;
  }
}

/** The scheme the page shows: the stored choice, with 'auto' resolved by the system's. */
export function currentColorScheme(): ColorScheme {
  const stored = storedColorScheme();
  if (stored !== 'auto') return stored;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Marks <html> with the current scheme; the plain and Mantine styles both key on it. */
export function applyColorScheme(): void {
  document.documentElement.setAttribute(ATTRIBUTE, currentColorScheme());
}

const listeners = new Set<() => void>();

/** Keeps `scheme` for this browser and shows it. */
export function setColorScheme(scheme: ColorScheme): void {
  try {
    window.localStorage.setItem(COLOR_SCHEME_STORAGE_KEY, scheme);
  } catch {
    // Storage refused (private mode): the page shows the choice, nothing remembers it.
  }
  document.documentElement.setAttribute(ATTRIBUTE, scheme);
  listeners.forEach((listener) => listener());
}

function subscribe(listener: () => void): () => void {
  // A choice made in another tab arrives as a storage event.
  const handleStorage = (event: StorageEvent) => {
    if (event.key !== COLOR_SCHEME_STORAGE_KEY) return;
    applyColorScheme();
    listener();
  };
  listeners.add(listener);
  window.addEventListener('storage', handleStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', handleStorage);
  };
}

/** The current scheme, updated when it changes here or in another tab. */
export function useColorScheme(): ColorScheme {
  return useSyncExternalStore(subscribe, currentColorScheme, () => DEFAULT_COLOR_SCHEME);
}
