import {
  ALERT_MESSAGES,
  ALERT_RULES_PER_USER,
  alertKindSchema,
  describeFiring,
  normalizeHandle,
  type AlertFiring,
  type AlertFiringList,
  type AlertKind,
  type AlertRule,
  type AlertRuleList,
  type AlertsExport,
} from '@perch/shared';
import type { FiringNumbers } from '../../alerts/index.js';
import type { Db } from '../../db/index.js';
import { conflict, notFound } from '../../lib/errors.js';
import { postUrl } from '../../domain/x-urls.js';
import { withFollowsLocked } from '../handles/follows-lock.repository.js';
import { findHandleByName, findLinkedHandle } from '../handles/handles.repository.js';
import { HANDLE_NOT_FOUND } from '../handles/handles.service.js';
import type { UserRow } from '../users/users.repository.js';
import {
  countRules,
  deleteRule,
  findRule,
  insertRule,
  listFirings,
  listRules,
  updateRule,
  type AlertFiringRow,
  type AlertRuleRow,
} from './alerts.repository.js';

/** Why a waiting delivery of a deleted rule's firing was not sent (the delivery log shows it). */
export const RULE_DELETED_REASON = 'The alert was deleted';

/** A stored kind (JSON text) read back through the contract, so the API shows what it accepts. */
function parseKind(stored: string): AlertKind {
  return alertKindSchema.parse(JSON.parse(stored));
}

/** A firing's stored numbers; anything that is not a finite number is left out. */
function parseNumbers(stored: string): FiringNumbers {
  const parsed: unknown = JSON.parse(stored);
  if (typeof parsed !== 'object' || parsed === null) return {};
  return Object.fromEntries(
    Object.entries(parsed).filter(
      (entry): entry is [string, number] =>
        typeof entry[1] === 'number' && Number.isFinite(entry[1]),
    ),
  );
}

export function toAlertRule(row: AlertRuleRow): AlertRule {
  return {
    id: row.id,
    handle: row.username,
    name: row.name,
    enabled: Boolean(row.enabled),
    kind: parseKind(row.kind),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toAlertFiring(row: AlertFiringRow): AlertFiring {
  const kind = parseKind(row.kind);
  const numbers = parseNumbers(row.numbers);
  return {
    id: row.id,
    rule_id: row.rule_id,
    rule_name: row.rule_name,
    handle: row.username,
    kind,
    tweet_id: row.tweet_id,
    tweet_url: row.tweet_id === null ? null : postUrl(row.username, row.tweet_id),
    fired_at: row.fired_at,
    numbers,
    summary: describeFiring(row.username, kind, numbers),
  };
}

/** GET /alerts: the user's rules, oldest first, and how many they may keep. */
export async function getAlertRules(db: Db, user: UserRow): Promise<AlertRuleList> {
  const rows = await listRules(db.db, user.id);
  return { rules: rows.map(toAlertRule), limit: ALERT_RULES_PER_USER };
}

async function ruleOf(db: Db, user: UserRow, id: number): Promise<AlertRule> {
  const row = await findRule(db.db, user.id, id);
  if (!row) throw notFound(ALERT_MESSAGES.notFound);
  return toAlertRule(row);
}

export interface NewAlertRule {
  /** The handle's name, normalised by the request schema. */
  handle: string;
  name: string;
  enabled: boolean;
  kind: AlertKind;
}

/**
 * POST /alerts: a rule of a handle the user follows, within ALERT_RULES_PER_USER. Counted and
 * stored under the user's lock (the one follows take), so two tabs cannot both take the last
 * place, and the handle cannot be unfollowed between the check and the insert.
 */
export async function createAlertRule(
  db: Db,
  user: UserRow,
  rule: NewAlertRule,
  now = new Date(),
): Promise<AlertRule> {
  const at = now.toISOString();
  const id = await withFollowsLocked(db, user.id, async (trx) => {
    const handle = await findHandleByName(trx, rule.handle);
    if (!handle || !(await findLinkedHandle(trx, user.id, handle.id))) {
      throw notFound(HANDLE_NOT_FOUND);
    }
    if ((await countRules(trx, user.id)) >= ALERT_RULES_PER_USER) {
      throw conflict(ALERT_MESSAGES.limitReached, 'ALERT_LIMIT_REACHED');
    }
    return insertRule(trx, {
      user_id: user.id,
      handle_id: handle.id,
      name: rule.name,
      enabled: rule.enabled,
      kind: JSON.stringify(rule.kind),
      memory: null,
      created_at: at,
      updated_at: at,
    });
  });
  return ruleOf(db, user, id);
}

export interface AlertRuleChange {
  name?: string;
  enabled?: boolean;
  kind?: AlertKind;
}

/**
 * PATCH /alerts/{id}: the fields given replace the stored ones. A rule that watches something
 * else forgets its crossing memory: what it remembered was about the old condition.
 */
export async function updateAlertRule(
  db: Db,
  user: UserRow,
  id: number,
  change: AlertRuleChange,
  now = new Date(),
): Promise<AlertRule> {
  const current = await findRule(db.db, user.id, id);
  if (!current) throw notFound(ALERT_MESSAGES.notFound);
  const kind = change.kind === undefined ? undefined : JSON.stringify(change.kind);
  const kindChanged = kind !== undefined && kind !== JSON.stringify(parseKind(current.kind));
  const updated = await updateRule(db.db, user.id, id, {
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(change.enabled === undefined ? {} : { enabled: change.enabled }),
    ...(kindChanged ? { kind, memory: null } : {}),
    updated_at: now.toISOString(),
  });
  if (!updated) throw notFound(ALERT_MESSAGES.notFound);
  return ruleOf(db, user, id);
}

/** DELETE /alerts/{id}: the rule, its firings, and whatever of them was still to be sent. */
export async function deleteAlertRule(db: Db, user: UserRow, id: number): Promise<void> {
  const deleted = await db.db
    .transaction()
    .execute((trx) => deleteRule(trx, user.id, id, RULE_DELETED_REASON));
  if (!deleted) throw notFound(ALERT_MESSAGES.notFound);
}

export interface FiringsRequest {
  handle?: string;
  rule_id?: number;
  limit: number;
  before?: number;
}

/**
 * GET /alerts/firings: a page of the user's firings, newest first. A rule of another user is
 * not found, as everywhere else; a handle nobody fired on is an empty page.
 */
export async function getAlertFirings(
  db: Db,
  user: UserRow,
  query: FiringsRequest,
): Promise<AlertFiringList> {
  if (query.rule_id !== undefined && !(await findRule(db.db, user.id, query.rule_id))) {
    throw notFound(ALERT_MESSAGES.notFound);
  }
  // One more than the page: whether there is a next page, without counting.
  const rows = await listFirings(db.db, user.id, {
    handle: query.handle === undefined ? undefined : normalizeHandle(query.handle),
    ruleId: query.rule_id,
    before: query.before,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    firings: page.map(toAlertFiring),
    next_before: rows.length > query.limit && last ? last.id : null,
  };
}

/** GET /alerts/export: every rule and every stored firing of the user. */
export async function exportAlerts(db: Db, user: UserRow, now = new Date()): Promise<AlertsExport> {
  const [rules, firings] = await Promise.all([
    listRules(db.db, user.id),
    listFirings(db.db, user.id),
  ]);
  return {
    exported_at: now.toISOString(),
    rules: rules.map(toAlertRule),
    firings: firings.map(toAlertFiring),
  };
}
