import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { completeAnalyticsQueryOptions } from '../api/get-complete-analytics';
import { neighbourHandles } from '../utils/analytics-data';

/**
 * Once the selected handle's analytics have loaded, fetches those of the handles before and
 * after it in the list, for the same window.
 */
export function useNeighbourPrefetch(
  handles: readonly string[],
  selected: string | null,
  period: number,
  timezone: string,
  loaded: boolean,
): void {
  const queryClient = useQueryClient();
  const neighbours = selected && loaded ? neighbourHandles(handles, selected).join('\n') : '';

  useEffect(() => {
    if (!neighbours) return;
    for (const handle of neighbours.split('\n')) {
      void queryClient.prefetchQuery(completeAnalyticsQueryOptions({ handle, period, timezone }));
    }
  }, [neighbours, period, timezone, queryClient]);
}
