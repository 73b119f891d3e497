import { Badge } from '@mantine/core';
import type { ReactNode } from 'react';

export interface LookBadgeProps {
  color: string;
  size?: 'xs' | 'sm';
  children: ReactNode;
}

/** A state or role badge that keeps its full label, even in a squeezed table cell. */
export function LookBadge({ color, size = 'sm', children }: LookBadgeProps) {
  return (
    <Badge
      color={color}
      variant="light"
      size={size}
      radius="sm"
      tt="none"
      miw="max-content"
      style={{ flexShrink: 0 }}
    >
      {children}
    </Badge>
  );
}
