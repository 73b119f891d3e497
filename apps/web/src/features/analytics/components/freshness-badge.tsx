import { Badge } from '@mantine/core';
import { useNow } from '@/lib/use-now';
import { freshnessOf, type Freshness } from '../utils/freshness';

const FRESHNESS_LOOK: Record<Freshness, { color: string; label: string; title: string }> = {
  fresh: { color: 'green', label: 'Fresh', title: 'Computed less than an hour ago' },
  recent: { color: 'yellow', label: 'Recent', title: 'Computed less than a day ago' },
  stale: { color: 'orange', label: 'Stale', title: 'Computed more than a day ago' },
};

/**
 * How current the numbers are, beside 'computed <time>'. The shared clock ticks every 30 s, so the
 * label moves on from fresh to recent to stale while the page stays open.
 */
export function FreshnessBadge({ computedAt }: { computedAt: string }) {
  const now = useNow();
  const { color, label, title } = FRESHNESS_LOOK[freshnessOf(computedAt, now)];
  return (
    <Badge
      component="span"
      variant="light"
      color={color}
      radius="sm"
      size="sm"
      tt="none"
      ml={6}
      title={title}
      style={{ verticalAlign: 'middle' }}
      data-testid="analytics-freshness"
    >
      {label}
    </Badge>
  );
}
