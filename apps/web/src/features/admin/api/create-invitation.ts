import {
  adminCreatedInvitationResponseSchema,
  type AdminCreatedInvitation,
  type AdminInvitation,
  type CreateInvitationRequest,
} from '@perch/shared';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { useAdminMutation } from './admin-query';

/**
 * POST /admin/invitations: a new code for `role` (admin roles need a super admin), usable
 * `max_uses` times, expiring after `expires_in_days` (null: never). The answer is the only one
 * that carries the code.
 */
export function createInvitation(
  body: CreateInvitationRequest,
): Promise<ApiAnswer<{ invitation: AdminCreatedInvitation }>> {
  return apiClient.requestWithMessage('/admin/invitations', {
    method: 'POST',
    body,
    schema: adminCreatedInvitationResponseSchema,
  });
}

/**
 * Creates a code; the invitation (without its code, which the form shows once) is first in the
 * list at once, then the list is fetched again.
 */
export function useCreateInvitationMutation() {
  return useAdminMutation(
    ['admin', 'create-invitation'],
    createInvitation,
    (queryClient, { data }) => {
      const { code: _shownOnce, ...listed } = data.invitation;
      queryClient.setQueryData<AdminInvitation[]>(adminQueryKeys.invitations, (current) =>
        current ? [listed, ...current.filter((entry) => entry.id !== listed.id)] : current,
      );
      return queryClient.invalidateQueries({ queryKey: adminQueryKeys.invitations });
    },
  );
}
