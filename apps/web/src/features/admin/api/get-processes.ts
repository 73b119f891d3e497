import { adminProcessesResponseSchema, type AdminProcesses } from '@perch/shared';
import { useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { PROCESSES_POLL_MS } from '@/lib/polling/intervals';
import { adminQueryKeys } from './admin-query-keys';
import { adminQueryOptions } from './admin-query';

/** GET /admin/processes: the tweet source in use and every handle's collector. */
export function getProcesses(signal?: AbortSignal): Promise<AdminProcesses> {
  return apiClient.get('/admin/processes', adminProcessesResponseSchema, { signal });
}

/** Polled every 10 s; TanStack Query pauses the interval while the tab is hidden. */
export function processesQueryOptions() {
  return adminQueryOptions(adminQueryKeys.processes, getProcesses, {
    refetchInterval: PROCESSES_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useProcessesQuery() {
  return useQuery(processesQueryOptions());
}
