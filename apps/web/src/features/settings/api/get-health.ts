import { healthResponseSchema, type Health } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

/** Health is checked at once and then every 30 s; a check within 5 s reuses the last answer. */
export const HEALTH_CHECK_INTERVAL_MS = 30_000;
export const HEALTH_COOLDOWN_MS = 5_000;

/** GET /health: the API and its database answer (a 503 means degraded). */
export function getHealth(signal?: AbortSignal): Promise<Health> {
  return apiClient.get('/health', healthResponseSchema, { signal });
}

export function healthQueryOptions() {
  return queryOptions({
    queryKey: ['health'],
    queryFn: ({ signal }) => getHealth(signal),
    staleTime: HEALTH_COOLDOWN_MS,
    refetchInterval: HEALTH_CHECK_INTERVAL_MS,
    // One failed check is the signal (doc 2 §8.5): the warning shows at once, the next
    // check comes with the interval.
    retry: false,
  });
}

/** Whether the API answers its health check: true, false, or undefined before the first answer. */
export function useApiConnected(): boolean | undefined {
  const { data, isError } = useQuery(healthQueryOptions());
  if (isError) return false;
  if (data) return data.status === 'ok';
  return undefined;
}
