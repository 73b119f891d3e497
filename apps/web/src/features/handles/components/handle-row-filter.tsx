import { Button, Group, Text } from '@mantine/core';
import type { Handle } from '@perch/shared';
import { IconFilter } from '@tabler/icons-react';
import { filterSummary } from '../utils/filter-summary';

export interface HandleRowFilterProps {
  handle: Handle;
  /** Still being added: its filter cannot be edited yet. */
  temporary: boolean;
  onEditFilter: (handle: Handle) => void;
}

/** A row's notification filter: what it lets through, if set, and Filter or Edit filter. */
export function HandleRowFilter({ handle, temporary, onEditFilter }: HandleRowFilterProps) {
  const filtered = filterSummary(handle.notification_filter);
  return (
    <Group mt={4} gap="xs" justify="space-between" wrap="nowrap">
      {filtered ? (
        <Group gap={4} wrap="nowrap" miw={0} data-testid="filter-summary">
          <IconFilter size={12} color="var(--mantine-color-teal-4)" aria-hidden />
          <Text size="xs" c="dimmed" truncate="end" title={filtered}>
            {filtered}
          </Text>
        </Group>
      ) : (
        <span />
      )}
      <Button
        size="compact-xs"
        variant="subtle"
        color={filtered ? 'teal' : 'gray'}
        leftSection={filtered ? undefined : <IconFilter size={12} />}
        aria-label={`Notification filter for @${handle.handle}`}
        onClick={() => onEditFilter(handle)}
        disabled={temporary}
        style={{ flexShrink: 0 }}
      >
        {filtered ? 'Edit filter' : 'Filter'}
      </Button>
    </Group>
  );
}
