import { metricReadAgesMs, type XMetricRefreshPreset } from '@perch/shared';

/**
 * When a tweet's metrics are read again: a decay schedule after posting, not constant re-reads.
 * Engagement comes early, so the readings crowd the first hours (what velocity measures: the
 * first hour, the first day) and end after three days (when top tweets have settled). Each
 * reading of a post is billed by X once per UTC day, so five readings cost at most three or four
 * billed reads per post, and one request carries 100 posts of any handles.
 *
 * X_METRIC_REFRESH picks a preset:
 * - `standard`: every reading (1, 3, 6, 24 and 72 h), so a post is billed on three UTC days;
 * - `economy`: only the readings that fall on the post's creation UTC day, so a post is billed
 *   once, on the day it was first seen (the 1, 3 and 6 h readings velocity needs stay whenever
 *   they fall before 00:00 UTC; the 24 h and 72 h re-reads never happen).
 */
const DAY_MS = 86_400_000;
/** The first instant (epoch ms) of the UTC day after the one holding `ms`. */
const nextUtcMidnightMs = (ms: number) => (Math.floor(ms / DAY_MS) + 1) * DAY_MS;

/**
 * The next reading of a post created at `createdAt` after one taken (or its first sight) at
 * `now`: the first scheduled age of the preset still ahead, or null when the schedule is over.
 * Under `economy` a post first seen after its creation UTC day gets no reading at all.
 */
export function nextMetricsAt(
  createdAt: string,
  now: Date,
  preset: XMetricRefreshPreset = 'standard',
): string | null {
  const created = Date.parse(createdAt);
  if (!Number.isFinite(created)) return null;
  const age = now.getTime() - created;
  const next = metricReadAgesMs(preset, created).find((mark) => mark > age);
  return next === undefined ? null : new Date(created + next).toISOString();
}

/**
 * Whether a reading that is due at `now` may still be taken under `preset`. Always for
 * `standard`; for `economy` only on the post's creation UTC day: a reading that slipped past
 * 00:00 UTC (a late round, a spent budget, a post scheduled before the preset changed) would be
 * billed a second time, so it is dropped instead.
 */
export function metricReadAllowed(
  preset: XMetricRefreshPreset,
  createdAt: string,
  now: Date,
): boolean {
  if (preset === 'standard') return true;
  const created = Date.parse(createdAt);
  if (!Number.isFinite(created)) return false;
  return now.getTime() < nextUtcMidnightMs(created);
}
