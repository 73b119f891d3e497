import type { Delivery, DeliveryChannel } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { postUrl } from '../../domain/x-urls.js';
import { listDeliveries, type DeliveryLogRow } from '../../notify/delivery-log.repository.js';
import { storedFiring } from '../../notify/format/alert-format.js';
import { isWebhookChannel } from '../../notify/webhook/webhook-channel.js';
import type { UserRow } from '../users/users.repository.js';

const EXCERPT_LENGTH = 140;

/** An alert row's rule and what happened, or null for a post's row (or a rule since deleted). */
function alertOf(row: DeliveryLogRow, handle: string): Delivery['alert'] {
  if (row.alert_firing_id === null) return null;
  if (row.rule_name === null || row.rule_kind === null || row.firing_numbers === null) {
    return { ruleName: 'Deleted alert', summary: 'The alert rule was deleted.' };
  }
  const { summary } = storedFiring(handle, {
    rule_name: row.rule_name,
    kind: row.rule_kind,
    numbers: row.firing_numbers,
  });
  return { ruleName: row.rule_name, summary };
}

export async function deliveryLog(
  db: Db,
  user: UserRow,
  channel: DeliveryChannel | undefined,
  limit: number,
): Promise<Delivery[]> {
  const rows = await listDeliveries(db.db, user.id, channel, limit);
  return rows.map((row) => {
    const handle = row.username ?? '';
    const webhook = isWebhookChannel(row.channel);
    // An alert's row names its firing in tweet_id; the post it is about is the firing's.
    const tweetId = row.alert_firing_id === null ? row.tweet_id : (row.firing_tweet_id ?? '');
    return {
      id: row.id,
      channel: webhook ? 'webhook' : (row.channel as Exclude<DeliveryChannel, 'webhook'>),
      ...(webhook ? { webhookName: row.webhook_name } : {}),
      alert: alertOf(row, handle),
      status: row.status,
      handle,
      tweetId,
      tweetUrl: tweetId === '' ? `https://x.com/${handle}` : postUrl(handle || 'i/web', tweetId),
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
