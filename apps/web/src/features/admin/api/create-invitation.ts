import {
  adminInvitationResponseSchema,
  type AdminInvitation,
  type CreateInvitationRequest,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';

/**
 * POST /admin/invitations: a new code for `role` (admin roles need a super admin), usable
 * `max_uses` times, expiring after `expires_in_days` (null: never).
 */
export function createInvitation(
  body: CreateInvitationRequest,
): Promise<ApiAnswer<{ invitation: AdminInvitation }>> {
  return apiClient.requestWithMessage('/admin/invitations', {
    method: 'POST',
    body,
    schema: adminInvitationResponseSchema,
  });
}

/** Creates a code; it shows first in the list at once, then the list is fetched again. */
export function useCreateInvitationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['admin', 'create-invitation'],
    mutationFn: createInvitation,
    onSuccess: ({ data: { invitation } }) => {
      queryClient.setQueryData<AdminInvitation[]>(adminQueryKeys.invitations, (current) =>
        current ? [invitation, ...current.filter((entry) => entry.id !== invitation.id)] : current,
      );
      return queryClient.invalidateQueries({ queryKey: adminQueryKeys.invitations });
    },
  });
}
