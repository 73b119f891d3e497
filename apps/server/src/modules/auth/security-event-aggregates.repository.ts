import { sql, type Transaction } from 'kysely';
import type { Database, Dialect, Executor } from '../../db/index.js';

/** First key of the PostgreSQL advisory locks that serialise one account's bounded events. */
const BOUNDED_EVENTS_LOCK_CLASS = 734_512;

/**
 * Holds, until `trx` ends, the lock of one account's bounded events (null: the events of names
 * that match no account), so two nodes writing at once cannot both start an aggregate or lose a
 * count. SQLite runs one transaction at a time on its one connection and needs nothing.
 */
export async function lockAccountEvents(
  trx: Transaction<Database>,
  dialect: Dialect,
  userId: number | null,
): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(${BOUNDED_EVENTS_LOCK_CLASS}::int4, ${userId ?? 0}::int4)`.execute(
    trx,
  );
}

export interface WindowEventRow {
  id: number;
  metadata: string;
  ip: string | null;
}

/** The events of one account (or of no account) and type within [from, to), oldest first. */
export function eventsInWindow(
  db: Executor,
  query: { userId: number | null; type: string; from: string; to: string; limit: number },
): Promise<WindowEventRow[]> {
  return db
    .selectFrom('security_events')
    .select(['id', 'metadata', 'ip'])
    .where((eb) =>
      query.userId === null ? eb('user_id', 'is', null) : eb('user_id', '=', query.userId),
    )
    .where('event_type', '=', query.type)
    .where('created_at', '>=', query.from)
    .where('created_at', '<', query.to)
    .orderBy('id')
    .limit(query.limit)
    .execute();
}

/** Rewrites an aggregate with its new count, description and latest particulars. */
export async function updateAggregate(
  db: Executor,
  id: number,
  changes: { description: string; metadata: string; ip: string | null; userAgent: string | null },
): Promise<void> {
  await db
    .updateTable('security_events')
    .set({
      description: changes.description,
      metadata: changes.metadata,
      ip: changes.ip,
      user_agent: changes.userAgent?.slice(0, 500) ?? null,
    })
    .where('id', '=', id)
    .execute();
}
