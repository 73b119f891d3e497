import { adminHandlesResponseSchema, type AdminHandle } from '@perch/shared';
import { useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { adminQueryOptions } from './admin-query';

/** GET /admin/all-handles: every handle of the system, whoever follows it. */
export async function getAllHandles(signal?: AbortSignal): Promise<AdminHandle[]> {
  const data = await apiClient.get('/admin/all-handles', adminHandlesResponseSchema, { signal });
  return data.handles;
}

/** One cache entry serves the global management list and the clean-up table. */
export function allHandlesQueryOptions() {
  return adminQueryOptions(adminQueryKeys.handles, getAllHandles);
}

export function useAllHandlesQuery() {
  return useQuery(allHandlesQueryOptions());
}
