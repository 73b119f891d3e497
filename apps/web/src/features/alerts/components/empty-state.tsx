import { Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import type { ReactNode } from 'react';

export interface EmptyStateProps {
  icon: Icon;
  title: string;
  children: ReactNode;
  /** What to do about it: a button or a link. */
  action?: ReactNode;
  testId?: string;
}

/** A section with nothing in it yet: what that means and the way forward. */
export function EmptyState({ icon: StateIcon, title, children, action, testId }: EmptyStateProps) {
  return (
    <Stack align="center" gap="xs" py="lg" px="sm" ta="center" data-testid={testId}>
      <ThemeIcon variant="light" color="gray" size={44} radius="xl" aria-hidden>
        <StateIcon size={24} />
      </ThemeIcon>
      <Title order={4} fz="sm" fw={600}>
        {title}
      </Title>
      <Text size="sm" c="dimmed" maw={520}>
        {children}
      </Text>
      {action ? <Stack mt="xs">{action}</Stack> : null}
    </Stack>
  );
}
