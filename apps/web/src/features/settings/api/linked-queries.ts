import type { QueryClient } from '@tanstack/react-query';
import { botStatusQueryKey } from './get-bot-status';
import { settingsQueryKey } from './get-settings';
import { xAccountStatusQueryKey } from './get-x-account-status';

/** The queries one change on the Settings page can move together. */
const LINKED_QUERY_KEYS = [settingsQueryKey, botStatusQueryKey, xAccountStatusQueryKey] as const;

/**
 * Stores a change's answer as the query `key`, and has the other linked queries fetched again.
 * A fetch of theirs already on its way may have been answered before the change: it is
 * cancelled first, so the fetch after the change is a new request rather than that one joined
 * (TanStack Query joins a fetch in flight when the query has no data yet).
 */
export function storeAndRefetchLinked(
  queryClient: QueryClient,
  key: (typeof LINKED_QUERY_KEYS)[number],
  answer: unknown,
): void {
  queryClient.setQueryData(key, answer);
  for (const other of LINKED_QUERY_KEYS) {
    if (other === key) continue;
    void queryClient
      .cancelQueries({ queryKey: other })
      .then(() => queryClient.invalidateQueries({ queryKey: other }));
  }
}
