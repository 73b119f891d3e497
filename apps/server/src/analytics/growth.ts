import type { Growth } from '@perch/shared';
import { formatDay } from './timezone.js';
import type { PreparedProfileSnapshot, PreparedWindow } from './window.js';

/**
 * (last - first) / first x 100 over the window's snapshots; null with fewer than two snapshots
 * or a first count of 0, where no rate exists.
 */
export function growthRate(snapshots: readonly PreparedProfileSnapshot[]): number | null {
  const first = snapshots[0];
  const last = snapshots[snapshots.length - 1];
  if (snapshots.length < 2 || !first || !last || first.followers === 0) return null;
  return ((last.followers - first.followers) / first.followers) * 100;
}

/** The growth block: follower counts of the window's profile snapshots, one point per day. */
export function growth(prepared: PreparedWindow): Growth {
  const snapshots = prepared.profileSnapshots;
  const series: Growth['series'] = [];
  let lastDay: number | null = null;
  for (const snapshot of snapshots) {
    const point = series[series.length - 1];
    // Snapshots are oldest first, so a later one of the same day sets the day's count.
    if (point && snapshot.day === lastDay) point.followers = snapshot.followers;
    else series.push({ date: formatDay(snapshot.day), followers: snapshot.followers });
    lastDay = snapshot.day;
  }
  const first = snapshots[0];
  const last = snapshots[snapshots.length - 1];
  return {
    series,
    net_change: first && last ? last.followers - first.followers : null,
    growth_rate: growthRate(snapshots),
  };
}
