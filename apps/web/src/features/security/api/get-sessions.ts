import { securitySessionsResponseSchema, type SecuritySession } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { SECURITY_REFRESH_MS } from '@/lib/polling/intervals';
import { orWhenNotFound } from './not-found';
import { securityQueryKeys } from './security-query-keys';

/** GET /security/sessions: the user's live sessions, this browser's marked `current`. */
export async function getSessions(signal?: AbortSignal): Promise<SecuritySession[]> {
  const data = await orWhenNotFound(
    apiClient.get('/security/sessions', securitySessionsResponseSchema, { signal }),
    { sessions: [] },
  );
  return data.sessions;
}

export function sessionsQueryOptions() {
  return queryOptions({
    queryKey: securityQueryKeys.sessions,
    queryFn: ({ signal }) => getSessions(signal),
    refetchInterval: SECURITY_REFRESH_MS,
  });
}

export function useSessionsQuery() {
  return useQuery(sessionsQueryOptions());
}
