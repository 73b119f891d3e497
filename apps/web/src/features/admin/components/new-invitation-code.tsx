import { Alert, Box, Button, Code, Group, Stack, Text } from '@mantine/core';
import type { AdminCreatedInvitation } from '@perch/shared';
import { IconTicket } from '@tabler/icons-react';
import { CopyButton } from '@/components/copy-button';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { ROLE_LOOK } from '../utils/looks';

export interface NewInvitationCodeProps {
  invitation: AdminCreatedInvitation;
  /** The admin has the code: it goes, and nothing shows it again. */
  onDone: () => void;
}

/**
 * The code of the invitation just made, with a copy button. Shown this once: the server keeps
 * only the code's hash, so neither the list nor a reload can show it again.
 */
export function NewInvitationCode({ invitation, onDone }: NewInvitationCodeProps) {
  const notify = useAdminNotifier();
  const label = ADMIN_TEXTS.invitationLabel(invitation.id);
  return (
    <Box component="section" aria-label={ADMIN_TEXTS.newCodeRegion}>
      <Alert
        color="orange"
        variant="light"
        icon={<IconTicket size={18} />}
        title={ADMIN_TEXTS.newCodeTitle(ROLE_LOOK[invitation.role].label)}
      >
        <Stack gap="xs">
          <Text size="sm">{ADMIN_TEXTS.newCodeOnce}</Text>
          <Group gap="xs" justify="space-between">
            <Code fz="md" style={{ letterSpacing: 1, overflowWrap: 'anywhere' }}>
              {invitation.code}
            </Code>
            <Group gap="xs">
              <CopyButton
                text={invitation.code}
                label={`Copy the code of ${label}`}
                copiedLabel={`Copied the code of ${label}`}
                onFailed={() => notify.error(ADMIN_TEXTS.copyFailed)}
              />
              <Button size="xs" variant="default" onClick={onDone}>
                {ADMIN_TEXTS.newCodeDone}
              </Button>
            </Group>
          </Group>
        </Stack>
      </Alert>
    </Box>
  );
}
