import type { Db } from '../../db/index.js';
import {
  AGGREGATED_KEY,
  EVENTS_BEFORE_AGGREGATE,
  aggregateDescription,
  aggregateWindow,
  aggregatedCount,
  nextWrite,
  withIp,
} from './event-aggregation.js';
import {
  eventsInWindow,
  lockAccountEvents,
  updateAggregate,
} from './security-event-aggregates.repository.js';
import { recordSecurityEvent, type NewSecurityEvent } from './security-events.repository.js';

function ipsOf(metadata: string): string[] {
  try {
    const ips = (JSON.parse(metadata) as { ips?: unknown } | null)?.ips;
    return Array.isArray(ips) ? ips.filter((ip): ip is string => typeof ip === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Writes an event of a bounded type (event-aggregation.ts): a row of its own while its account
 * has fewer than EVENTS_BEFORE_AGGREGATE of that type in the window, else one more in the
 * window's aggregate. The window's rows are read and written under the account's lock.
 */
export async function recordBoundedEvent(db: Db, event: NewSecurityEvent): Promise<void> {
  const span = aggregateWindow(Date.parse(event.at));
  await db.db.transaction().execute(async (trx) => {
    await lockAccountEvents(trx, db.dialect, event.userId);
    const rows = await eventsInWindow(trx, {
      userId: event.userId,
      type: event.type,
      ...span,
      // The single events and the aggregate: more only if nodes raced before the lock existed.
      limit: EVENTS_BEFORE_AGGREGATE + 1,
    });
    const step = nextWrite(
      rows.map((row) => ({ id: row.id, aggregated: aggregatedCount(row.metadata) })),
    );
    if (step.write === 'event') {
      await recordSecurityEvent(trx, event);
      return;
    }
    if (step.write === 'aggregate') {
      await recordSecurityEvent(trx, {
        ...event,
        description: aggregateDescription(event.type, 1),
        metadata: {
          ...event.metadata,
          [AGGREGATED_KEY]: 1,
          ips: withIp([], event.ip),
          window: span,
          lastAt: event.at,
        },
      });
      return;
    }
    const aggregate = rows.find((row) => row.id === step.id);
    await updateAggregate(trx, step.id, {
      description: aggregateDescription(event.type, step.count),
      metadata: JSON.stringify({
        ...event.metadata,
        [AGGREGATED_KEY]: step.count,
        ips: withIp(ipsOf(aggregate?.metadata ?? '{}'), event.ip),
        window: span,
        lastAt: event.at,
      }),
      ip: event.ip ?? null,
      userAgent: event.userAgent ?? null,
    });
  });
}
