/** The Settings page's delivery log: a user's deliveries with their handle and tweet text. */
import { sql, type Selectable } from 'kysely';
import type { DeliveryChannel } from '@perch/shared';
import type { Executor } from '../db/index.js';
import type { NotificationOutboxTable } from '../db/types.js';
import { ANY_WEBHOOK_CHANNEL } from './webhook/webhook-channel.js';

export interface DeliveryLogRow extends Selectable<NotificationOutboxTable> {
  username: string | null;
  text: string | null;
  /** The webhook endpoint's name, for a webhook row whose endpoint still exists. */
  webhook_name: string | null;
  /** For an alert's row: its firing's post, numbers and rule. */
  firing_tweet_id: string | null;
  firing_numbers: string | null;
  rule_name: string | null;
  rule_kind: string | null;
}

/** A user's latest deliveries, newest first (the Settings page's delivery log). */
export function listDeliveries(
  db: Executor,
  userId: number,
  channel: DeliveryChannel | undefined,
  limit: number,
): Promise<DeliveryLogRow[]> {
  let query = db
    .selectFrom('notification_outbox')
    .leftJoin('handles', 'handles.id', 'notification_outbox.handle_id')
    .leftJoin('alert_firings', 'alert_firings.id', 'notification_outbox.alert_firing_id')
    .leftJoin('alert_rules', 'alert_rules.id', 'alert_firings.rule_id')
    .leftJoin('tweets', (join) =>
      join
        .onRef('tweets.handle_id', '=', 'notification_outbox.handle_id')
        .on((eb) =>
          eb(
            'tweets.tweet_id',
            '=',
            eb.fn.coalesce('alert_firings.tweet_id', 'notification_outbox.tweet_id'),
          ),
        ),
    )
    .leftJoin('webhook_endpoints', (join) =>
      join.on(
        sql<boolean>`notification_outbox.channel = 'webhook:' || cast(webhook_endpoints.id as text)`,
      ),
    )
    .selectAll('notification_outbox')
    .select([
      'handles.username',
      'tweets.text',
      'webhook_endpoints.name as webhook_name',
      'alert_firings.tweet_id as firing_tweet_id',
      'alert_firings.numbers as firing_numbers',
      'alert_rules.name as rule_name',
      'alert_rules.kind as rule_kind',
    ])
    .where('notification_outbox.user_id', '=', userId);
  if (channel === 'webhook') {
    query = query.where(sql<boolean>`notification_outbox.channel like ${ANY_WEBHOOK_CHANNEL}`);
  } else if (channel) {
    query = query.where('notification_outbox.channel', '=', channel);
  }
  return query
    .orderBy('notification_outbox.created_at', 'desc')
    .orderBy('notification_outbox.id', 'desc')
    .limit(limit)
    .execute();
}
