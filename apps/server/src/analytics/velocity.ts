import type { Velocity } from '@perch/shared';
import { HOUR_MS } from './timezone.js';
import type { MetricSnapshot } from './types.js';
import { engagementOf, type PreparedPost, type PreparedWindow } from './window.js';

/** Ages (hours) at which engagement per hour is reported. */
const AGES = [1, 3, 6] as const;

/** A post's engagement over time: its creation (engagement 0), then its snapshots. */
interface Curve {
  createdAt: number;
  /** Snapshot times, oldest first, none before createdAt. */
  times: number[];
  engagements: number[];
}

/** The metric snapshots of the window's posts taken at or after creation, as curves. */
function curvesOf(posts: readonly PreparedPost[], snapshots: readonly MetricSnapshot[]): Curve[] {
  const byId = new Map<string, { createdAt: number; snapshots: MetricSnapshot[] }>();
  for (const { tweet } of posts) byId.set(tweet.id, { createdAt: tweet.createdAt, snapshots: [] });
  for (const snapshot of snapshots) {
    const entry = byId.get(snapshot.tweetId);
    if (entry && snapshot.takenAt >= entry.createdAt) entry.snapshots.push(snapshot);
  }
  const curves: Curve[] = [];
  for (const { createdAt, snapshots: own } of byId.values()) {
    if (own.length === 0) continue;
    own.sort((a, b) => a.takenAt - b.takenAt);
    curves.push({
      createdAt,
      times: own.map((snapshot) => snapshot.takenAt),
      engagements: own.map(engagementOf),
    });
  }
  return curves;
}

/**
 * Engagement `ageMs` after creation, interpolated linearly between the points around it;
 * null when the newest snapshot is younger than that.
 */
function engagementAtAge(curve: Curve, ageMs: number): number | null {
  const { createdAt, times, engagements } = curve;
  const target = createdAt + ageMs;
  const index = times.findIndex((time) => time >= target);
  if (index === -1) return null;
  const time = times[index]!;
  const value = engagements[index]!;
  if (time === target) return value;
  const previousTime = index === 0 ? createdAt : times[index - 1]!;
  const previousValue = index === 0 ? 0 : engagements[index - 1]!;
  return (
    previousValue + ((value - previousValue) * (target - previousTime)) / (time - previousTime)
  );
}

/** The steepest engagement per hour between two consecutive snapshots; null without a pair. */
function peakRate(curve: Curve): number | null {
  let peak: number | null = null;
  for (let i = 1; i < curve.times.length; i++) {
    const elapsed = curve.times[i]! - curve.times[i - 1]!;
    if (elapsed === 0) continue;
    const rate = (curve.engagements[i]! - curve.engagements[i - 1]!) / (elapsed / HOUR_MS);
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
    AGES.forEach((hours, index) => {
      const value = engagementAtAge(curve, hours * HOUR_MS);
      if (value === null) return;
      sums[index]! += value / hours;
      measured[index]! += 1;
    });
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
