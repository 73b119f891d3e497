import { adminProcessesResponseSchema, type AdminProcesses } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';

/** The collectors table is fetched again this often while the page is visible. */
export const PROCESSES_POLL_MS = 10_000;

/** GET /admin/processes: the tweet source in use and every handle's collector. */
export function getProcesses(signal?: AbortSignal): Promise<AdminProcesses> {
  return apiClient.get('/admin/processes', adminProcessesResponseSchema, { signal });
}

/** Polled every 10 s; TanStack Query pauses the interval while the tab is hidden. */
export function processesQueryOptions() {
  return queryOptions({
    queryKey: adminQueryKeys.processes,
    queryFn: ({ signal }) => getProcesses(signal),
    refetchInterval: PROCESSES_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useProcessesQuery() {
  return useQuery(processesQueryOptions());
}
