import { Divider, Text } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminInvitation } from '@perch/shared';
import { IconBan } from '@tabler/icons-react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { type ListColumn, ResponsiveList } from '@/components/responsive-list';
import { formatDateTime } from '@/lib/format';
import { formatDate } from '@/lib/format';
import { useInvitationsQuery } from '../api/get-invitations';
import { useRevokeInvitationMutation } from '../api/revoke-invitation';
import { useConfirmedAction } from '../hooks/use-confirmed-action';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { INVITATION_STATE_LOOK, ROLE_LOOK } from '../utils/looks';
import { LookBadge } from './look-badge';
import { DangerButton } from './danger-button';
import { InvitationForm } from './invitation-form';
import { AdminQuerySection } from './admin-query-section';
import { ADMIN_SECTIONS } from './admin-sections';

const labelOf = (invitation: AdminInvitation) => ADMIN_TEXTS.invitationLabel(invitation.id);

// No code column: a code is shown once, when it is made (the server keeps only its hash).
const INVITATION_COLUMNS: readonly ListColumn<AdminInvitation>[] = [
  { header: 'Invitation', card: 'title', nowrap: true, cell: (invitation) => `#${invitation.id}` },
  {
    header: 'Role',
    cell: (invitation) => {
      const role = ROLE_LOOK[invitation.role];
      return <LookBadge color={role.color}>{role.label}</LookBadge>;
    },
  },
  { header: 'Uses', cell: (invitation) => `${invitation.uses}/${invitation.max_uses}` },
  {
    header: 'Created',
    cell: (invitation) => (
      <Text size="sm" title={formatDateTime(invitation.created_at)}>
        {formatDate(invitation.created_at)}
      </Text>
    ),
  },
  {
    header: 'Expires',
    cell: (invitation) =>
      invitation.expires_at ? (
        <Text size="sm" title={formatDateTime(invitation.expires_at)}>
          {formatDate(invitation.expires_at)}
        </Text>
      ) : (
        ADMIN_TEXTS.never
      ),
  },
  { header: 'Created by', cell: (invitation) => invitation.created_by ?? 'system' },
  {
    header: 'State',
    card: 'aside',
    cell: (invitation) => {
      const state = INVITATION_STATE_LOOK[invitation.state];
      return <LookBadge color={state.color}>{state.label}</LookBadge>;
    },
  },
];

/**
 * 'Invitations': a form to create codes (each shown once, right after) and the list of
 * invitations with their role, uses, creation, expiry, creator and state, each (while usable)
 * with Revoke. Plain admins manage user invitations only.
 */
export function InvitationsSection({ isSuperAdmin }: { isSuperAdmin: boolean }) {
  const query = useInvitationsQuery();
  const revokeMutation = useRevokeInvitationMutation();
  const revoke = useConfirmedAction(revokeMutation, {
    variables: (target: AdminInvitation) => ({ id: target.id }),
    successText: () => ADMIN_MESSAGES.invitationRevoked,
    failureText: (target) => ADMIN_TEXTS.revokeInvitationFailed(labelOf(target)),
    failureFallback: (target) => ADMIN_TEXTS.revokeInvitationFailed(labelOf(target)),
  });
  const invitations = query.data;
  const pending = revoke.pending;

  const canRevoke = (invitation: AdminInvitation) =>
    invitation.state === 'active' && (isSuperAdmin || invitation.role === 'user');

  return (
    <AdminQuerySection
      section={ADMIN_SECTIONS.invitations}
      query={query}
      lead={
        <>
          <InvitationForm isSuperAdmin={isSuperAdmin} />
          <Divider my="md" />
        </>
      }
    >
      {invitations && invitations.length > 0 ? (
        <ResponsiveList
          label="Invitations"
          items={invitations}
          itemKey={(invitation) => invitation.id}
          itemTestId="invitation-row"
          itemLabel={(invitation) => `Invitation #${invitation.id}`}
          columns={INVITATION_COLUMNS}
          minWidth={760}
          actions={(invitation) =>
            invitation.state === 'active' ? (
              <DangerButton
                icon={IconBan}
                label="Revoke"
                aria-label={`Revoke ${labelOf(invitation)}`}
                disabled={!canRevoke(invitation)}
                title={canRevoke(invitation) ? undefined : ADMIN_TEXTS.revokeLocked}
                busy={revokeMutation.isPending && revokeMutation.variables.id === invitation.id}
                onClick={() => revoke.ask(invitation)}
              />
            ) : null
          }
        />
      ) : null}

      <ConfirmDialog
        question={
          pending
            ? {
                title: ADMIN_TEXTS.revokeTitle,
                message: ADMIN_TEXTS.confirmRevoke(labelOf(pending)),
                confirmLabel: 'Revoke',
              }
            : null
        }
        onConfirm={revoke.confirm}
        onCancel={revoke.cancel}
      />
    </AdminQuerySection>
  );
}
