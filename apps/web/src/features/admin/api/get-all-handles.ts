import { adminHandlesResponseSchema, type AdminHandle } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';

/** GET /admin/all-handles: every handle of the system, whoever follows it. */
export async function getAllHandles(signal?: AbortSignal): Promise<AdminHandle[]> {
  const data = await apiClient.get('/admin/all-handles', adminHandlesResponseSchema, { signal });
  return data.handles;
}

/** One cache entry serves the global management list and the clean-up table. */
export function allHandlesQueryOptions() {
  return queryOptions({
    queryKey: adminQueryKeys.handles,
    queryFn: ({ signal }) => getAllHandles(signal),
  });
}

export function useAllHandlesQuery() {
  return useQuery(allHandlesQueryOptions());
}
