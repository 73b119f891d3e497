import { xAccountStatusSchema, type XAccountStatus } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

export const xAccountStatusQueryKey = ['settings', 'x-account'] as const;

/** GET /auth/twitter/status: the user's X account, and whether this server offers X OAuth. */
export function getXAccountStatus(signal?: AbortSignal): Promise<XAccountStatus> {
  return apiClient.get('/auth/twitter/status', xAccountStatusSchema, { signal });
}

export function xAccountStatusQueryOptions() {
  return queryOptions({
    queryKey: xAccountStatusQueryKey,
    queryFn: ({ signal }) => getXAccountStatus(signal),
  });
}

export function useXAccountStatusQuery() {
  return useQuery(xAccountStatusQueryOptions());
}
