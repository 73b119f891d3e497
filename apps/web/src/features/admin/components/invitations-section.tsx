import { Button, Code, Divider, Group, Table, Text, VisuallyHidden } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminInvitation } from '@perch/shared';
import { IconBan, IconTicket } from '@tabler/icons-react';
import { useState } from 'react';
import { useInvitationsQuery } from '../api/get-invitations';
import { useRevokeInvitationMutation } from '../api/revoke-invitation';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { failureReason } from '../utils/failure';
import { formatDate, formatDateTime } from '../utils/format';
import { INVITATION_STATE_LOOK, ROLE_LOOK } from '../utils/looks';
import { AdminSection } from './admin-section';
import { LookBadge } from './look-badge';
import { ConfirmDialog } from './confirm-dialog';
import { CopyCodeButton } from './copy-code-button';
import { InvitationForm } from './invitation-form';
import { EmptyText, SectionError, SectionSkeleton } from './section-states';

/**
 * 'Invitations': a form to create codes and the list of codes with their role, uses, expiry and
 * state, each with Copy and (while usable) Revoke. Plain admins manage user invitations only.
 */
export function InvitationsSection({ isSuperAdmin }: { isSuperAdmin: boolean }) {
  const query = useInvitationsQuery();
  const revokeMutation = useRevokeInvitationMutation();
  const notify = useAdminNotifier();
  const [pending, setPending] = useState<AdminInvitation | null>(null);
  const invitations = query.data;

  const handleConfirmRevoke = () => {
    const target = pending;
    setPending(null);
    if (!target) return;
    revokeMutation.mutate(
      { id: target.id, code: target.code },
      {
        onSuccess: ({ message }) => notify.success(message ?? ADMIN_MESSAGES.invitationRevoked),
        onError: (error) =>
          notify.error(
            ADMIN_TEXTS.revokeInvitationFailed(target.code),
            failureReason(error, ADMIN_TEXTS.revokeInvitationFailed(target.code)),
          ),
      },
    );
  };

  const canRevoke = (invitation: AdminInvitation) =>
    invitation.state === 'active' && (isSuperAdmin || invitation.role === 'user');

  return (
    <AdminSection
      title={ADMIN_TEXTS.invitationsTitle}
      icon={IconTicket}
      color="orange"
      description={ADMIN_TEXTS.invitationsDescription}
      testId="invitations"
    >
      <InvitationForm isSuperAdmin={isSuperAdmin} />
      <Divider my="md" />
      {query.isPending ? <SectionSkeleton label="Loading invitations" /> : null}
      {query.isError && !invitations ? (
        <SectionError
          title={ADMIN_TEXTS.loadInvitationsFailed}
          reason={failureReason(query.error, ADMIN_TEXTS.loadInvitationsFailed)}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
          testId="invitations-error"
        />
      ) : null}
      {invitations && invitations.length === 0 ? (
        <EmptyText>{ADMIN_TEXTS.noInvitations}</EmptyText>
      ) : null}
      {invitations && invitations.length > 0 ? (
        <Table.ScrollContainer minWidth={760} type="native">
          <Table verticalSpacing="xs" aria-label="Invitation codes">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Code</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Uses</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th>Created by</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {invitations.map((invitation) => {
                const state = INVITATION_STATE_LOOK[invitation.state];
                const role = ROLE_LOOK[invitation.role];
                return (
                  <Table.Tr
                    key={invitation.id}
                    data-testid="invitation-row"
                    aria-label={`Invitation ${invitation.code}`}
                  >
                    <Table.Td>
                      <Code fz="sm" style={{ whiteSpace: 'nowrap' }}>
                        {invitation.code}
                      </Code>
                    </Table.Td>
                    <Table.Td>
                      <LookBadge color={role.color}>{role.label}</LookBadge>
                    </Table.Td>
                    <Table.Td>
                      {invitation.uses}/{invitation.max_uses}
                    </Table.Td>
                    <Table.Td>
                      {invitation.expires_at ? (
                        <Text size="sm" title={formatDateTime(invitation.expires_at)}>
                          {formatDate(invitation.expires_at)}
                        </Text>
                      ) : (
                        ADMIN_TEXTS.never
                      )}
                    </Table.Td>
                    <Table.Td>{invitation.created_by ?? 'system'}</Table.Td>
                    <Table.Td>
                      <LookBadge color={state.color}>{state.label}</LookBadge>
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" justify="flex-end" wrap="nowrap">
                        <CopyCodeButton
                          code={invitation.code}
                          onFailed={() => notify.error(ADMIN_TEXTS.copyFailed)}
                        />
                        {invitation.state === 'active' ? (
                          <Button
                            size="xs"
                            color="red"
                            variant="light"
                            leftSection={<IconBan size={14} />}
                            aria-label={`Revoke ${invitation.code}`}
                            disabled={!canRevoke(invitation)}
                            title={canRevoke(invitation) ? undefined : ADMIN_TEXTS.revokeLocked}
                            loading={
                              revokeMutation.isPending &&
                              revokeMutation.variables.id === invitation.id
                            }
                            onClick={() => setPending(invitation)}
                          >
                            Revoke
                          </Button>
                        ) : null}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}

      <ConfirmDialog
        title={ADMIN_TEXTS.revokeTitle}
        message={pending ? ADMIN_TEXTS.confirmRevoke(pending.code) : null}
        confirmLabel="Revoke"
        onConfirm={handleConfirmRevoke}
        onCancel={() => setPending(null)}
      />
    </AdminSection>
  );
}
