import {
  HEALTH_MONITOR_COOLDOWN_MS,
  HEALTH_MONITOR_MESSAGES,
  HEALTH_MONITOR_WAIT_TIMEOUT_MS,
  healthResponseSchema,
  type Health,
} from '@perch/shared';
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { HEALTH_MONITOR_INTERVAL_MS } from '@/lib/polling/intervals';
import { pollMeta } from '@/lib/polling/poll-gate';

export const healthQueryKey = ['health'] as const;

/** GET /health: the API and its database answer (a 503 means degraded). */
export function getHealth(signal?: AbortSignal): Promise<Health> {
  return apiClient.get('/health', healthResponseSchema, { signal });
}

/**
 * Health checking: a check at once and then every 30 s (from the leading tab, shared
 * with the others); within 5 s of the last answer a check is answered from it; the answer is
 * pushed to every subscriber (the query's observers). It keeps going while the retry circuit is
 * open: it is how the app notices the server is back.
 */
export function healthQueryOptions() {
  return queryOptions({
    queryKey: healthQueryKey,
    queryFn: ({ signal }) => getHealth(signal),
    staleTime: HEALTH_MONITOR_COOLDOWN_MS,
    refetchInterval: HEALTH_MONITOR_INTERVAL_MS,
    // One failed check is the signal: the warning shows at once, the next
    // check comes with the interval.
    retry: false,
    meta: pollMeta('low', { probe: true }),
  });
}

/** One health check's outcome. */
export type HealthCheck = { ok: true; health: Health } | { ok: false; message: string };

/**
 * A health check on demand: answered from the last result within 5 s unless forced; a
 * check already running is joined, and waiting gives up after 10 s with 'Health check timeout'.
 */
export async function checkHealth(
  queryClient: QueryClient,
  options: { force?: boolean } = {},
): Promise<HealthCheck> {
  const fetched = queryClient
    .fetchQuery({
      ...healthQueryOptions(),
      staleTime: options.force ? 0 : HEALTH_MONITOR_COOLDOWN_MS,
    })
    .then(
      (health): HealthCheck => ({ ok: true, health }),
      (error: unknown): HealthCheck => ({
        ok: false,
        message: error instanceof Error ? error.message : HEALTH_MONITOR_MESSAGES.unreachable,
      }),
    );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<HealthCheck>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, message: HEALTH_MONITOR_MESSAGES.waitTimeout }),
      HEALTH_MONITOR_WAIT_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([fetched, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the API answers its health check: true, false, or undefined before the first answer. */
export function useApiConnected(): boolean | undefined {
  const { data, isError } = useQuery(healthQueryOptions());
  if (isError) return false;
  if (data) return data.status === 'ok';
  return undefined;
}
