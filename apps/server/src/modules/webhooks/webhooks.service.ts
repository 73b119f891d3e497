import { performance } from 'node:perf_hooks';
import {
  WEBHOOK_API_MESSAGES,
  WEBHOOK_PRESETS,
  WEBHOOKS_PER_USER,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  type WebhookEndpointList,
  type WebhookPreset,
  type WebhookSecret,
  type WebhookTestResult,
} from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { createTokenCipher, TokenCipherError, type TokenCipher } from '../../lib/token-cipher.js';
import { webhookChannelClient, type WebhookChannelClient } from '../../notify/channels.js';
import { addressPolicyFrom, type AddressPolicy } from '../../notify/webhook/address-policy.js';
import { generateWebhookSecret, WEBHOOK_SECRET_CONTEXT } from '../../notify/webhook/secret.js';
import { webhookPayload } from '../../notify/webhook/webhook-payloads.js';
import { checkWebhookUrl } from '../../notify/webhook/webhook-url.js';
import { withFollowsLocked } from '../handles/follows-lock.repository.js';
import type { UserRow } from '../users/users.repository.js';
import {
  cancelPendingWebhookDeliveries,
  countEndpoints,
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  switchOffWebhooks,
  updateEndpoint,
  type WebhookEndpointRow,
} from './webhooks.repository.js';

/** Why a waiting delivery of a deleted endpoint was not sent (the delivery log shows it). */
export const WEBHOOK_DELETED_REASON = 'The webhook was deleted';
/** The Test button's answer when the stored secret cannot be opened (SECRET_KEY changed). */
export const SECRET_UNREADABLE =
  'The secret of this webhook cannot be read (the server key changed): make a new one.';

export interface WebhooksDeps {
  db: Db;
  /** Seals new secrets (the stored-credentials key, as the delivery worker opens them). */
  cipher: TokenCipher;
  /** What addresses an endpoint may have (WEBHOOK_ALLOW_*). */
  policy: AddressPolicy;
  /** Sends the Test button's request and opens secrets exactly as delivery does. */
  webhook: WebhookChannelClient;
  now?: () => Date;
}

/**
 * The module's dependencies, made once per app from the config; `webhook` is the delivery
 * worker's client when the app was given one, else the same kind made from the config.
 */
export function createWebhooksDeps(
  config: Config,
  db: Db,
  webhook: WebhookChannelClient = webhookChannelClient(config),
): WebhooksDeps {
  return {
    db,
    cipher: createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR }),
    policy: addressPolicyFrom(config),
    webhook,
  };
}

const sealSecret = (deps: WebhooksDeps, secret: string) =>
  deps.cipher.encrypt(secret, WEBHOOK_SECRET_CONTEXT);

const isPreset = (value: string): value is WebhookPreset =>
  (WEBHOOK_PRESETS as readonly string[]).includes(value);

export function toWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    preset: isPreset(row.preset) ? row.preset : 'generic',
    created_at: row.created_at,
    stopped_reason: row.stopped_reason,
  };
}

const nowOf = (deps: WebhooksDeps) => (deps.now?.() ?? new Date()).toISOString();

/** The address as it is stored, or a 400 with what is wrong with it. */
function checkedUrl(deps: WebhooksDeps, raw: string): string {
  const check = checkWebhookUrl(raw, deps.policy);
  if (!check.ok) throw badRequest(check.message);
  return check.url.href;
}

async function endpointOf(
  deps: WebhooksDeps,
  user: UserRow,
  id: number,
): Promise<WebhookEndpointRow> {
  const row = await findEndpoint(deps.db.db, user.id, id);
  if (!row) throw notFound(WEBHOOK_API_MESSAGES.notFound);
  return row;
}

/** GET /webhooks: the user's endpoints (never their secrets) and how many they may keep. */
export async function listWebhooks(
  deps: WebhooksDeps,
  user: UserRow,
): Promise<WebhookEndpointList> {
  const rows = await listEndpoints(deps.db.db, user.id);
  return { endpoints: rows.map(toWebhookEndpoint), limit: WEBHOOKS_PER_USER };
}

/**
 * POST /webhooks: an endpoint whose address passed the full check, within WEBHOOKS_PER_USER
 * (counted under the user's lock, so two tabs cannot both take the last place). The secret is
 * made here, stored sealed, and answered this once.
 */
