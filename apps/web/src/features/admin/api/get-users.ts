import { adminUsersResponseSchema, type AdminUser } from '@perch/shared';
import { useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { adminQueryOptions } from './admin-query';

/** GET /admin/users: every registered account with its role and activity. */
export async function getAdminUsers(signal?: AbortSignal): Promise<AdminUser[]> {
  const data = await apiClient.get('/admin/users', adminUsersResponseSchema, { signal });
  return data.users;
}

export function adminUsersQueryOptions() {
  return adminQueryOptions(adminQueryKeys.users, getAdminUsers);
}

export function useAdminUsersQuery() {
  return useQuery(adminUsersQueryOptions());
}
