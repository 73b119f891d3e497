import { Text } from '@mantine/core';
import type { ListColumn } from '@/components/responsive-list';
import { formatDateTime } from '@/lib/format';

/** When it happened, as the title of a row's card on phones. */
export function timeColumn<T extends { timestamp: string }>(): ListColumn<T> {
  return {
    header: 'Time',
    card: 'title',
    nowrap: true,
    cell: (item) => (
      <Text size="sm" fw={500}>
        {formatDateTime(item.timestamp)}
      </Text>
    ),
  };
}

/** The IP address a row came from; long IPv6 addresses break anywhere. */
export function ipColumn<T>(ip: (item: T) => string): ListColumn<T> {
  return {
    header: 'IP address',
    cell: (item) => (
      <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
        {ip(item)}
      </Text>
    ),
  };
}
