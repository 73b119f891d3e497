import { Card, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import { useId, type ReactNode } from 'react';

export interface SettingsCardProps {
  title: string;
  icon: Icon;
  /** The accent of the icon. */
  color: string;
  /** A badge on the right of the title (the connection state). */
  status?: ReactNode;
  /** A short line under the title. */
  description?: ReactNode;
  testId?: string;
  /** Spans every column of the grid. */
  fullWidth?: boolean;
  children: ReactNode;
}

/** One card of the Settings page: an icon, a title, its state badge and the body. */
export function SettingsCard({
  title,
  icon: CardIcon,
  color,
  status,
  description,
  testId,
  fullWidth = false,
  children,
}: SettingsCardProps) {
  const titleId = useId();
  return (
    <Card
      component="section"
      withBorder
      radius="lg"
      p={{ base: 'md', sm: 'lg' }}
      aria-labelledby={titleId}
      data-testid={testId}
      style={fullWidth ? { gridColumn: '1 / -1' } : undefined}
    >
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm" mb="md">
        <Group gap="sm" wrap="nowrap" miw={0}>
          <ThemeIcon variant="light" color={color} size="lg" radius="md" aria-hidden>
            <CardIcon size={20} />
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
        {status}
      </Group>
      {children}
    </Card>
  );
}
