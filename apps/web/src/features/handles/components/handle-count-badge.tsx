import { Badge } from '@mantine/core';
import { MAX_HANDLES_PER_USER } from '@perch/shared';

/** From this share of the limit the count turns to the warning colour. */
const WARNING_SHARE = 0.8;

/** 'n/10', in the warning colour from 80 % of the limit and red at the limit. */
export function HandleCountBadge({ count }: { count: number }) {
  const color =
    count >= MAX_HANDLES_PER_USER
      ? 'red'
      : count >= MAX_HANDLES_PER_USER * WARNING_SHARE
        ? 'orange'
        : 'gray';
  return (
    <Badge
      variant="light"
      color={color}
      size="sm"
      aria-label="Handles in use"
      data-testid="handle-count"
    >
      {`${count}/${MAX_HANDLES_PER_USER}`}
    </Badge>
  );
}
