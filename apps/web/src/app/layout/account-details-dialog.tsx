import { Modal, Stack } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { authCheckQueryKey } from '@/features/auth/api/get-auth-check';
import { PasswordStrengthMeter } from '@/features/auth/components/password-strength-meter';
import { ChangeEmailCard } from '@/features/security/components/change-email-card';
import { ChangePasswordCard } from '@/features/security/components/change-password-card';
import { SECURITY_TEXTS } from '@/features/security/utils/security-texts';
import { usePhoneLayout } from '@/lib/use-phone-layout';

const passwordStrength = (password: string) => <PasswordStrengthMeter password={password} />;

export interface AccountDetailsDialogProps {
  opened: boolean;
  onClose: () => void;
  /** The signed-in person's address, shown above the new one. */
  email: string;
}

/**
 * The account menu's "Account details": a new email address and a new password, each with the
 * current password. Composed here because the forms belong to the security feature and the
 * session check and strength meter to the auth feature; full screen on phones.
 */
export function AccountDetailsDialog({ opened, onClose, email }: AccountDetailsDialogProps) {
  const queryClient = useQueryClient();
  const phone = usePhoneLayout();
  // The header badge and every page read the address from the session check.
  const refreshSession = () => queryClient.invalidateQueries({ queryKey: authCheckQueryKey });
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={SECURITY_TEXTS.accountDetailsTitle}
      size="lg"
      fullScreen={phone}
      centered
    >
      <Stack gap="md">
        <ChangeEmailCard currentEmail={email} onChanged={() => void refreshSession()} />
        <ChangePasswordCard strengthMeter={passwordStrength} />
      </Stack>
    </Modal>
  );
}
