import type { Velocity } from '@perch/shared';
import { HOUR_MS } from './timezone.js';
import type { MetricSnapshot } from './types.js';
import { engagementOf, type PreparedPost, type PreparedWindow } from './window.js';

/** Ages (hours) at which engagement per hour is reported. */
const AGES = [1, 3, 6] as const;

/**
 * A post's engagement over time: its creation (engagement 0), then its snapshots, oldest first,
 * none before creation. While snapshots are gathered by post, `createdAt` is that of the post
 * seen last with the id and `seen` tells whether any was.
 */
interface Curve {
  createdAt: number;
  snapshots: MetricSnapshot[];
  seen: boolean;
}

/**
 * The metric snapshots of the window's posts taken at or after creation, as curves in the order
 * of the posts (a repeated id counts once, at its first place, with the creation time of its
 * last). Snapshots are grouped by post first: only recent posts have any, so the map holds far
 * fewer keys than there are posts, and a map of every post's id cost more than the rest of the
 * block on 100,000 posts. Each curve is built in place in its group, without copies.
 */
function curvesOf(posts: readonly PreparedPost[], snapshots: readonly MetricSnapshot[]): Curve[] {
  if (snapshots.length === 0) return [];
  const byId = new Map<string, Curve>();
  for (const snapshot of snapshots) {
    const curve = byId.get(snapshot.tweetId);
    if (curve) curve.snapshots.push(snapshot);
    else byId.set(snapshot.tweetId, { createdAt: 0, snapshots: [snapshot], seen: false });
  }
  const curves: Curve[] = [];
  for (const { tweet } of posts) {
    const curve = byId.get(tweet.id);
    if (curve === undefined) continue;
    if (!curve.seen) curves.push(curve);
    curve.seen = true;
    curve.createdAt = tweet.createdAt;
  }
  let kept = 0;
  for (const curve of curves) {
    const { createdAt, snapshots: own } = curve;
    let count = 0;
    for (const snapshot of own) if (snapshot.takenAt >= createdAt) own[count++] = snapshot;
    if (count === 0) continue;
    own.length = count;
    // Filtering keeps input order, so the stable sort orders equal times as the input does.
    if (count > 1) own.sort((a, b) => a.takenAt - b.takenAt);
    curves[kept++] = curve;
  }
  curves.length = kept;
  return curves;
}

/**
 * Engagement `ageMs` after creation, interpolated linearly between the points around it;
 * null when the newest snapshot is younger than that.
 */
function engagementAtAge(curve: Curve, ageMs: number): number | null {
  const { createdAt, snapshots } = curve;
  const target = createdAt + ageMs;
  let index = 0;
  while (index < snapshots.length && snapshots[index]!.takenAt < target) index += 1;
  if (index === snapshots.length) return null;
  const time = snapshots[index]!.takenAt;
  const value = engagementOf(snapshots[index]!);
  if (time === target) return value;
  const previousTime = index === 0 ? createdAt : snapshots[index - 1]!.takenAt;
  const previousValue = index === 0 ? 0 : engagementOf(snapshots[index - 1]!);
  return (
    previousValue + ((value - previousValue) * (target - previousTime)) / (time - previousTime)
  );
}

/** The steepest engagement per hour between two consecutive snapshots; null without a pair. */
function peakRate({ snapshots }: Curve): number | null {
  let peak: number | null = null;
  for (let i = 1; i < snapshots.length; i++) {
    const elapsed = snapshots[i]!.takenAt - snapshots[i - 1]!.takenAt;
    if (elapsed === 0) continue;
    const rate =
      (engagementOf(snapshots[i]!) - engagementOf(snapshots[i - 1]!)) / (elapsed / HOUR_MS);
    if (peak === null || rate > peak) peak = rate;
  }
  return peak;
}

/**
 * The velocity block: engagement per hour in the first 1, 3 and 6 hours of posts, from metric
 * snapshots only (never estimated from totals), and the steepest rise seen between snapshots.
 */
export function velocity(prepared: PreparedWindow): Velocity {
  const curves = curvesOf(prepared.posts, prepared.metricSnapshots);
  const sums = AGES.map(() => 0);
  const measured = AGES.map(() => 0);
  let peak: number | null = null;
  for (const curve of curves) {
    for (let index = 0; index < AGES.length; index++) {
      const hours = AGES[index]!;
      const value = engagementAtAge(curve, hours * HOUR_MS);
      if (value === null) continue;
      sums[index]! += value / hours;
      measured[index]! += 1;
    }
    const rate = peakRate(curve);
    if (rate !== null && (peak === null || rate > peak)) peak = rate;
  }
  const averageAt = (index: number) => (measured[index] ? sums[index]! / measured[index]! : null);
  return {
    avg_1h: averageAt(0),
    avg_3h: averageAt(1),
    avg_6h: averageAt(2),
    posts_measured_1h: measured[0]!,
    posts_measured_3h: measured[1]!,
    posts_measured_6h: measured[2]!,
    peak,
  };
}
