import { revokeOthersResponseSchema } from '@perch/shared';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { useSecurityMutation } from './security-mutation';

/** POST /security/sessions/revoke-others: signs out every session but this one. */
export function revokeOtherSessions(): Promise<ApiAnswer<{ revoked: number }>> {
  return apiClient.requestWithMessage('/security/sessions/revoke-others', {
    method: 'POST',
    schema: revokeOthersResponseSchema,
  });
}

export function useRevokeOtherSessionsMutation() {
  return useSecurityMutation('revoke-others', revokeOtherSessions, 'settled');
}
