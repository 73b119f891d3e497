import { adminUserResponseSchema, type AdminUser, type Role } from '@perch/shared';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { useAdminMutation } from './admin-query';

export interface ChangeUserRoleInput {
  userId: number;
  /** The user's name, for the messages. */
  username: string;
  role: Role;
}

/** PUT /admin/users/{id}/role (super admin): answers the user with the new role. */
export function changeUserRole({
  userId,
  role,
}: ChangeUserRoleInput): Promise<ApiAnswer<{ user: AdminUser }>> {
  return apiClient.requestWithMessage(`/admin/users/${userId}/role`, {
    method: 'PUT',
    body: { role },
    schema: adminUserResponseSchema,
  });
}

/** Changes a role; the answered user replaces the cached one. */
export function useChangeUserRoleMutation() {
  return useAdminMutation(['admin', 'change-role'], changeUserRole, (queryClient, { data }) => {
    queryClient.setQueryData<AdminUser[]>(adminQueryKeys.users, (current) =>
      current?.map((entry) => (entry.id === data.user.id ? data.user : entry)),
    );
    return queryClient.invalidateQueries({ queryKey: adminQueryKeys.users });
  });
}
