import { ColorSwatch, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { cssColor } from '../utils/chart-colors';

/** One row of a chart's legend list: the colour, the name, then the row's numbers. */
export function LegendItem({
  color,
  label,
  truncate = false,
  children,
}: {
  color: string;
  label: ReactNode;
  /** Cuts a long name short instead of wrapping it. */
  truncate?: boolean;
  children: ReactNode;
}) {
  return (
    <Group component="li" gap="xs" wrap="nowrap">
      <ColorSwatch color={cssColor(color)} size={10} withShadow={false} />
      <Text size="sm" truncate={truncate ? 'end' : undefined} style={{ flex: 1 }}>
        {label}
      </Text>
      {children}
    </Group>
  );
}
