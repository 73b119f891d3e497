import { adminInvitationsResponseSchema, type AdminInvitation } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';

/** GET /admin/invitations: the invitation codes, with their uses and state. */
export async function getInvitations(signal?: AbortSignal): Promise<AdminInvitation[]> {
  const data = await apiClient.get('/admin/invitations', adminInvitationsResponseSchema, {
    signal,
  });
  return data.invitations;
}

export function invitationsQueryOptions() {
  return queryOptions({
    queryKey: adminQueryKeys.invitations,
    queryFn: ({ signal }) => getInvitations(signal),
  });
}

export function useInvitationsQuery() {
  return useQuery(invitationsQueryOptions());
}
