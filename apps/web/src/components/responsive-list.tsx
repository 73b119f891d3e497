import { Box, Group, Paper, SimpleGrid, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import type { Key, ReactNode } from 'react';
import { usePhoneLayout } from '@/lib/use-phone-layout';

export interface ListColumn<T> {
  /** The table's column header and the field's label on a phone card. */
  header: string;
  cell: (item: T) => ReactNode;
  align?: 'right';
  /**
   * Where the value sits on a phone card: as its title, beside the title (a badge), across the
   * card, or (the default) in the two-column grid of fields.
   */
  card?: 'title' | 'aside' | 'wide' | 'field';
  /** Keeps the table column as narrow as its content. */
  nowrap?: boolean;
}

export interface ResponsiveListProps<T> {
  /** Names the table, or the list of cards on phones. */
  label: string;
  items: readonly T[];
  itemKey: (item: T) => Key;
  columns: readonly ListColumn<T>[];
  /** The row's buttons: the last table column, the bottom of a card. */
  actions?: (item: T) => ReactNode;
  /** Shows the 'Actions' header instead of keeping it for screen readers only. */
  showActionsHeader?: boolean;
  /** The test id of every row or card. */
  itemTestId: string;
  /** Names each row or card, e.g. '@nasa'. */
  itemLabel?: (item: T) => string;
  /** Below this width the table scrolls sideways (tablets beside the sidebar). */
  minWidth: number;
  highlightOnHover?: boolean;
}

function ItemTable<T>({
  label,
  items,
  itemKey,
  columns,
  actions,
  showActionsHeader = false,
  itemTestId,
  itemLabel,
  minWidth,
  highlightOnHover = false,
}: ResponsiveListProps<T>) {
  return (
    <Table.ScrollContainer minWidth={minWidth} type="native">
      <Table verticalSpacing="xs" highlightOnHover={highlightOnHover} aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column.header} ta={column.align}>
                {column.header}
              </Table.Th>
            ))}
            {actions ? (
              <Table.Th ta="right">
                {showActionsHeader ? 'Actions' : <VisuallyHidden>Actions</VisuallyHidden>}
              </Table.Th>
            ) : null}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((item) => (
            <Table.Tr key={itemKey(item)} data-testid={itemTestId} aria-label={itemLabel?.(item)}>
              {columns.map((column) => (
                <Table.Td
                  key={column.header}
                  ta={column.align}
                  style={column.nowrap ? { whiteSpace: 'nowrap' } : undefined}
                >
                  {column.cell(item)}
                </Table.Td>
              ))}
              {actions ? (
                <Table.Td>
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    {actions(item)}
                  </Group>
                </Table.Td>
              ) : null}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function ItemCards<T>({
  label,
  items,
  itemKey,
  columns,
  actions,
  itemTestId,
  itemLabel,
}: ResponsiveListProps<T>) {
  const titles = columns.filter((column) => column.card === 'title');
  const asides = columns.filter((column) => column.card === 'aside');
  const fields = columns.filter((column) => column.card !== 'title' && column.card !== 'aside');
  return (
    <Stack component="ul" gap="xs" m={0} p={0} aria-label={label} style={{ listStyle: 'none' }}>
      {items.map((item) => (
        <Paper
          key={itemKey(item)}
          component="li"
          withBorder
          radius="md"
          p="sm"
          data-testid={itemTestId}
          aria-label={itemLabel?.(item)}
        >
          <Group justify="space-between" align="flex-start" gap="xs" wrap="nowrap">
            <Box miw={0}>
              {titles.map((column) => (
                <Box key={column.header}>{column.cell(item)}</Box>
              ))}
            </Box>
            {asides.length > 0 ? (
              <Group gap={6} wrap="nowrap">
                {asides.map((column) => (
                  <Box key={column.header}>{column.cell(item)}</Box>
                ))}
              </Group>
            ) : null}
          </Group>
          {fields.length > 0 ? (
            <SimpleGrid component="dl" cols={2} spacing="sm" verticalSpacing={6} mt="xs" mb={0}>
              {fields.map((column) => (
                <Box
                  key={column.header}
                  miw={0}
                  style={column.card === 'wide' ? { gridColumn: '1 / -1' } : undefined}
                >
                  <Text component="dt" size="xs" c="dimmed">
                    {column.header}
                  </Text>
                  <Box component="dd" m={0} fz="sm" style={{ overflowWrap: 'anywhere' }}>
                    {column.cell(item)}
                  </Box>
                </Box>
              ))}
            </SimpleGrid>
          ) : null}
          {actions ? (
            <Group gap="xs" justify="flex-end" mt="sm">
              {actions(item)}
            </Group>
          ) : null}
        </Paper>
      ))}
    </Stack>
  );
}

/**
 * A list of records: a table from the `sm` breakpoint up, and on phones a stack of cards with
 * each record's fields and buttons, so nothing ends up off-screen.
 */
export function ResponsiveList<T>(props: ResponsiveListProps<T>) {
  const phone = usePhoneLayout();
  return phone ? <ItemCards {...props} /> : <ItemTable {...props} />;
}
