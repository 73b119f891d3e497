import { Badge, Group, Text } from '@mantine/core';
import { badgeFor, type Handle } from '@perch/shared';

export interface HandleStatusBadgeProps {
  handle: Handle;
  /** Hide the second line (the compact sidebar row). */
  compact?: boolean;
}

/**
 * 'Waiting for X', 'Ready', 'Failed', 'Collecting N%', 'Starting collection...' or 'Collecting
 * data...'; compact (the sidebar) keeps the reason in the badge's title.
 */
export function HandleStatusBadge({ handle, compact = false }: HandleStatusBadgeProps) {
  const badge = badgeFor(handle);
  return (
    <Group gap={6} wrap="wrap" style={{ flexShrink: 0 }}>
      <Badge
        color={badge.color}
        variant="light"
        size="sm"
        radius="sm"
        tt="none"
        data-testid="handle-status"
        title={compact && badge.detail ? badge.detail : undefined}
        style={{ flexShrink: 0 }}
      >
        {badge.label}
      </Badge>
      {!compact && badge.detail ? (
        <Text size="xs" c="dimmed" lineClamp={2}>
          {badge.detail}
        </Text>
      ) : null}
    </Group>
  );
}
