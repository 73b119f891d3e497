import { SimpleGrid, Stack } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminUser, type Role } from '@perch/shared';
import { IconUsers } from '@tabler/icons-react';
import { useState } from 'react';
import { useChangeUserRoleMutation } from '../api/change-user-role';
import { useAdminUsersQuery } from '../api/get-users';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { failureReason } from '../utils/failure';
import { AdminSection } from './admin-section';
import { ConfirmDialog } from './confirm-dialog';
import { EmptyText, SectionError, SectionSkeleton } from './section-states';
import { UserHandlesCard } from './user-handles-card';
import { UserRow } from './user-row';

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
  const notify = useAdminNotifier();
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [roleChange, setRoleChange] = useState<RoleChange | null>(null);
  const users = query.data;
  const selectedUser = users?.find((user) => user.id === selectedId) ?? null;

  const handleToggle = (user: AdminUser) =>
    setSelectedId((current) => (current === user.id ? null : user.id));

  const handleRoleChange = (user: AdminUser, role: Role) => {
    if (role !== user.role) setRoleChange({ user, role });
  };

  const handleConfirmRole = () => {
    const change = roleChange;
    setRoleChange(null);
    if (!change) return;
    const { user, role } = change;
    roleMutation.mutate(
      { userId: user.id, username: user.username, role },
      {
        onSuccess: ({ data: { user: updated }, message }) =>
          notify.success(message ?? ADMIN_MESSAGES.roleChanged(updated.username, updated.role)),
        onError: (error) =>
          notify.error(
            ADMIN_TEXTS.changeRoleFailed(user.username),
            failureReason(error, ADMIN_TEXTS.changeRoleFailed(user.username)),
          ),
      },
    );
  };

  return (
    <>
      <SimpleGrid type="container" cols={{ base: 1, '860px': 2 }} spacing="lg">
        <AdminSection
          title={ADMIN_TEXTS.usersTitle(users?.length)}
          icon={IconUsers}
          color="cyan"
          description={ADMIN_TEXTS.usersDescription}
          testId="registered-users"
        >
          {query.isPending ? <SectionSkeleton label="Loading users" /> : null}
          {query.isError && !users ? (
            <SectionError
              title={ADMIN_MESSAGES.loadUsersFailed}
              reason={failureReason(query.error, ADMIN_MESSAGES.fetchUsersFailed)}
              retrying={query.isFetching}
              onRetry={() => void query.refetch()}
              testId="users-error"
            />
          ) : null}
          {users && users.length === 0 ? <EmptyText>{ADMIN_TEXTS.noUsers}</EmptyText> : null}
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
        </AdminSection>

        <UserHandlesCard userId={selectedId} user={selectedUser} />
      </SimpleGrid>

      <ConfirmDialog
        title={ADMIN_TEXTS.changeRoleTitle}
        message={
          roleChange
            ? ADMIN_TEXTS.confirmRoleChange(roleChange.user.username, roleChange.role)
            : null
        }
        confirmLabel="Change role"
        confirmColor="blue"
        onConfirm={handleConfirmRole}
        onCancel={() => setRoleChange(null)}
      />
    </>
  );
}
