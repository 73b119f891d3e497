import { Text } from '@mantine/core';
import type { AdminHandle } from '@perch/shared';
import type { ListColumn } from '@/components/responsive-list';

/** The handle's @name: a table column, and the title of its card on phones. */
export const HANDLE_NAME_COLUMN: ListColumn<AdminHandle> = {
  header: 'Handle',
  card: 'title',
  cell: (handle) => (
    <Text fw={600} size="sm">
      @{handle.handle}
    </Text>
  ),
};
