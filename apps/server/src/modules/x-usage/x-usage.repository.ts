import type { Executor } from '../../db/index.js';
import type { XBilledKind } from '../../db/types.js';

/** A billed resource to record: a post or user X returned, and the X user it was read for. */
export interface BilledReadInput {
  kind: XBilledKind;
  resourceId: string;
  /** The X user id of the handle the read was for; null when unknown. */
  ownerXUserId: string | null;
}

/** Inclusive range of UTC days, YYYY-MM-DD. */
export interface DayRange {
  from: string;
  to: string;
}

/** Billed reads per kind. */
export interface KindCounts {
  post: number;
  user: number;
}

/** Billed reads of one kind put on one handle; `handle_id` null when the handle is gone. */
export interface HandleKindCountRow {
  handle_id: number | null;
  username: string | null;
  kind: XBilledKind;
  count: number;
}

/** Rows per INSERT: five parameters each, well under either dialect's limit. */
const INSERT_CHUNK = 500;

/** The id of the handle of each X user id (the oldest handle when several share one). */
async function handleIdsByXUserId(db: Executor, xUserIds: string[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (xUserIds.length === 0) return ids;
  const rows = await db
    .selectFrom('handles')
    .select(['id', 'x_user_id'])
    .where('x_user_id', 'in', xUserIds)
    .orderBy('id')
    .execute();
  for (const row of rows) {
    if (row.x_user_id !== null && !ids.has(row.x_user_id)) ids.set(row.x_user_id, row.id);
  }
  return ids;
}

/**
 * Records billed reads of `day`, each (day, kind, resource) once: a resource already recorded
 * that day, by this process or another, is left as it is. Answers how many rows were added.
 */
export async function insertBilledReads(
  db: Executor,
  { day, readAt, reads }: { day: string; readAt: string; reads: BilledReadInput[] },
): Promise<number> {
  const unique = new Map<string, BilledReadInput>();
  for (const read of reads) unique.set(`${read.kind}:${read.resourceId}`, read);
  if (unique.size === 0) return 0;
  const owners = [...new Set([...unique.values()].map((read) => read.ownerXUserId))].filter(
    (owner): owner is string => owner !== null,
  );
  const handleIds = await handleIdsByXUserId(db, owners);
  const rows = [...unique.values()].map((read) => ({
    day,
    kind: read.kind,
    resource_id: read.resourceId,
    handle_id: read.ownerXUserId === null ? null : (handleIds.get(read.ownerXUserId) ?? null),
    read_at: readAt,
  }));
  let added = 0;
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const result = await db
      .insertInto('x_billed_reads')
      .values(rows.slice(start, start + INSERT_CHUNK))
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    added += Number(result.numInsertedOrUpdatedRows ?? 0);
  }
  return added;
}

/** Billed reads per kind over a range of days. */
export async function countBilledReads(db: Executor, range: DayRange): Promise<KindCounts> {
  const rows = await db
    .selectFrom('x_billed_reads')
    .select((eb) => ['kind', eb.fn.countAll<number | string>().as('count')])
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .groupBy('kind')
    .execute();
  const counts: KindCounts = { post: 0, user: 0 };
  for (const row of rows) counts[row.kind] = Number(row.count);
  return counts;
}

/**
 * Billed reads per handle and kind over a range of days, with the handle's name. Reads of
 * handles deleted since, or never put on one, come back together under a null handle.
 */
export async function countBilledReadsByHandle(
  db: Executor,
  range: DayRange,
): Promise<HandleKindCountRow[]> {
  const rows = await db
    .selectFrom('x_billed_reads')
    .leftJoin('handles', 'handles.id', 'x_billed_reads.handle_id')
    .select((eb) => [
      'handles.id as handle_id',
      'handles.username as username',
      'x_billed_reads.kind as kind',
      eb.fn.countAll<number | string>().as('count'),
    ])
    .where('x_billed_reads.day', '>=', range.from)
    .where('x_billed_reads.day', '<=', range.to)
    .groupBy(['handles.id', 'handles.username', 'x_billed_reads.kind'])
    .execute();
  return rows.map((row) => ({
    handle_id: row.handle_id,
    username: row.username,
    kind: row.kind,
    count: Number(row.count),
  }));
}

/**
 * Puts a handle's first user read on it: the lookup by username is billed before the handle
 * knows its X user id, so the read is recorded unowned and claimed here once the id is saved.
 */
export async function claimUnownedUserReads(
  db: Executor,
  handleId: number,
  xUserId: string,
): Promise<void> {
  await db
    .updateTable('x_billed_reads')
    .set({ handle_id: handleId })
    .where('kind', '=', 'user')
    .where('resource_id', '=', xUserId)
    .where('handle_id', 'is', null)
    .execute();
}
