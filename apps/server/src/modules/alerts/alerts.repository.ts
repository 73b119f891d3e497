import type { Insertable, Selectable, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { AlertRulesTable } from '../../db/types.js';
import { countRows } from '../../db/queries.js';

/** A stored rule with the name of its handle. */
export type AlertRuleRow = Selectable<AlertRulesTable> & { username: string };

/** A stored firing with what the history shows beside it: its rule's name and kind, the handle. */
export interface AlertFiringRow {
  id: number;
  rule_id: number;
  rule_name: string;
  /** The rule's current kind (JSON). */
  kind: string;
  username: string;
  tweet_id: string | null;
  fired_at: string;
  numbers: string;
}

/** A user's rules with their handle's name, as a query to narrow or order. */
function selectRules(db: Executor, userId: number) {
  return db
    .selectFrom('alert_rules')
    .innerJoin('handles', 'handles.id', 'alert_rules.handle_id')
    .selectAll('alert_rules')
    .select('handles.username')
    .where('alert_rules.user_id', '=', userId);
}

/** A user's rules, oldest first. */
export function listRules(db: Executor, userId: number): Promise<AlertRuleRow[]> {
  return selectRules(db, userId).orderBy('alert_rules.id').execute();
}

/** One of the user's rules; undefined when there is none of that id, or it is another's. */
export function findRule(
  db: Executor,
  userId: number,
  id: number,
): Promise<AlertRuleRow | undefined> {
  return selectRules(db, userId).where('alert_rules.id', '=', id).executeTakeFirst();
}

export function countRules(db: Executor, userId: number): Promise<number> {
  return countRows(db.selectFrom('alert_rules').where('user_id', '=', userId));
}

export async function insertRule(db: Executor, rule: Insertable<AlertRulesTable>): Promise<number> {
  const row = await db
    .insertInto('alert_rules')
    .values(rule)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Changes one of the user's rules; false when it is not theirs (or gone). */
export async function updateRule(
  db: Executor,
  userId: number,
  id: number,
  values: Updateable<AlertRulesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('alert_rules')
    .set(values)
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Deletes one of the user's rules (its firings go with it), and cancels the deliveries of its
 * firings still waiting, with `reason`: nothing is sent about an alert that no longer exists.
 * False when the rule is not theirs.
 */
export async function deleteRule(
  db: Executor,
  userId: number,
  id: number,
  reason: string,
): Promise<boolean> {
  await db
    .updateTable('notification_outbox')
    .set({ status: 'cancelled', last_error: reason })
    .where('user_id', '=', userId)
    .where('status', '=', 'pending')
    .where('alert_firing_id', 'in', (eb) =>
      eb.selectFrom('alert_firings').select('id').where('rule_id', '=', id),
    )
    .execute();
  const result = await db
    .deleteFrom('alert_rules')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export interface FiringFilter {
  /** Only firings of this handle (by name, whatever its case). */
  handle?: string;
  ruleId?: number;
  /** Only firings older than this id. */
  before?: number;
  limit?: number;
}

/** A user's firings, newest first (by id), narrowed by `filter`. */
export function listFirings(
  db: Executor,
  userId: number,
  filter: FiringFilter = {},
): Promise<AlertFiringRow[]> {
  let query = db
    .selectFrom('alert_firings')
    .innerJoin('alert_rules', 'alert_rules.id', 'alert_firings.rule_id')
    .innerJoin('handles', 'handles.id', 'alert_firings.handle_id')
    .select([
      'alert_firings.id',
      'alert_firings.rule_id',
      'alert_rules.name as rule_name',
      'alert_rules.kind',
      'handles.username',
      'alert_firings.tweet_id',
      'alert_firings.fired_at',
      'alert_firings.numbers',
    ])
    .where('alert_firings.user_id', '=', userId);
  if (filter.handle !== undefined) {
    query = query.where(sql<string>`lower(handles.username)`, '=', filter.handle.toLowerCase());
  }
  if (filter.ruleId !== undefined) query = query.where('alert_firings.rule_id', '=', filter.ruleId);
  if (filter.before !== undefined) query = query.where('alert_firings.id', '<', filter.before);
  query = query.orderBy('alert_firings.id', 'desc');
  if (filter.limit !== undefined) query = query.limit(filter.limit);
  return query.execute();
}

/**
 * The names of the user's rules that fired on any of `tweetIds` of a handle, by post: one query
 * for a whole page of the tweet browser. Each post's names are in the order the rules were made.
 */
export async function firedRuleNames(
  db: Executor,
  userId: number,
  handleId: number,
  tweetIds: readonly string[],
): Promise<Map<string, string[]>> {
  const names = new Map<string, string[]>();
  if (tweetIds.length === 0) return names;
  const rows = await db
    .selectFrom('alert_firings')
    .innerJoin('alert_rules', 'alert_rules.id', 'alert_firings.rule_id')
    .select(['alert_firings.tweet_id', 'alert_rules.name'])
    .where('alert_firings.user_id', '=', userId)
    .where('alert_rules.user_id', '=', userId)
    .where('alert_firings.handle_id', '=', handleId)
    .where('alert_firings.tweet_id', 'in', tweetIds)
    .orderBy('alert_rules.id')
    .execute();
  for (const { tweet_id: tweetId, name } of rows) {
    if (tweetId === null) continue;
    const known = names.get(tweetId) ?? [];
    // Two rules may share a name; the badge shows it once.
    if (!known.includes(name)) names.set(tweetId, [...known, name]);
  }
  return names;
}
