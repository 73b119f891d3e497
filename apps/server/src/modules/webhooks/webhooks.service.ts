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
import {
  generateWebhookSecret,
  UNBOUND_WEBHOOK_SECRET_CONTEXT,
  WEBHOOK_SECRET_UNREADABLE,
  webhookSecretContext,
} from '../../notify/webhook/secret.js';
import { webhookPayload } from '../../notify/webhook/webhook-payloads.js';
import { checkWebhookUrl } from '../../notify/webhook/webhook-url.js';
import { withFollowsLocked } from '../handles/follows-lock.repository.js';
import type { UserRow } from '../users/users.repository.js';
import {
  cancelPendingWebhookDeliveries,
  countEndpoints,
  deleteEndpoint,
  endpointSecrets,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  replaceSealedSecret,
  switchOffWebhooks,
  updateEndpoint,
  type WebhookEndpointRow,
} from './webhooks.repository.js';

/** Why a waiting delivery of a deleted endpoint was not sent (the delivery log shows it). */
export const WEBHOOK_DELETED_REASON = 'The webhook was deleted';

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

const sealSecret = (deps: Pick<WebhooksDeps, 'cipher'>, endpointId: number, secret: string) =>
  deps.cipher.encrypt(secret, webhookSecretContext(endpointId));

/** Opens a sealed value under `context`; undefined when it was not sealed so (or with this key). */
function openedUnder(cipher: TokenCipher, sealed: string, context: string): string | undefined {
  try {
    return cipher.decrypt(sealed, context);
  } catch (error) {
    if (error instanceof TokenCipherError) return undefined;
    throw error;
  }
}

/**
 * Seals again, each for its own endpoint, the secrets sealed before secrets were bound to their
 * endpoint (all under one context, so one copied into another endpoint's row opened there too).
 * Run at start-up, before any delivery: a secret that opens for its endpoint is left as it is,
 * so every process may run it, and a secret rotated meanwhile is not overwritten. Returns how
 * many it sealed again.
 */
export async function bindWebhookSecrets(db: Db, cipher: TokenCipher): Promise<number> {
  let bound = 0;
  for (const row of await endpointSecrets(db.db)) {
    if (openedUnder(cipher, row.secret_sealed, webhookSecretContext(row.id)) !== undefined)
      continue;
    const secret = openedUnder(cipher, row.secret_sealed, UNBOUND_WEBHOOK_SECRET_CONTEXT);
    if (secret === undefined) continue;
    const resealed = sealSecret({ cipher }, row.id, secret);
    if (await replaceSealedSecret(db.db, row.id, row.secret_sealed, resealed)) bound += 1;
  }
  return bound;
}

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
    const inserted = await insertEndpoint(trx, {
      user_id: user.id,
      name: input.name,
      url,
      preset: input.preset,
      // Sealed for the endpoint, whose id the insert gives: set in the same transaction.
      secret_sealed: '',
      stopped_reason: null,
      created_at: now,
      updated_at: now,
    });
    return (await updateEndpoint(trx, user.id, inserted.id, {
      secret_sealed: sealSecret(deps, inserted.id, secret),
    }))!;
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
    secret_sealed: sealSecret(deps, id, secret),
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
    secret = deps.webhook.openSecret(row.secret_sealed, row.id);
  } catch (error) {
    if (!(error instanceof TokenCipherError)) throw error;
    return { ok: false, status: null, duration_ms: 0, message: WEBHOOK_SECRET_UNREADABLE };
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
