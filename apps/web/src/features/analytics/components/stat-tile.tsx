import { Group, Paper, SimpleGrid, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { MetricInfo } from './metric-info';

export interface StatTileProps {
  label: string;
  value: string;
  definition: string;
  /** A line under the value. */
  hint?: ReactNode;
  /** The unformatted number, for tests and tools. */
  rawValue?: number | null;
  testId?: string;
}

/** A small labelled number inside a section. */
export function StatTile({ label, value, definition, hint, rawValue, testId }: StatTileProps) {
  return (
    <Paper
      radius="md"
      p="sm"
      bg="var(--mantine-color-default-hover)"
      data-testid={testId}
      data-value={rawValue ?? undefined}
    >
      <Group gap={4} wrap="nowrap" justify="space-between" align="flex-start">
        <Text size="xs" c="dimmed" lh={1.3}>
          {label}
        </Text>
        <MetricInfo label={label} definition={definition} />
      </Group>
      <Text fz="lg" fw={700} mt={4} lh={1.2} style={{ fontVariantNumeric: 'tabular-nums' }}>
        {value}
      </Text>
      {hint ? (
        <Text size="xs" c="dimmed" mt={2}>
          {hint}
        </Text>
      ) : null}
    </Paper>
  );
}

/** Stat tiles side by side: two per row, three where there is room. */
export function StatTiles({ children, wide = false }: { children: ReactNode; wide?: boolean }) {
  return (
    <SimpleGrid type="container" cols={{ base: 2, '420px': wide ? 3 : 2 }} spacing="sm">
      {children}
    </SimpleGrid>
  );
}
