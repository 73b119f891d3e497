import { SimpleGrid, Stack } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminUser, type Role } from '@perch/shared';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { useChangeUserRoleMutation } from '../api/change-user-role';
import { useAdminUsersQuery } from '../api/get-users';
import { useConfirmedAction } from '../hooks/use-confirmed-action';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { UserHandlesCard } from './user-handles-card';
import { UserRow } from './user-row';
import { AdminQuerySection } from './admin-query-section';
import { ADMIN_SECTIONS } from './admin-sections';

export interface UsersSectionProps {
  /** The signed-in admin, whose own role cannot be changed here. */
  currentUserId: number;
  isSuperAdmin: boolean;
}

interface RoleChange {
  user: AdminUser;
  role: Role;
}

/**
 * 'Registered Users (count)' and, beside it on wide screens, the selected user's 'Monitored
 * Handles'. Clicking a user toggles the selection. Super admins also get a role select per user.
 */
export function UsersSection({ currentUserId, isSuperAdmin }: UsersSectionProps) {
  const query = useAdminUsersQuery();
  const roleMutation = useChangeUserRoleMutation();
  const roleChange = useConfirmedAction(roleMutation, {
    variables: ({ user, role }: RoleChange) => ({ userId: user.id, username: user.username, role }),
    successText: (_change, { data: { user: updated } }) =>
      ADMIN_MESSAGES.roleChanged(updated.username, updated.role),
    failureText: ({ user }) => ADMIN_TEXTS.changeRoleFailed(user.username),
    failureFallback: ({ user }) => ADMIN_TEXTS.changeRoleFailed(user.username),
  });
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const users = query.data;
  const selectedUser = users?.find((user) => user.id === selectedId) ?? null;
  const pendingChange = roleChange.pending;

  const handleToggle = (user: AdminUser) =>
    setSelectedId((current) => (current === user.id ? null : user.id));

  const handleRoleChange = (user: AdminUser, role: Role) => {
    if (role !== user.role) roleChange.ask({ user, role });
  };

  return (
    <>
      <SimpleGrid type="container" cols={{ base: 1, '860px': 2 }} spacing="lg">
        <AdminQuerySection
          section={ADMIN_SECTIONS.users}
          query={query}
          title={ADMIN_TEXTS.usersTitle(users?.length)}
        >
          {users && users.length > 0 ? (
            <Stack component="ul" gap="xs" m={0} p={0} style={{ listStyle: 'none' }}>
              {users.map((user) => (
                <UserRow
                  key={user.id}
                  user={user}
                  selected={user.id === selectedId}
                  onToggle={handleToggle}
                  now={query.dataUpdatedAt}
                  roleControl={
                    isSuperAdmin
                      ? {
                          disabled: user.id === currentUserId,
                          busy: roleMutation.isPending && roleMutation.variables.userId === user.id,
                          onChange: handleRoleChange,
                        }
                      : null
                  }
                />
              ))}
            </Stack>
          ) : null}
        </AdminQuerySection>

        <UserHandlesCard userId={selectedId} user={selectedUser} />
      </SimpleGrid>

      <ConfirmDialog
        question={
          pendingChange
            ? {
                title: ADMIN_TEXTS.changeRoleTitle,
                message: ADMIN_TEXTS.confirmRoleChange(
                  pendingChange.user.username,
                  pendingChange.role,
                ),
                confirmLabel: 'Change role',
              }
            : null
        }
        confirmColor="blue"
        onConfirm={roleChange.confirm}
        onCancel={roleChange.cancel}
      />
    </>
  );
}
