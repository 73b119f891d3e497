import { useLocalStorage } from '@mantine/hooks';
import { useCallback } from 'react';

/** How many dismissed alert ids are kept per user; the oldest go first. */
export const MAX_DISMISSED_ALERTS = 200;

const NONE: string[] = [];

/** Where a user's dismissed alert ids are kept in localStorage. */
export function dismissedAlertsStorageKey(userId: number): string {
  return `perch-dismissed-security-alerts:${userId}`;
}

/** The stored ids, or none when the entry is missing or unreadable. */
export function readDismissedIds(raw: string | undefined): string[] {
  if (!raw) return [];
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The alerts a user has dismissed, by alert id (ids are stable per alert), kept in localStorage
 * so that a dismissed alert stays away after a reload and in other tabs.
 */
export function useDismissedAlerts(userId: number) {
  const [dismissedIds, setDismissedIds] = useLocalStorage<string[]>({
    key: dismissedAlertsStorageKey(userId),
    defaultValue: NONE,
    // Read at once: a dismissed alert must not flash on load.
    getInitialValueInEffect: false,
    deserialize: readDismissedIds,
  });

  const dismiss = useCallback(
    (alertId: string) =>
      setDismissedIds((previous) =>
        previous.includes(alertId) ? previous : [...previous, alertId].slice(-MAX_DISMISSED_ALERTS),
      ),
    [setDismissedIds],
  );

  return { dismissedIds, dismiss };
}
