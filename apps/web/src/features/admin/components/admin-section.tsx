import { Card, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import { useId, type ReactNode } from 'react';

export interface AdminSectionProps {
  title: string;
  icon: Icon;
  /** The accent of the icon. */
  color: string;
  /** A short line under the title. */
  description?: ReactNode;
  /** Buttons on the right of the title (they wrap under it on phones). */
  actions?: ReactNode;
  testId?: string;
  children: ReactNode;
}

/** One section of the admin page: a landmark named by its title, with an icon and actions. */
export function AdminSection({
  title,
  icon: SectionIcon,
  color,
  description,
  actions,
  testId,
  children,
}: AdminSectionProps) {
  const titleId = useId();
  return (
    <Card
      component="section"
      withBorder
      radius="lg"
      p={{ base: 'md', sm: 'lg' }}
      aria-labelledby={titleId}
      data-testid={testId}
      miw={0}
    >
      <Group justify="space-between" align="flex-start" gap="sm" mb="md">
        <Group gap="sm" wrap="nowrap" miw={0} style={{ flex: '1 1 16rem' }}>
          <ThemeIcon variant="light" color={color} size="lg" radius="md" aria-hidden>
            <SectionIcon size={20} />
          </ThemeIcon>
          <Stack gap={0} miw={0}>
            <Title order={3} fz="md" fw={600} id={titleId}>
              {title}
            </Title>
            {description ? (
              <Text size="xs" c="dimmed">
                {description}
              </Text>
            ) : null}
          </Stack>
        </Group>
        {actions ? (
          <Group gap="xs" wrap="wrap">
            {actions}
          </Group>
        ) : null}
      </Group>
      {children}
    </Card>
  );
}
