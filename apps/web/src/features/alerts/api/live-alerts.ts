import type { QueryClient } from '@tanstack/react-query';
import { alertKeys } from './alert-keys';

/**
 * The live stream's `alert.fired` (one of the user's rules fired): the history reads its first
 * page again, so a fired alert shows without waiting for the next refresh.
 */
export function applyAlertEvents(source: EventSource, queryClient: QueryClient): void {
  source.addEventListener('alert.fired', () => {
    void queryClient.invalidateQueries({ queryKey: alertKeys.firings });
  });
}
