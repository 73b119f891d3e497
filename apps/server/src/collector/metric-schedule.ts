/**
 * When a tweet's metrics are read again: a decay schedule after posting, not constant re-reads.
 * Engagement comes early, so the readings crowd the first hours (what velocity measures: the
 * first hour, the first day) and end after three days (when top tweets have settled). Each
 * reading of a post is billed by X once per UTC day, so five readings cost at most three or four
 * billed reads per post, and one request carries 100 posts of any handles.
 */
const HOUR_MS = 3_600_000;

/** Ages (ms after posting) at which metrics are read: 1 h, 3 h, 6 h, 24 h and 72 h. */
export const METRIC_READ_AGES_MS: readonly number[] = [1, 3, 6, 24, 72].map((h) => h * HOUR_MS);

/**
 * The next reading of a post created at `createdAt` after one taken (or its first sight) at
 * `now`: the first scheduled age still ahead, or null when the schedule is over.
 */
export function nextMetricsAt(createdAt: string, now: Date): string | null {
  const created = Date.parse(createdAt);
  if (!Number.isFinite(created)) return null;
  const age = now.getTime() - created;
  const next = METRIC_READ_AGES_MS.find((mark) => mark > age);
  return next === undefined ? null : new Date(created + next).toISOString();
}
