import { revokeOthersResponseSchema } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { securityQueryKeys } from './security-query-keys';

/** POST /security/sessions/revoke-others: signs out every session but this one. */
export function revokeOtherSessions(): Promise<ApiAnswer<{ revoked: number }>> {
  return apiClient.requestWithMessage('/security/sessions/revoke-others', {
    method: 'POST',
    schema: revokeOthersResponseSchema,
  });
}

export function useRevokeOtherSessionsMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['security', 'revoke-others'],
    mutationFn: revokeOtherSessions,
    onSettled: () => queryClient.invalidateQueries({ queryKey: securityQueryKeys.all }),
  });
}
