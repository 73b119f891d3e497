import type { Executor } from '../../db/index.js';
import type { OutboxStatus } from '../../db/types.js';

/*
 * One batch each: at most `limit` rows, chosen by a subquery (neither SQLite nor PostgreSQL
 * takes LIMIT on DELETE), so one statement holds the write lock only briefly. Every filter has an
 * index that starts with the compared column, except login_attempts and sessions, which are read
 * in full once a day.
 */

/** Deliveries that are over: kept only for the delivery log. */
const FINISHED_DELIVERIES: readonly OutboxStatus[] = [
  'sent',
  'failed',
  'cancelled',
  'expired',
  'filtered',
];

const deleted = (result: { numDeletedRows: bigint }) => Number(result.numDeletedRows);

/** Rows of a log table (`id`, `created_at`) recorded before `before`, one batch. */
const deleteCreatedBefore =
  (table: 'security_events' | 'login_attempts') =>
  async (db: Executor, before: string, limit: number): Promise<number> => {
    const result = await db
      .deleteFrom(table)
      .where('id', 'in', (eb) =>
        eb.selectFrom(table).select('id').where('created_at', '<', before).limit(limit),
      )
      .executeTakeFirst();
    return deleted(result);
  };

/** Security events recorded before `before`. */
export const deleteSecurityEventsBefore = deleteCreatedBefore('security_events');

/** Sign-in attempts (the login history) made before `before`. */
export const deleteLoginAttemptsBefore = deleteCreatedBefore('login_attempts');

/** Sessions that ended (expired or revoked) before `before`; live ones are never touched. */
export async function deleteSessionsEndedBefore(
  db: Executor,
  before: string,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('sessions')
        .select('id')
        .where((inner) =>
          inner.or([inner('expires_at', '<', before), inner('revoked_at', '<', before)]),
        )
        .limit(limit),
    )
    .executeTakeFirst();
  return deleted(result);
}

/** Finished deliveries created before `before`; waiting and sending ones stay. */
export async function deleteFinishedDeliveriesBefore(
  db: Executor,
  before: string,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('notification_outbox')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('notification_outbox')
        .select('id')
        .where('status', 'in', FINISHED_DELIVERIES)
        .where('created_at', '<', before)
        .limit(limit),
    )
    .executeTakeFirst();
  return deleted(result);
}

/** Billed X reads of UTC days before `beforeDay` (YYYY-MM-DD). */
export async function deleteBilledReadsBefore(
  db: Executor,
  beforeDay: string,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('x_billed_reads')
    .where((eb) =>
      eb(
        eb.refTuple('day', 'kind', 'resource_id'),
        'in',
        eb
          .selectFrom('x_billed_reads')
          .select(['day', 'kind', 'resource_id'])
          .where('day', '<', beforeDay)
          .limit(limit)
          .$asTuple('day', 'kind', 'resource_id'),
      ),
    )
    .executeTakeFirst();
  return deleted(result);
}
