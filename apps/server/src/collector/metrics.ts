import {
  listTweetsDueForMetrics,
  recordMetrics,
  setMetricsNextAt,
  type DueMetricsRow,
} from '../modules/tweets/tweets.repository.js';
import type { SourceTweet } from '../domain/tweet-source.js';
import type { CollectorContext } from './context.js';
import { runBatchedRound } from './job-steps.js';
import { metricReadAllowed, nextMetricsAt } from './metric-schedule.js';

/** Posts per metrics request (X's maximum for GET /2/tweets?ids=). */
export const METRICS_BATCH = 100;
/** Requests one metrics round sends at most; the rest stays due for the next round. */
const MAX_BATCHES_PER_ROUND = 20;

/**
 * One metric round: the posts whose reading is due on the decay schedule (metric-schedule.ts,
 * under the X_METRIC_REFRESH preset), 100 per request whatever handle they belong to. Changed
 * numbers become metric snapshots; every post read (or gone from X) moves to its next reading.
 * Returns the requests sent.
 */
export function runMetricRefresh(
  ctx: CollectorContext,
  signal: AbortSignal,
  skipHandleIds: ReadonlySet<number> = new Set(),
): Promise<number> {
  return runBatchedRound(ctx, signal, {
    // Metrics are the first work a daily spend limit cuts.
    work: 'metrics',
    batchSize: METRICS_BATCH,
    maxBatches: MAX_BATCHES_PER_ROUND,
    failureMessage: 'metric refresh failed: will retry',
    listDue: () => listDueWithinPreset(ctx, [...skipHandleIds]),
    read: (due) =>
      ctx.source.tweetsByIds(
        due.map((row) => row.tweet_id),
        signal,
      ),
    store: (due, fresh) => storeMetrics(ctx, due, fresh),
  });
}

/**
 * The posts due for a reading that the preset still allows now. Under `economy` a reading due
 * after its post's creation UTC day would be billed a second time: such posts get no more
 * readings and are not read, and the list is filled again from the posts due after them.
 */
async function listDueWithinPreset(
  ctx: CollectorContext,
  skipHandleIds: number[],
): Promise<DueMetricsRow[]> {
  const preset = ctx.metricRefresh;
  for (;;) {
    const now = ctx.now();
    const due = await listTweetsDueForMetrics(
      ctx.db.db,
      now.toISOString(),
      METRICS_BATCH,
      skipHandleIds,
    );
    const expired = due.filter((row) => !metricReadAllowed(preset, row.created_at, now));
    if (expired.length === 0) return due;
    await setMetricsNextAt(
      ctx.db.db,
      expired.map((row) => ({ id: row.id, at: null })),
    );
  }
}

/** Stores a metrics read: changed numbers as snapshots, and each post's next reading. */
async function storeMetrics(
  ctx: CollectorContext,
  due: readonly DueMetricsRow[],
  fresh: readonly SourceTweet[],
): Promise<void> {
  const now = ctx.now();
  for (const [handleId, rows] of groupByHandle(due)) {
    const ids = new Set(rows.map((row) => row.tweet_id));
    await recordMetrics(
      ctx.db.db,
      handleId,
      rows,
      fresh.filter((tweet) => ids.has(tweet.id)),
      now.toISOString(),
    );
  }
  await setMetricsNextAt(
    ctx.db.db,
    due.map((row) => ({ id: row.id, at: nextMetricsAt(row.created_at, now, ctx.metricRefresh) })),
  );
}

function groupByHandle(rows: readonly DueMetricsRow[]): Map<number, DueMetricsRow[]> {
  const groups = new Map<number, DueMetricsRow[]>();
  for (const row of rows) {
    const group = groups.get(row.handle_id) ?? [];
    group.push(row);
    groups.set(row.handle_id, group);
  }
  return groups;
}
