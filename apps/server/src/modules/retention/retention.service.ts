import type { Db, Executor } from '../../db/index.js';
import { sleep } from '../../lib/sleep.js';
import { retentionCutoffs, type RetainedTable, type RetentionPolicy } from './retention-policy.js';
import {
  deleteBilledReadsBefore,
  deleteFinishedDeliveriesBefore,
  deleteLoginAttemptsBefore,
  deleteSecurityEventsBefore,
  deleteSessionsEndedBefore,
} from './retention.repository.js';

/** Rows one delete statement removes at most. */
export const RETENTION_BATCH_SIZE = 1_000;
/** The pause between two batches, so other writers get the database in between. */
export const RETENTION_BATCH_PAUSE_MS = 50;

type DeleteBatch = (db: Executor, before: string, limit: number) => Promise<number>;

const DELETE_BATCH: Record<RetainedTable, DeleteBatch> = {
  security_events: deleteSecurityEventsBefore,
  login_attempts: deleteLoginAttemptsBefore,
  sessions: deleteSessionsEndedBefore,
  notification_outbox: deleteFinishedDeliveriesBefore,
  // Billed reads are kept by UTC day.
  x_billed_reads: (db, before, limit) => deleteBilledReadsBefore(db, before.slice(0, 10), limit),
};

export interface PurgeOptions {
  now?: Date;
  batchSize?: number;
  /** Between two batches (tests pass 0). */
  pauseMs?: number;
  /** Stops between batches (shutdown); what is deleted stays deleted. */
  signal?: AbortSignal;
}

/** What one clean-up did: rows deleted per table and the delete statements it took. */
export interface PurgeResult {
  deleted: Partial<Record<RetainedTable, number>>;
  batches: number;
}

/**
 * Deletes every row older than the policy allows, table by table, in batches of `batchSize`
 * with a pause between them, so a large backlog never holds the database for long.
 */
export async function purgeExpiredRows(
  db: Db,
  policy: RetentionPolicy,
  options: PurgeOptions = {},
): Promise<PurgeResult> {
  const batchSize = options.batchSize ?? RETENTION_BATCH_SIZE;
  const pauseMs = options.pauseMs ?? RETENTION_BATCH_PAUSE_MS;
  const result: PurgeResult = { deleted: {}, batches: 0 };
  for (const { table, before } of retentionCutoffs(policy, options.now ?? new Date())) {
    let total = 0;
    for (;;) {
      const count = await DELETE_BATCH[table](db.db, before, batchSize);
      result.batches += 1;
      total += count;
      if (count < batchSize) break;
      await sleep(pauseMs, options.signal);
    }
    result.deleted[table] = total;
  }
  return result;
}
