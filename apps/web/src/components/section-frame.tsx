import { Card, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import type { ReactNode } from 'react';

export interface SectionFrameProps {
  /** The id of the title inside, which names the section landmark. */
  titleId: string;
  testId?: string;
  /** Spans every column of the grid. */
  fullWidth?: boolean;
  /** Lets the card shrink below the width of its content. */
  shrink?: boolean;
  children: ReactNode;
}

/** The bordered card of a page section, a landmark named by its title. */
export function SectionFrame({
  titleId,
  testId,
  fullWidth = false,
  shrink = false,
  children,
}: SectionFrameProps) {
  return (
    <Card
      component="section"
      withBorder
      radius="lg"
      p={{ base: 'md', sm: 'lg' }}
      aria-labelledby={titleId}
      data-testid={testId}
      miw={shrink ? 0 : undefined}
      style={fullWidth ? { gridColumn: '1 / -1' } : undefined}
    >
      {children}
    </Card>
  );
}

export interface IconHeadingProps {
  /** The title's id, for the landmark's aria-labelledby. */
  id: string;
  title: string;
  icon: Icon;
  /** The accent of the icon. */
  color: string;
  /** A short line under the title. */
  description?: ReactNode;
  /** Takes the free width of its row, so what sits beside it wraps underneath on phones. */
  grow?: boolean;
}

/** A section's title with its accent icon and an optional line under it. */
export function IconHeading({
  id,
  title,
  icon: HeadingIcon,
  color,
  description,
  grow = false,
}: IconHeadingProps) {
  return (
    <Group gap="sm" wrap="nowrap" miw={0} style={grow ? { flex: '1 1 16rem' } : undefined}>
      <ThemeIcon variant="light" color={color} size="lg" radius="md" aria-hidden>
        <HeadingIcon size={20} />
      </ThemeIcon>
      <Stack gap={0} miw={0}>
        <Title order={3} fz="md" fw={600} id={id}>
          {title}
        </Title>
        {description ? (
          <Text size="xs" c="dimmed">
            {description}
          </Text>
        ) : null}
      </Stack>
    </Group>
  );
}
