import { WEEKDAYS, type PostingPatterns } from '@perch/shared';
import type { PreparedPost, PreparedWindow } from './window.js';

/** How many peak hours and peak heatmap cells are shown. */
const PEAKS_SHOWN = 3;

/** Post counts by local weekday and hour, and their row and column sums. */
export interface PostingCounts {
  /** [weekday 0 = Monday][hour 0-23]. */
  heatmap: number[][];
  hourly: number[];
  daily: number[];
}

/** Counts posts per local [weekday][hour], per hour and per weekday in one pass. */
export function postingCounts(posts: readonly PreparedPost[]): PostingCounts {
  const heatmap = WEEKDAYS.map(() => new Array<number>(24).fill(0));
  const hourly = new Array<number>(24).fill(0);
  const daily = new Array<number>(WEEKDAYS.length).fill(0);
  for (const post of posts) {
    heatmap[post.weekday]![post.hour]! += 1;
    hourly[post.hour]! += 1;
    daily[post.weekday]! += 1;
  }
  return { heatmap, hourly, daily };
}

/**
 * Indices of the largest non-zero counts, most first, equal counts by smaller index; at most
 * `limit` of them.
 */
export function topIndices(counts: readonly number[], limit: number): number[] {
  return counts
    .map((_, index) => index)
    .filter((index) => counts[index]! > 0)
    .sort((a, b) => counts[b]! - counts[a]! || a - b)
    .slice(0, limit);
}

/** The posting-patterns block: when the handle posts, in the window's time zone. */
export function postingPatterns(prepared: PreparedWindow): PostingPatterns {
  const { heatmap, hourly, daily } = postingCounts(prepared.posts);
  return {
    heatmap,
    hourly,
    peak_hours: topIndices(hourly, PEAKS_SHOWN),
    // A stable sort keeps equal weekdays in calendar order (Monday first).
    peak_days: WEEKDAYS.map((day, index) => ({ day, count: daily[index]! })).sort(
      (a, b) => b.count - a.count,
    ),
  };
}
