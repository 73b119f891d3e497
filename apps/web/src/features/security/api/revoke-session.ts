import { SECURITY_MESSAGES } from '@perch/shared';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { orWhenNotFound } from './not-found';
import { useSecurityMutation } from './security-mutation';

/**
 * DELETE /security/sessions/{id}: signs that session out. A 404 means it is already gone
 * (expired, or signed out elsewhere), which is what was asked, so it answers as a success.
 */
export function revokeSession(id: string): Promise<ApiAnswer<unknown>> {
  return orWhenNotFound(
    apiClient.requestWithMessage(`/security/sessions/${encodeURIComponent(id)}`, {
      method: 'DELETE',
    }),
    { data: null, message: SECURITY_MESSAGES.sessionRevoked },
  );
}

/** Revokes one session; the sessions, counts and events are read again either way. */
export function useRevokeSessionMutation() {
  return useSecurityMutation('revoke-session', revokeSession, 'settled');
}
