import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { useAdminMutation } from './admin-query';

export interface RevokeInvitationInput {
  id: number;
}

/** DELETE /admin/invitations/{id}: the code can no longer be used to register. */
export function revokeInvitation({ id }: RevokeInvitationInput): Promise<ApiAnswer<unknown>> {
  return apiClient.requestWithMessage(`/admin/invitations/${id}`, { method: 'DELETE' });
}

export function useRevokeInvitationMutation() {
  return useAdminMutation(['admin', 'revoke-invitation'], revokeInvitation, (queryClient) =>
    queryClient.invalidateQueries({ queryKey: adminQueryKeys.invitations }),
  );
}
