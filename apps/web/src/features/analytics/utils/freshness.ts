import { ANALYTICS_FRESH_UNDER_MS, ANALYTICS_RECENT_UNDER_MS } from '@perch/shared';

/** How current computed analytics are: under 1 h fresh, under 24 h recent, older stale. */
export type Freshness = 'fresh' | 'recent' | 'stale';

/**
 * The freshness of numbers computed at `computedAt` (an ISO time) as of `now` (epoch ms). A time
 * slightly ahead of this device's clock counts as fresh; one that cannot be read counts as stale,
 * so nothing unknown passes for current.
 */
export function freshnessOf(computedAt: string, now: number): Freshness {
  const age = now - Date.parse(computedAt);
  if (Number.isNaN(age)) return 'stale';
  if (age < ANALYTICS_FRESH_UNDER_MS) return 'fresh';
  if (age < ANALYTICS_RECENT_UNDER_MS) return 'recent';
  return 'stale';
}
