import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { WebhookEndpointsTable } from '../../db/types.js';
import { countRows } from '../../db/queries.js';
import { ANY_WEBHOOK_CHANNEL, webhookChannel } from '../../notify/webhook/webhook-channel.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

/** A user's endpoints, oldest first. */
export function listEndpoints(db: Executor, userId: number): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

/** One of the user's endpoints; undefined when there is none of that id, or it is another's. */
export function findEndpoint(
  db: Executor,
  userId: number,
  id: number,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export function countEndpoints(db: Executor, userId: number): Promise<number> {
  return countRows(db.selectFrom('webhook_endpoints').where('user_id', '=', userId));
}

export function insertEndpoint(
  db: Executor,
  endpoint: Insertable<WebhookEndpointsTable>,
): Promise<WebhookEndpointRow> {
  return db
    .insertInto('webhook_endpoints')
    .values(endpoint)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Changes one of the user's endpoints; undefined when it is not theirs (or gone). */
export function updateEndpoint(
  db: Executor,
  userId: number,
  id: number,
  values: Updateable<WebhookEndpointsTable>,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set(values)
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

/** Every endpoint's sealed secret. */
export function endpointSecrets(
  db: Executor,
): Promise<Pick<WebhookEndpointRow, 'id' | 'secret_sealed'>[]> {
  return db.selectFrom('webhook_endpoints').select(['id', 'secret_sealed']).orderBy('id').execute();
}

/**
 * Replaces an endpoint's sealed secret while it is still `from`: one rotated meanwhile keeps its
 * new secret. False when it was not replaced.
 */
export async function replaceSealedSecret(
  db: Executor,
  id: number,
  from: string,
  to: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ secret_sealed: to })
    .where('id', '=', id)
    .where('secret_sealed', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes one of the user's endpoints; false when it is not theirs. */
export async function deleteEndpoint(db: Executor, userId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Cancels a user's waiting webhook deliveries, with `reason` as what the delivery log shows: of
 * one endpoint, or of one handle on every endpoint.
 */
export async function cancelPendingWebhookDeliveries(
  db: Executor,
  userId: number,
  scope: { endpointId: number } | { handleId: number },
  reason: string,
): Promise<number> {
  let query = db
    .updateTable('notification_outbox')
    .set({ status: 'cancelled', last_error: reason })
    .where('user_id', '=', userId)
    .where('status', '=', 'pending');
  query =
    'endpointId' in scope
      ? query.where('channel', '=', webhookChannel(scope.endpointId))
      : query
          .where('handle_id', '=', scope.handleId)
          .where(sql.ref<string>('channel'), 'like', ANY_WEBHOOK_CHANNEL);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Switches webhooks off for every handle of the user (their last endpoint is gone). */
export async function switchOffWebhooks(db: Executor, userId: number): Promise<void> {
  await db
    .updateTable('user_handles')
    .set({ webhook_enabled: false })
    .where('user_id', '=', userId)
    .where('webhook_enabled', '=', true)
    .execute();
}
