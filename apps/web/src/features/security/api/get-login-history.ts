import {
  LOGIN_HISTORY_DEFAULT_LIMIT,
  loginHistoryResponseSchema,
  type LoginHistoryEntry,
} from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { SECURITY_REFRESH_MS } from '@/lib/polling/intervals';
import { orWhenNotFound } from './not-found';
import { securityQueryKeys } from './security-query-keys';

/** GET /security/login-history?limit: the latest sign-in attempts on the account. */
export async function getLoginHistory(
  limit: number,
  signal?: AbortSignal,
): Promise<LoginHistoryEntry[]> {
  const search = new URLSearchParams({ limit: String(limit) });
  const data = await orWhenNotFound(
    apiClient.get(`/security/login-history?${search.toString()}`, loginHistoryResponseSchema, {
      signal,
    }),
    { entries: [] },
  );
  return data.entries;
}

export function loginHistoryQueryOptions(limit = LOGIN_HISTORY_DEFAULT_LIMIT) {
  return queryOptions({
    queryKey: securityQueryKeys.loginHistory(limit),
    queryFn: ({ signal }) => getLoginHistory(limit, signal),
    refetchInterval: SECURITY_REFRESH_MS,
  });
}

export function useLoginHistoryQuery(limit = LOGIN_HISTORY_DEFAULT_LIMIT) {
  return useQuery(loginHistoryQueryOptions(limit));
}
