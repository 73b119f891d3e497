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

/** One number of a tile list: the raw value, how it reads and what it means. */
export interface StatItem {
  label: string;
  value: number | null;
  format: (value: number | null) => string;
  definition: string;
  hint?: ReactNode;
}

/** A tile per item: the number formatted, the raw one kept for tests and tools. */
export function StatTileList({ items }: { items: readonly StatItem[] }) {
  return (
    <>
      {items.map((item) => (
        <StatTile
          key={item.label}
          label={item.label}
          value={item.format(item.value)}
          rawValue={item.value}
          definition={item.definition}
          hint={item.hint}
        />
      ))}
    </>
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
