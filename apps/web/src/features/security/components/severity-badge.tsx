import { Badge } from '@mantine/core';
import type { Severity } from '@perch/shared';
import { SEVERITY_LOOK } from '../utils/looks';

/** A severity or risk level as a coloured badge: critical red, high orange, medium yellow, low green. */
export function SeverityBadge({
  severity,
  size = 'sm',
}: {
  severity: Severity;
  size?: 'sm' | 'lg';
}) {
  const look = SEVERITY_LOOK[severity];
  return (
    <Badge
      color={look.color}
      variant="light"
      size={size}
      radius="sm"
      data-severity={severity}
      style={{ flexShrink: 0, minWidth: 'max-content' }}
    >
      {look.label}
    </Badge>
  );
}