export async function createWebhook(
  deps: WebhooksDeps,
  user: UserRow,
  input: WebhookEndpointInput,
): Promise<WebhookSecret> {
  const url = checkedUrl(deps, input.url);
  const secret = generateWebhookSecret();
  const now = nowOf(deps);
  const row = await withFollowsLocked(deps.db, user.id, async (trx) => {
    if ((await countEndpoints(trx, user.id)) >= WEBHOOKS_PER_USER) {
      throw conflict(WEBHOOK_API_MESSAGES.limitReached, 'WEBHOOK_LIMIT_REACHED');
    }
    return insertEndpoint(trx, {
      user_id: user.id,
      name: input.name,
      url,
      preset: input.preset,
      secret_sealed: sealSecret(deps, secret),
      stopped_reason: null,
      created_at: now,
      updated_at: now,
    });
  });
  return { endpoint: toWebhookEndpoint(row), secret };
}

/**
 * PATCH /webhooks/{id}: a new address is checked again and restarts an endpoint whose delivery
 * had stopped (the owner fixed what the old one refused).
 */
export async function updateWebhook(
  deps: WebhooksDeps,
  user: UserRow,
  id: number,
  change: Partial<WebhookEndpointInput>,
): Promise<WebhookEndpoint> {
  const current = await endpointOf(deps, user, id);
  const url = change.url === undefined ? undefined : checkedUrl(deps, change.url);
  const newAddress = url !== undefined && url !== current.url;
  const row = await updateEndpoint(deps.db.db, user.id, id, {
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(change.preset === undefined ? {} : { preset: change.preset }),
    ...(newAddress ? { url, stopped_reason: null } : {}),
    updated_at: nowOf(deps),
  });
  if (!row) throw notFound(WEBHOOK_API_MESSAGES.notFound);
  return toWebhookEndpoint(row);
}

/**
 * DELETE /webhooks/{id}: the endpoint and its secret go, and what still waited for it is
 * cancelled. Without endpoints left, no handle sends to webhooks any more (switching one on
 * needs an endpoint, so none stays on with nowhere to go).
 */
export async function deleteWebhook(deps: WebhooksDeps, user: UserRow, id: number): Promise<void> {
  const deleted = await deps.db.db.transaction().execute(async (trx) => {
    if (!(await deleteEndpoint(trx, user.id, id))) return false;
    await cancelPendingWebhookDeliveries(trx, user.id, { endpointId: id }, WEBHOOK_DELETED_REASON);
    if ((await countEndpoints(trx, user.id)) === 0) await switchOffWebhooks(trx, user.id);
    return true;
  });
  if (!deleted) throw notFound(WEBHOOK_API_MESSAGES.notFound);
}

/** POST /webhooks/{id}/rotate-secret: a new secret, answered once; the old one signs no more. */
export async function rotateWebhookSecret(
  deps: WebhooksDeps,
  user: UserRow,
  id: number,
): Promise<WebhookSecret> {
  await endpointOf(deps, user, id);
  const secret = generateWebhookSecret();
  const row = await updateEndpoint(deps.db.db, user.id, id, {
    secret_sealed: sealSecret(deps, secret),
    updated_at: nowOf(deps),
  });
  if (!row) throw notFound(WEBHOOK_API_MESSAGES.notFound);
  return { endpoint: toWebhookEndpoint(row), secret };
}

/**
 * POST /webhooks/{id}/test: one signed request with the test body of the endpoint's format, and
 * how the endpoint answered. A failure is an answer too (the owner reads why), never an error.
 */
export async function testWebhook(
  deps: WebhooksDeps,
  user: UserRow,
  id: number,
): Promise<WebhookTestResult> {
  const row = await endpointOf(deps, user, id);
  let secret: string;
  try {
    secret = deps.webhook.openSecret(row.secret_sealed);
  } catch (error) {
    if (!(error instanceof TokenCipherError)) throw error;
    return { ok: false, status: null, duration_ms: 0, message: SECRET_UNREADABLE };
  }
  const preset = toWebhookEndpoint(row).preset;
  const payload = webhookPayload(preset, { type: 'test' }, deps.now?.() ?? new Date());
  const started = performance.now();
  const result = await deps.webhook.client.send({ url: row.url, secret }, payload);
  const durationMs = Math.round(performance.now() - started);
  return {
    ok: result.ok,
    status: result.status,
    duration_ms: durationMs,
    message: result.ok ? `Answered ${result.status} in ${durationMs} ms.` : result.message,
  };
}
