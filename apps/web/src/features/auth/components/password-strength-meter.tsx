import { List, Progress, Stack, Text, ThemeIcon, VisuallyHidden } from '@mantine/core';
import { passwordStrength, type StrengthLevel } from '@perch/shared';
import { IconCheck, IconX } from '@tabler/icons-react';

const LEVEL_COLORS: Record<StrengthLevel, string> = {
  'Very Weak': 'red',
  Weak: 'orange',
  Fair: 'yellow',
  Good: 'teal',
  Strong: 'green',
};

export interface PasswordStrengthMeterProps {
  password: string;
}

/**
 * Strength bar, level, common-password warning and the requirement checklist.
 * Shown as guidance; only the minimum length is enforced at submit.
 */
export function PasswordStrengthMeter({ password }: PasswordStrengthMeterProps) {
  if (password === '') return null;
  const strength = passwordStrength(password);
  const color = LEVEL_COLORS[strength.level];
  return (
    <Stack gap={6} aria-live="polite">
      <Progress
        value={Math.max(strength.percent, 4)}
        color={color}
        size="sm"
        radius="xl"
        aria-label="Strength meter"
        transitionDuration={200}
      />
      <Text size="xs" c="dimmed">
        Strength:{' '}
        <Text span size="xs" fw={700} c={color} data-testid="password-strength-level">
          {strength.level}
        </Text>
      </Text>
      {strength.warning ? (
        <Text size="xs" c="red" role="status">
          {strength.warning}
        </Text>
      ) : null}
      <List spacing={2} size="xs" center aria-label="Requirements">
        {strength.requirements.map((requirement) => (
          <List.Item
            key={requirement.id}
            data-met={requirement.met}
            icon={
              <ThemeIcon
                color={requirement.met ? 'teal' : 'red'}
                variant="light"
                size={16}
                radius="xl"
                aria-hidden
              >
                {requirement.met ? <IconCheck size={11} /> : <IconX size={11} />}
              </ThemeIcon>
            }
          >
            <VisuallyHidden>{requirement.met ? 'Met: ' : 'Not met: '}</VisuallyHidden>
            <Text span size="xs" c={requirement.met ? undefined : 'dimmed'}>
              {requirement.label}
            </Text>
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}
