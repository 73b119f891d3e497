import { Group, Text } from '@mantine/core';
import { MESSAGES } from '@perch/shared';
import { IconCheck, IconX } from '@tabler/icons-react';

export const PASSWORDS_MATCH_TEXT = 'Passwords match';

export interface PasswordMatchIndicatorProps {
  password: string;
  confirmPassword: string;
}

/** Live 'Passwords match' / 'Passwords do not match' under the confirmation field. */
export function PasswordMatchIndicator({ password, confirmPassword }: PasswordMatchIndicatorProps) {
  if (confirmPassword === '') return null;
  const matches = password === confirmPassword;
  return (
    <Group gap={6} c={matches ? 'teal' : 'red'} aria-live="polite">
      {matches ? <IconCheck size={14} aria-hidden /> : <IconX size={14} aria-hidden />}
      <Text size="xs" c="inherit" data-testid="password-match">
        {matches ? PASSWORDS_MATCH_TEXT : MESSAGES.passwordsDoNotMatch}
      </Text>
    </Group>
  );
}
