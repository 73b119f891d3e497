import type { Selectable } from 'kysely';
import type { Executor } from '../../db/index.js';
import { countRows } from '../../db/queries.js';
import type { SecurityEventsTable, Severity } from '../../db/types.js';

export type SecurityEventRow = Selectable<SecurityEventsTable>;

export interface NewSecurityEvent {
  /** Whose record it is: the account acted on, or null for a system-wide event. */
  userId: number | null;
  /** Who acted, when it was somebody else (an admin). */
  actorId?: number | null;
  type: string;
  severity: Severity;
  description: string;
  ip?: string | null;
  userAgent?: string | null;
  metadata?: Record<string, unknown>;
  at: string;
}

/** Appends one event to the security log; answers its id. */
export async function recordSecurityEvent(db: Executor, event: NewSecurityEvent): Promise<number> {
  const row = await db
    .insertInto('security_events')
    .values({
      user_id: event.userId,
      actor_id: event.actorId ?? null,
      event_type: event.type,
      severity: event.severity,
      description: event.description,
      ip: event.ip ?? null,
      user_agent: event.userAgent?.slice(0, 500) ?? null,
      metadata: JSON.stringify(event.metadata ?? {}),
      created_at: event.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Newest events first, of one user or (null) of everybody. */
export function listSecurityEvents(
  db: Executor,
  userId: number | null,
  limit: number,
): Promise<SecurityEventRow[]> {
  let query = db.selectFrom('security_events').selectAll();
  if (userId !== null) query = query.where('user_id', '=', userId);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Which events of one user's record to read. Times are ISO-8601 UTC. */
export interface SecurityEventFilter {
  /**
   * Whose record: events on that account, and the system-wide events (no account) that user
   * did, such as an admin stopping a collector.
   */
  userId: number;
  eventType?: string;
  severity?: Severity;
  /** Inclusive lower bound. */
  from?: string;
  /** Exclusive upper bound. */
  before?: string;
}

/** An event with the username of whoever acted on the account, when somebody else did. */
export type SecurityEventWithActorRow = SecurityEventRow & { actor_username: string | null };

function filteredEvents(db: Executor, filter: SecurityEventFilter) {
  let query = db
    .selectFrom('security_events as e')
    .where((eb) =>
      eb.or([
        eb('e.user_id', '=', filter.userId),
        eb.and([eb('e.user_id', 'is', null), eb('e.actor_id', '=', filter.userId)]),
      ]),
    );
  if (filter.eventType !== undefined) query = query.where('e.event_type', '=', filter.eventType);
  if (filter.severity !== undefined) query = query.where('e.severity', '=', filter.severity);
  if (filter.from !== undefined) query = query.where('e.created_at', '>=', filter.from);
  if (filter.before !== undefined) query = query.where('e.created_at', '<', filter.before);
  return query;
}

/** One page of a user's record, newest first. */
export function findSecurityEvents(
  db: Executor,
  filter: SecurityEventFilter,
  page: { limit: number; offset: number },
): Promise<SecurityEventWithActorRow[]> {
  return filteredEvents(db, filter)
    .leftJoin('users as a', 'a.id', 'e.actor_id')
    .selectAll('e')
    .select('a.username as actor_username')
    .orderBy('e.created_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** How many events of a user's record match the filter. */
export async function countSecurityEvents(
  db: Executor,
  filter: SecurityEventFilter,
): Promise<number> {
  return countRows(filteredEvents(db, filter));
}

/** How many events of these types are on one account since `since`. */
export async function countEventsOfTypes(
  db: Executor,
  userId: number,
  types: readonly string[],
  since: string,
): Promise<number> {
  return countRows(
    db
      .selectFrom('security_events')
      .where('user_id', '=', userId)
      .where('event_type', 'in', types)
      .where('created_at', '>=', since),
  );
}
