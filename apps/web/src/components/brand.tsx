import { Group, Text, ThemeIcon } from '@mantine/core';
import { IconFeather } from '@tabler/icons-react';

export interface BrandProps {
  size?: 'sm' | 'lg';
}

/** The Perch mark and name. */
export function Brand({ size = 'sm' }: BrandProps) {
  const large = size === 'lg';
  return (
    <Group gap={large ? 'sm' : 'xs'} wrap="nowrap">
      <ThemeIcon
        size={large ? 44 : 34}
        radius="md"
        variant="gradient"
        gradient={{ from: 'cyan.7', to: 'teal.5', deg: 135 }}
        aria-hidden
      >
        <IconFeather size={large ? 26 : 20} stroke={1.8} />
      </ThemeIcon>
      <Text component="span" fw={800} fz={large ? 28 : 22} lts={-0.5}>
        Perch
      </Text>
    </Group>
  );
}
