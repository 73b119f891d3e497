import { Code, Divider, Text } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminInvitation } from '@perch/shared';
import { IconBan, IconTicket } from '@tabler/icons-react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { CopyButton } from '@/components/copy-button';
import { IconSection } from '@/components/icon-section';
import { type ListColumn, ResponsiveList } from '@/components/responsive-list';
import { QueryStates } from '@/components/section-states';
import { formatDateTime } from '@/lib/format';
import { formatDate } from '@/lib/format';
import { useInvitationsQuery } from '../api/get-invitations';
import { useRevokeInvitationMutation } from '../api/revoke-invitation';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { useConfirmedAction } from '../hooks/use-confirmed-action';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { INVITATION_STATE_LOOK, ROLE_LOOK } from '../utils/looks';
import { LookBadge } from './look-badge';
import { DangerButton } from './danger-button';
import { InvitationForm } from './invitation-form';

const INVITATION_COLUMNS: readonly ListColumn<AdminInvitation>[] = [
  {
    header: 'Code',
    card: 'title',
    cell: (invitation) => (
      <Code fz="sm" style={{ whiteSpace: 'nowrap' }}>
        {invitation.code}
      </Code>
    ),
  },
  {
    header: 'Role',
    cell: (invitation) => {
      const role = ROLE_LOOK[invitation.role];
      return <LookBadge color={role.color}>{role.label}</LookBadge>;
    },
  },
  { header: 'Uses', cell: (invitation) => `${invitation.uses}/${invitation.max_uses}` },
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
 * 'Invitations': a form to create codes and the list of codes with their role, uses, expiry and
 * state, each with Copy and (while usable) Revoke. Plain admins manage user invitations only.
 */
export function InvitationsSection({ isSuperAdmin }: { isSuperAdmin: boolean }) {
  const query = useInvitationsQuery();
  const revokeMutation = useRevokeInvitationMutation();
  const notify = useAdminNotifier();
  const revoke = useConfirmedAction(revokeMutation, {
    variables: (target: AdminInvitation) => ({ id: target.id, code: target.code }),
    successText: () => ADMIN_MESSAGES.invitationRevoked,
    failureText: (target) => ADMIN_TEXTS.revokeInvitationFailed(target.code),
    failureFallback: (target) => ADMIN_TEXTS.revokeInvitationFailed(target.code),
  });
  const invitations = query.data;
  const pending = revoke.pending;

  const canRevoke = (invitation: AdminInvitation) =>
    invitation.state === 'active' && (isSuperAdmin || invitation.role === 'user');

  return (
    <IconSection
      title={ADMIN_TEXTS.invitationsTitle}
      icon={IconTicket}
      color="orange"
      description={ADMIN_TEXTS.invitationsDescription}
      testId="invitations"
    >
      <InvitationForm isSuperAdmin={isSuperAdmin} />
      <Divider my="md" />
      <QueryStates
        query={query}
        loadingLabel="Loading invitations"
        errorTitle={ADMIN_TEXTS.loadInvitationsFailed}
        errorFallback={ADMIN_TEXTS.loadInvitationsFailed}
        errorTestId="invitations-error"
        emptyText={ADMIN_TEXTS.noInvitations}
      />
      {invitations && invitations.length > 0 ? (
        <ResponsiveList
          label="Invitation codes"
          items={invitations}
          itemKey={(invitation) => invitation.id}
          itemTestId="invitation-row"
          itemLabel={(invitation) => `Invitation ${invitation.code}`}
          columns={INVITATION_COLUMNS}
          minWidth={760}
          actions={(invitation) => (
            <>
              <CopyButton
                text={invitation.code}
                label={`Copy ${invitation.code}`}
                copiedLabel={`Copied ${invitation.code}`}
                onFailed={() => notify.error(ADMIN_TEXTS.copyFailed)}
              />
              {invitation.state === 'active' ? (
                <DangerButton
                  icon={IconBan}
                  label="Revoke"
                  aria-label={`Revoke ${invitation.code}`}
                  disabled={!canRevoke(invitation)}
                  title={canRevoke(invitation) ? undefined : ADMIN_TEXTS.revokeLocked}
                  busy={revokeMutation.isPending && revokeMutation.variables.id === invitation.id}
                  onClick={() => revoke.ask(invitation)}
                />
              ) : null}
            </>
          )}
        />
      ) : null}

      <ConfirmDialog
        question={
          pending
            ? {
                title: ADMIN_TEXTS.revokeTitle,
                message: ADMIN_TEXTS.confirmRevoke(pending.code),
                confirmLabel: 'Revoke',
              }
            : null
        }
        onConfirm={revoke.confirm}
        onCancel={revoke.cancel}
      />
    </IconSection>
  );
}
