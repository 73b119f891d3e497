import { SECURITY_MESSAGES } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiClient, type ApiAnswer } from '@/lib/api-client';
import { securityQueryKeys } from './security-query-keys';

/**
 * DELETE /security/sessions/{id}: signs that session out. A 404 means it is already gone
 * (expired, or signed out elsewhere), which is what was asked, so it answers as a success.
 */
export async function revokeSession(id: string): Promise<ApiAnswer<unknown>> {
  try {
    return await apiClient.requestWithMessage(`/security/sessions/${encodeURIComponent(id)}`, {
      method: 'DELETE',
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      return { data: null, message: SECURITY_MESSAGES.sessionRevoked };
    }
    throw error;
  }
}

/** Revokes one session; the sessions, counts and events are read again either way. */
export function useRevokeSessionMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['security', 'revoke-session'],
    mutationFn: revokeSession,
    onSettled: () => queryClient.invalidateQueries({ queryKey: securityQueryKeys.all }),
  });
}
