import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';

export interface RevokeInvitationInput {
  id: number;
}

/** DELETE /admin/invitations/{id}: the code can no longer be used to register. */
export function revokeInvitation({ id }: RevokeInvitationInput): Promise<ApiAnswer<unknown>> {
  return apiClient.requestWithMessage(`/admin/invitations/${id}`, { method: 'DELETE' });
}

export function useRevokeInvitationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['admin', 'revoke-invitation'],
    mutationFn: revokeInvitation,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminQueryKeys.invitations }),
  });
}
