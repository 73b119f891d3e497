import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../db/index.js';
import type { SecurityEventsTable, Severity } from '../../db/types.js';

type Executor = Kysely<Database> | Transaction<Database>;
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

/** Appends one event to the security log. */
export async function recordSecurityEvent(db: Executor, event: NewSecurityEvent): Promise<void> {
  await db
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
    .execute();
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
