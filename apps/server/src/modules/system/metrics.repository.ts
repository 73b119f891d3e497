import type { Executor } from '../../db/index.js';
import type { HandleStatus, NotificationChannel, OutboxStatus } from '../../db/types.js';
import type { DeliveryCount, HandleCount } from '../../lib/metrics.js';

/** Every value of each column, so a status nobody is in reads 0 rather than vanishing. */
const HANDLE_STATUSES = Object.keys({
  pending: true,
  starting: true,
  in_progress: true,
  completed: true,
  failed: true,
} satisfies Record<HandleStatus, true>) as HandleStatus[];
const CHANNELS = Object.keys({
  telegram: true,
  discord: true,
} satisfies Record<NotificationChannel, true>) as NotificationChannel[];
const OUTBOX_STATUSES = Object.keys({
  pending: true,
  sending: true,
  sent: true,
  failed: true,
  cancelled: true,
  expired: true,
  filtered: true,
} satisfies Record<OutboxStatus, true>) as OutboxStatus[];

/** Handles by backfill status: one GROUP BY over the handles table. */
export async function countHandlesByStatus(db: Executor): Promise<HandleCount[]> {
  const rows = await db
    .selectFrom('handles')
    .select((eb) => ['backfill_status', eb.fn.countAll<number | string>().as('count')])
    .groupBy('backfill_status')
    .execute();
  const counts = new Map<string, number>(HANDLE_STATUSES.map((status) => [status, 0]));
  for (const row of rows) counts.set(row.backfill_status, Number(row.count));
  return [...counts].map(([status, count]) => ({ status, count }));
}

/** Notification outbox rows by channel and status: one GROUP BY over the outbox. */
export async function countDeliveriesByStatus(db: Executor): Promise<DeliveryCount[]> {
  const rows = await db
    .selectFrom('notification_outbox')
    .select((eb) => ['channel', 'status', eb.fn.countAll<number | string>().as('count')])
    .groupBy(['channel', 'status'])
    .execute();
  const key = (channel: string, status: string) => `${channel} ${status}`;
  const counts = new Map<string, DeliveryCount>();
  for (const channel of CHANNELS) {
    for (const status of OUTBOX_STATUSES) {
      counts.set(key(channel, status), { channel, status, count: 0 });
    }
  }
  for (const row of rows) {
    counts.set(key(row.channel, row.status), {
      channel: row.channel,
      status: row.status,
      count: Number(row.count),
    });
  }
  return [...counts.values()];
}
