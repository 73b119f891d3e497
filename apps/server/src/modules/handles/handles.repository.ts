import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db, Executor } from '../../db/index.js';
import { countRows } from '../../db/queries.js';
import type { HandlesTable, UserHandlesTable } from '../../db/types.js';

export type HandleRow = Selectable<HandlesTable>;
export type LinkRow = Selectable<UserHandlesTable>;
export type HandleUpdate = Updateable<HandlesTable>;

/** A handle as one user follows it. */
export interface LinkedHandleRow extends HandleRow {
  added_at: string;
  backfill_days: number;
  telegram_enabled: boolean | number;
  discord_enabled: boolean | number;
  webhook_enabled: boolean | number;
  filter_include: string;
  filter_exclude: string;
  filter_media_only: boolean | number;
}

export function findHandleById(db: Executor, id: number): Promise<HandleRow | undefined> {
  return db.selectFrom('handles').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The handle named `username`, whatever its case. */
export function findHandleByName(db: Executor, username: string): Promise<HandleRow | undefined> {
  return db
    .selectFrom('handles')
    .selectAll()
    .where(sql<string>`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
}

export interface NewHandle {
  username: string;
  backfillDays: number;
  now: string;
}

/** A handle nobody has collected yet. */
function newHandleValues(handle: NewHandle): Insertable<HandlesTable> {
  return {
    username: handle.username,
    backfill_status: 'pending',
    backfill_progress: 0,
    backfill_days_covered: handle.backfillDays,
    initial_backfill_complete: false,
    total_tweets_collected: 0,
    quiet_polls: 0,
    paused: false,
    created_at: handle.now,
    updated_at: handle.now,
  };
}

export function insertHandle(db: Executor, handle: NewHandle): Promise<HandleRow> {
  return db
    .insertInto('handles')
    .values(newHandleValues(handle))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Inserts a handle unless one of that name (whatever its case) exists: undefined then. Inside a
 * transaction this waits for another one adding the same name and never fails it, as a unique
 * violation would on PostgreSQL.
 */
export function insertHandleUnlessTaken(
  db: Executor,
  handle: NewHandle,
): Promise<HandleRow | undefined> {
  return db
    .insertInto('handles')
    .values(newHandleValues(handle))
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * Updates a handle; with `leaseOwner`, only while that collector job holds its lease, and only
 * while its columns in `unchanged` hold those values. Undefined when nothing was updated (no
 * such handle, the lease is another's, or one of those columns moved).
 */
export async function updateHandle(
  db: Executor,
  id: number,
  values: HandleUpdate,
  leaseOwner?: string,
  unchanged: Partial<HandleRow> = {},
): Promise<HandleRow | undefined> {
  let query = db.updateTable('handles').set(values).where('id', '=', id);
  if (leaseOwner !== undefined) query = query.where('lease_owner', '=', leaseOwner);
  for (const [column, value] of Object.entries(unchanged)) {
    query = query.where(sql.ref(column), value === null ? 'is' : '=', value);
  }
  return query.returningAll().executeTakeFirst();
}

const linkedColumns = [
  'user_handles.added_at',
  'user_handles.backfill_days',
  'user_handles.telegram_enabled',
  'user_handles.discord_enabled',
  'user_handles.webhook_enabled',
  'user_handles.filter_include',
  'user_handles.filter_exclude',
  'user_handles.filter_media_only',
] as const;

/** A user's followed handles with the link's settings, as a query to narrow or order. */
function selectLinkedHandles(db: Executor, userId: number) {
  return db
    .selectFrom('user_handles')
    .innerJoin('handles', 'handles.id', 'user_handles.handle_id')
    .selectAll('handles')
    .select(linkedColumns)
    .where('user_handles.user_id', '=', userId);
}

/** The handles a user follows, oldest link first. */
export function listLinkedHandles(db: Executor, userId: number): Promise<LinkedHandleRow[]> {
  return selectLinkedHandles(db, userId)
    .orderBy('user_handles.added_at')
    .orderBy('user_handles.id')
    .execute();
}

export function findLinkedHandle(
  db: Executor,
  userId: number,
  handleId: number,
): Promise<LinkedHandleRow | undefined> {
  return selectLinkedHandles(db, userId)
    .where('user_handles.handle_id', '=', handleId)
    .executeTakeFirst();
}

export async function countLinks(db: Executor, userId: number): Promise<number> {
  return countRows(db.selectFrom('user_handles').where('user_id', '=', userId));
}

/** How many users follow a handle. */
export async function countFollowers(db: Executor, handleId: number): Promise<number> {
  return countRows(db.selectFrom('user_handles').where('handle_id', '=', handleId));
}

export interface NewLink {
  userId: number;
  handleId: number;
  backfillDays: number;
  now: string;
}

export async function insertLink(db: Executor, link: NewLink): Promise<void> {
  await db
    .insertInto('user_handles')
    .values({
      user_id: link.userId,
      handle_id: link.handleId,
      added_at: link.now,
      backfill_days: link.backfillDays,
      telegram_enabled: false,
      discord_enabled: false,
    })
    .execute();
}

/** Where a user's new posts of a handle go: the switches given change, the others stay. */
export async function setLinkNotifications(
  db: Executor,
  userId: number,
  handleId: number,
  values: Pick<
    Updateable<UserHandlesTable>,
    'telegram_enabled' | 'discord_enabled' | 'webhook_enabled'
  >,
): Promise<void> {
  await db
    .updateTable('user_handles')
    .set(values)
    .where('user_id', '=', userId)
    .where('handle_id', '=', handleId)
    .execute();
}

/**
 * Removes a user's link to a handle, and with it their alert rules of the handle (and the rules'
 * history), as the filter on the link goes with it; false when there was no link.
 */
export async function deleteLink(db: Db['db'], userId: number, handleId: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .deleteFrom('user_handles')
      .where('user_id', '=', userId)
      .where('handle_id', '=', handleId)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) return false;
    await trx
      .deleteFrom('alert_rules')
      .where('user_id', '=', userId)
      .where('handle_id', '=', handleId)
      .execute();
    return true;
  });
}

/**
 * Handles the scheduler should run a job for now: followed by someone, not paused, due (or never
 * scheduled), and not failed for good.
 */
export function listDueHandles(db: Executor, now: string, limit: number): Promise<HandleRow[]> {
  return (
    collectedHandles(db)
      .where((eb) => eb.or([eb('next_poll_at', 'is', null), eb('next_poll_at', '<=', now)]))
      // Never scheduled (a new backfill) before the longest due, in both dialects: Postgres
      // sorts nulls last.
      .orderBy(sql`coalesce(next_poll_at, '')`)
      .orderBy('id')
      .limit(limit)
      .execute()
  );
}

/** The handles the collector works on: followed by at least one user, not paused, not failed. */
function collectedHandles(db: Executor) {
  return db
    .selectFrom('handles')
    .selectAll()
    .where('paused', '=', false)
    .where('backfill_status', '!=', 'failed')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('user_handles')
          .select('user_handles.id')
          .whereRef('user_handles.handle_id', '=', 'handles.id'),
      ),
    );
}

/**
 * Handles whose profile is due for a read (never read, or last read at or before `before`):
 * known on X, followed, not paused, not failed; longest unread first (never read before all,
 * in both dialects).
 */
export function listHandlesDueForProfile(
  db: Executor,
  before: string,
  limit: number,
): Promise<HandleRow[]> {
  return collectedHandles(db)
    .where('x_user_id', 'is not', null)
    .where((eb) =>
      eb.or([eb('profile_checked_at', 'is', null), eb('profile_checked_at', '<=', before)]),
    )
    .orderBy(sql`coalesce(profile_checked_at, '')`)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Whether another handle than `exceptId` is named `username` (whatever its case). */
export async function usernameTaken(
  db: Executor,
  username: string,
  exceptId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('handles')
    .select('id')
    .where(sql<string>`lower(username)`, '=', username.toLowerCase())
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims the manual poll of a handle: true for one caller a minute, whichever process or user
 * asks (the row is the lock).
 */
export async function claimManualPoll(
  db: Executor,
  handleId: number,
  now: string,
  notBefore: string,
): Promise<boolean> {
  const result = await db
    .updateTable('handles')
    .set({ manual_poll_at: now })
    .where('id', '=', handleId)
    .where((eb) => eb.or([eb('manual_poll_at', 'is', null), eb('manual_poll_at', '<=', notBefore)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * A failed handle back to pending, due at once (its walk resumes where it stopped). Undefined
 * when it is not failed (any more).
 */
export function requeueFailedHandle(
  db: Executor,
  id: number,
  now: string,
): Promise<HandleRow | undefined> {
  return db
    .updateTable('handles')
    .set({
      backfill_status: 'pending',
      last_error: null,
      estimated_completion: null,
      next_poll_at: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('backfill_status', '=', 'failed')
    .returningAll()
    .executeTakeFirst();
}

/** Puts every waiting handle (credentials, credits) back to work now. */
export async function resumeWaitingHandles(
  db: Executor,
  waitingTexts: readonly string[],
  now: string,
): Promise<number> {
  const result = await db
    .updateTable('handles')
    .set({ last_error: null, next_poll_at: now, updated_at: now })
    .where('last_error', 'in', waitingTexts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * A collector job's lease on its handle ran out and another job holds it now (this one's process
 * stalled or was thought dead): the job must stop without writing.
 */
export class LeaseLostError extends Error {
  constructor(readonly handleId: number) {
    super(`lost the lease on handle ${handleId}`);
    this.name = 'LeaseLostError';
  }
}

/**
 * Longest a claim waits for a handle's row on PostgreSQL. Live writers hold it for milliseconds;
 * a row held longer is held by the transaction of a stalled process (which PostgreSQL ends, see
 * IDLE_IN_TRANSACTION_TIMEOUT_MS in db/index.ts), and a claim must not wait for that process to
 * wake: it gives up, and the scheduler asks again at its next tick.
 */
const CLAIM_LOCK_WAIT_MS = 2_000;

/** PostgreSQL's lock_not_available: a lock wait ran past lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Takes a handle for one collector job: free, or held by a lease that ran out. Returns false
 * when another live job holds it, or when its row stays locked past CLAIM_LOCK_WAIT_MS.
 */
export async function claimHandleLease(
  db: Pick<Db, 'db' | 'dialect'>,
  id: number,
  owner: string,
  now: string,
  until: string,
): Promise<boolean> {
  const claim = async (executor: Executor) => {
    const result = await executor
      .updateTable('handles')
      .set({ lease_owner: owner, lease_until: until })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('lease_owner', 'is', null),
          eb('lease_until', '<=', now),
          eb('lease_owner', '=', owner),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  };
  // SQLite has one writer at a time, and its busy timeout bounds the wait.
  if (db.dialect === 'sqlite') return claim(db.db);
  try {
    return await db.db.transaction().execute(async (trx) => {
      await sql`select set_config('lock_timeout', ${`${CLAIM_LOCK_WAIT_MS}ms`}, true)`.execute(trx);
      return claim(trx);
    });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === LOCK_NOT_AVAILABLE) return false;
    throw error;
  }
}

/**
 * Keeps `owner`'s lease until `until`; false when it is no longer `owner`'s (it ran out and
 * another job took the handle, or the handle is gone). In a transaction it also fences what
 * follows: the handle row stays locked until the transaction ends, so the lease cannot change
 * hands before those writes commit.
 */
export async function renewHandleLease(
  db: Executor,
  id: number,
  owner: string,
  until: string,
): Promise<boolean> {
  const result = await leaseHeldBy(db, id, owner).set({ lease_until: until }).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives a handle back (the job is over). */
export async function releaseHandleLease(db: Executor, id: number, owner: string): Promise<void> {
  await leaseHeldBy(db, id, owner).set({ lease_owner: null, lease_until: null }).execute();
}

/** An update of the handle `id` while `owner` holds its lease (else it changes nothing). */
function leaseHeldBy(db: Executor, id: number, owner: string) {
  return db.updateTable('handles').where('id', '=', id).where('lease_owner', '=', owner);
}

/** Frees the handles held by jobs of processes that are gone (owner `<node id>:...`). */
export async function releaseHandleLeasesOfNode(db: Executor, nodeId: string): Promise<number> {
  const result = await db
    .updateTable('handles')
    .set({ lease_owner: null, lease_until: null })
    .where('lease_owner', 'like', `${nodeId}:%`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
