/** The Settings page's delivery log: a user's deliveries with their handle and tweet text. */
import type { Selectable } from 'kysely';
import type { Executor } from '../db/index.js';
import type { NotificationChannel, NotificationOutboxTable } from '../db/types.js';

export interface DeliveryLogRow extends Selectable<NotificationOutboxTable> {
  username: string | null;
  text: string | null;
}

/** A user's latest deliveries, newest first (the Settings page's delivery log). */
export function listDeliveries(
  db: Executor,
  userId: number,
  channel: NotificationChannel | undefined,
  limit: number,
): Promise<DeliveryLogRow[]> {
  let query = db
    .selectFrom('notification_outbox')
    .leftJoin('handles', 'handles.id', 'notification_outbox.handle_id')
    .leftJoin('tweets', (join) =>
      join
        .onRef('tweets.handle_id', '=', 'notification_outbox.handle_id')
        .onRef('tweets.tweet_id', '=', 'notification_outbox.tweet_id'),
    )
    .selectAll('notification_outbox')
    .select(['handles.username', 'tweets.text'])
    .where('notification_outbox.user_id', '=', userId);
  if (channel) query = query.where('notification_outbox.channel', '=', channel);
  return query
    .orderBy('notification_outbox.created_at', 'desc')
    .orderBy('notification_outbox.id', 'desc')
    .limit(limit)
    .execute();
}
