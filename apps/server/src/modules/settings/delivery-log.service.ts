import type { Delivery, NotificationChannel } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { listDeliveries } from '../../notify/delivery-log.repository.js';
import type { UserRow } from '../users/users.repository.js';

const EXCERPT_LENGTH = 140;

export async function deliveryLog(
  db: Db,
  user: UserRow,
  channel: NotificationChannel | undefined,
  limit: number,
): Promise<Delivery[]> {
  const rows = await listDeliveries(db.db, user.id, channel, limit);
  return rows.map((row) => {
    const handle = row.username ?? '';
    return {
      id: row.id,
      channel: row.channel,
      status: row.status,
      handle,
      tweetId: row.tweet_id,
      tweetUrl: `https://x.com/${handle || 'i/web'}/status/${row.tweet_id}`,
      excerpt:
        row.text === null
          ? null
          : row.text.length > EXCERPT_LENGTH
            ? `${row.text.slice(0, EXCERPT_LENGTH - 1)}…`
            : row.text,
      attempts: row.attempts,
      // A sent row's text says how it went, a filtered one's why the filter held it back.
      error: row.status === 'sent' || row.status === 'filtered' ? null : row.last_error,
      note: row.status === 'sent' || row.status === 'filtered' ? row.last_error : null,
      createdAt: row.created_at,
      sentAt: row.sent_at,
      nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    };
  });
}
