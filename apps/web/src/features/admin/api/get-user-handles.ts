import { adminUserHandlesResponseSchema, type AdminUserHandle } from '@perch/shared';
import { useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { adminQueryOptions } from './admin-query';

/** GET /admin/users/{id}/handles: the handles one user monitors. */
export async function getAdminUserHandles(
  userId: number,
  signal?: AbortSignal,
): Promise<AdminUserHandle[]> {
  const data = await apiClient.get(
    `/admin/users/${userId}/handles`,
    adminUserHandlesResponseSchema,
    { signal },
  );
  return data.handles;
}

export function adminUserHandlesQueryOptions(userId: number) {
  return adminQueryOptions(adminQueryKeys.userHandles(userId), (signal) =>
    getAdminUserHandles(userId, signal),
  );
}

/** The handles of the selected user; nothing is fetched while no user is selected. */
export function useAdminUserHandlesQuery(userId: number | null) {
  return useQuery({
    ...adminUserHandlesQueryOptions(userId ?? 0),
    enabled: userId !== null,
  });
}
