import { Group, NativeSelect, Paper, Stack, Text, UnstyledButton } from '@mantine/core';
import { ROLES, type AdminUser, type Role } from '@perch/shared';
import { formatDateTime } from '@/lib/format';
import { formatDate, formatRelative } from '@/lib/format';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { ROLE_LOOK } from '../utils/looks';
import { LookBadge } from './look-badge';

const ROLE_OPTIONS = ROLES.map((role) => ({ value: role, label: ROLE_LOOK[role].label }));

export interface UserRowProps {
  user: AdminUser;
  selected: boolean;
  onToggle: (user: AdminUser) => void;
  /** Shown to super admins only; null hides the role select. */
  roleControl: {
    disabled: boolean;
    busy: boolean;
    onChange: (user: AdminUser, role: Role) => void;
  } | null;
  /** The time relative dates are measured from. */
  now: number;
}

/**
 * One registered user: username, ID and join date, with the role, email and last activity as
 * secondary lines. The row is a toggle button (Enter or Space selects it from the keyboard); the
 * role select sits beside it, never inside it.
 */
export function UserRow({ user, selected, onToggle, roleControl, now }: UserRowProps) {
  const role = ROLE_LOOK[user.role];
  return (
    <Paper
      component="li"
      withBorder
      radius="md"
      p="xs"
      bg={selected ? 'var(--mantine-primary-color-light)' : undefined}
      style={{
        borderColor: selected ? 'var(--mantine-primary-color-filled)' : undefined,
      }}
      data-testid="user-row"
    >
      <Group gap="sm" wrap="wrap" align="center">
        <UnstyledButton
          onClick={() => onToggle(user)}
          aria-pressed={selected}
          aria-label={`${user.username} (ID: ${user.id})`}
          style={{ flex: '1 1 14rem', minWidth: 0, borderRadius: 'var(--mantine-radius-sm)' }}
          px={4}
        >
          <Stack gap={2}>
            <Group gap="xs" wrap="nowrap" miw={0}>
              <Text fw={600} size="sm" truncate="end">
                {user.username}
              </Text>
              <LookBadge color={role.color} size="xs">
                {role.label}
              </LookBadge>
            </Group>
            <Text size="xs" c="dimmed">
              ID: {user.id} · Joined {formatDate(user.created_at)}
            </Text>
            <Text size="xs" c="dimmed" truncate="end">
              {user.email}
              {' · '}
              {user.last_active_at ? (
                <span title={formatDateTime(user.last_active_at)}>
                  active {formatRelative(user.last_active_at, now)}
                </span>
              ) : (
                'never active'
              )}
              {' · '}
              {user.handles_count === 1 ? '1 handle' : `${user.handles_count} handles`}
            </Text>
          </Stack>
        </UnstyledButton>
        {roleControl ? (
          <NativeSelect
            size="xs"
            w={130}
            aria-label={ADMIN_TEXTS.roleOf(user.username)}
            title={roleControl.disabled ? ADMIN_TEXTS.ownRoleLocked : undefined}
            data={ROLE_OPTIONS}
            value={user.role}
            disabled={roleControl.disabled || roleControl.busy}
            onChange={(event) => roleControl.onChange(user, event.currentTarget.value as Role)}
          />
        ) : null}
      </Group>
    </Paper>
  );
}
