/**
 * A webhook endpoint as an outbox channel (`webhook:<id>`): each endpoint is a chat of its own,
 * with its own order, lock and circuit. Everything that names, recognises or looks up those
 * channels goes through here.
 */
import type { Executor } from '../../db/index.js';
import type { OutboxChannel, WebhookChannel } from '../../db/types.js';

const PREFIX = 'webhook:';

/** Every endpoint's channel, as a LIKE pattern. */
export const ANY_WEBHOOK_CHANNEL = `${PREFIX}%`;

/** The outbox channel of an endpoint. */
export const webhookChannel = (endpointId: number): WebhookChannel => `${PREFIX}${endpointId}`;

/** Whether an outbox channel is a webhook endpoint's. */
export const isWebhookChannel = (channel: OutboxChannel): channel is WebhookChannel =>
  channel.startsWith(PREFIX);

/** The endpoint id of a webhook channel. */
export const webhookEndpointId = (channel: WebhookChannel): number =>
  Number(channel.slice(PREFIX.length));

/** The users' endpoints that are not stopped, oldest first: where their webhook events go. */
export function activeWebhookEndpoints(
  db: Executor,
  userIds: readonly number[],
): Promise<{ id: number; user_id: number }[]> {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'user_id'])
    .where('user_id', 'in', userIds)
    .where('stopped_reason', 'is', null)
    .orderBy('id')
    .execute();
}
