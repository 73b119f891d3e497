import { adminInvitationsResponseSchema, type AdminInvitation } from '@perch/shared';
import { useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { adminQueryOptions } from './admin-query';

/** GET /admin/invitations: the invitation codes, with their uses and state. */
export async function getInvitations(signal?: AbortSignal): Promise<AdminInvitation[]> {
  const data = await apiClient.get('/admin/invitations', adminInvitationsResponseSchema, {
    signal,
  });
  return data.invitations;
}

export function invitationsQueryOptions() {
  return adminQueryOptions(adminQueryKeys.invitations, getInvitations);
}

export function useInvitationsQuery() {
  return useQuery(invitationsQueryOptions());
}
