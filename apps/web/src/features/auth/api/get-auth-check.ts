import { authCheckFromUser, type AuthCheckResponse, type User } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, apiClient } from '@/lib/api-client';
import { SESSION_REVALIDATION_MS } from '@/lib/polling/intervals';
import { authCheckAnswer } from './auth-answers';

const AUTH_CHECK_KEY = ['auth', 'check'] as const;

/** The session check result of a signed-out browser. */
export function signedOutCheck(csrfToken = ''): AuthCheckResponse {
  return { authenticated: false, csrfToken };
}

/** The session check result matching a user the server just signed in. */
export function signedInCheck(user: User, csrfToken: string): AuthCheckResponse {
  return authCheckFromUser(user, csrfToken);
}

/** GET /auth/check: who is signed in (a signed-out browser gets authenticated false). */
export async function getAuthCheck(signal?: AbortSignal): Promise<AuthCheckResponse> {
  try {
    return await apiClient.get('/auth/check', authCheckAnswer, { signal });
  } catch (error) {
    // A 401 on validation means signed out, not a failure.
    if (error instanceof ApiError && error.status === 401) return signedOutCheck();
    throw error;
  }
}

/** Runs at start, then every 30 min; a failed check signs the browser out. */
export function authCheckQueryOptions() {
  return queryOptions({
    queryKey: AUTH_CHECK_KEY,
    queryFn: ({ signal }) => getAuthCheck(signal),
    staleTime: SESSION_REVALIDATION_MS,
    refetchInterval: SESSION_REVALIDATION_MS,
    refetchOnWindowFocus: false,
    // A check that got no answer is asked again by Try again or the interval, not by every
    // component that mounts: with no data yet, each refetch sends the page back to its loader,
    // which would mount the guards again and ask again, in a loop.
    retryOnMount: false,
    retry: (failureCount, error) =>
      failureCount < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
  });
}

/** Cache key of the session check (typed); the whole auth state derives from this entry. */
export const authCheckQueryKey = authCheckQueryOptions().queryKey;

export function useAuthCheckQuery() {
  return useQuery(authCheckQueryOptions());
}
