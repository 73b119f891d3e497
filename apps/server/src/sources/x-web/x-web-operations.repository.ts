/**
 * The x-web source's GraphQL operations (migration 0015): the values last read from x.com's
 * client bundle (x_web_operations), the values an operator pinned (x_web_operation_pins), and
 * when the bundle was last read and why that failed (x_web_state, row 1, made on demand).
 * Values are JSON text; the same statements run on SQLite and PostgreSQL.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, XWebOperationPinsTable, XWebOperationsTable } from '../../db/types.js';

export type XWebOperationRow = Selectable<XWebOperationsTable>;
export type XWebOperationPinRow = Selectable<XWebOperationPinsTable>;

/** The one row of x_web_state. */
const STATE_ID = 1;

export function listXWebOperationRows(db: Kysely<Database>): Promise<XWebOperationRow[]> {
  return db.selectFrom('x_web_operations').selectAll().orderBy('name').execute();
}

/**
 * Stores an operation's values as the bundle showed them at `seen_at`. `updated_at` becomes
 * `updated_at` of the input only when the query id, features or toggles differ from the stored
 * ones (compared as text: callers write JSON with sorted keys).
 */
export async function upsertXWebOperationRow(
  db: Kysely<Database>,
  row: XWebOperationRow,
): Promise<void> {
  await db
    .insertInto('x_web_operations')
    .values(row)
    .onConflict((oc) =>
      oc.column('name').doUpdateSet((eb) => ({
        query_id: eb.ref('excluded.query_id'),
        features: eb.ref('excluded.features'),
        field_toggles: eb.ref('excluded.field_toggles'),
        seen_at: eb.ref('excluded.seen_at'),
        updated_at: eb
          .case()
          .when(
            eb.and([
              eb('x_web_operations.query_id', '=', eb.ref('excluded.query_id')),
              eb('x_web_operations.features', '=', eb.ref('excluded.features')),
              eb('x_web_operations.field_toggles', '=', eb.ref('excluded.field_toggles')),
            ]),
          )
          .then(eb.ref('x_web_operations.updated_at'))
          .else(eb.ref('excluded.updated_at'))
          .end(),
      })),
    )
    .execute();
}

export function listXWebOperationPins(db: Kysely<Database>): Promise<XWebOperationPinRow[]> {
  return db.selectFrom('x_web_operation_pins').selectAll().orderBy('name').execute();
}

/** Pins an operation's values (replacing an earlier pin of it). */
export async function upsertXWebOperationPin(
  db: Kysely<Database>,
  pin: XWebOperationPinRow,
): Promise<void> {
  const { name: _name, ...values } = pin;
  await db
    .insertInto('x_web_operation_pins')
    .values(pin)
    .onConflict((oc) => oc.column('name').doUpdateSet(values))
    .execute();
}

/** Changes a pin's features only (X named features it lacked); false when it is gone. */
export async function updateXWebOperationPinFeatures(
  db: Kysely<Database>,
  name: string,
  features: string,
): Promise<boolean> {
  const result = await db
    .updateTable('x_web_operation_pins')
    .set({ features })
    .where('name', '=', name)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Removes a pin; false when the operation was not pinned. */
export async function deleteXWebOperationPin(db: Kysely<Database>, name: string): Promise<boolean> {
  const result = await db
    .deleteFrom('x_web_operation_pins')
    .where('name', '=', name)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** When x.com's client was last read (successfully or not), last read well, and the failure. */
export interface XWebOperationsCheck {
  checkedAt: string | null;
  refreshedAt: string | null;
  error: string | null;
}

export async function readXWebOperationsCheck(db: Kysely<Database>): Promise<XWebOperationsCheck> {
  const row = await db
    .selectFrom('x_web_state')
    .select(['ops_checked_at', 'ops_refreshed_at', 'ops_error'])
    .where('id', '=', STATE_ID)
    .executeTakeFirst();
  return {
    checkedAt: row?.ops_checked_at ?? null,
    refreshedAt: row?.ops_refreshed_at ?? null,
    error: row?.ops_error ?? null,
  };
}

/**
 * Claims the next read of x.com's client for the caller, across processes: sets the check
 * time to `at` unless another read began after `notAfter` (ISO-8601 text compares in time
 * order). Answers whether the claim was had, and the check time that stands.
 */
export async function claimXWebOperationsCheck(
  db: Kysely<Database>,
  at: string,
  notAfter: string,
): Promise<{ claimed: boolean; checkedAt: string | null }> {
  await db
    .insertInto('x_web_state')
    .values({ id: STATE_ID })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const result = await db
    .updateTable('x_web_state')
    .set({ ops_checked_at: at })
    .where('id', '=', STATE_ID)
    .where((eb) => eb.or([eb('ops_checked_at', 'is', null), eb('ops_checked_at', '<=', notAfter)]))
    .executeTakeFirst();
  if (result.numUpdatedRows > 0n) return { claimed: true, checkedAt: at };
  return { claimed: false, checkedAt: (await readXWebOperationsCheck(db)).checkedAt };
}

/** Records how a claimed read ended: its success time, or why it failed. */
export async function finishXWebOperationsCheck(
  db: Kysely<Database>,
  outcome: { refreshedAt: string } | { error: string },
): Promise<void> {
  await db
    .updateTable('x_web_state')
    .set(
      'refreshedAt' in outcome
        ? { ops_refreshed_at: outcome.refreshedAt, ops_error: null }
        : { ops_error: outcome.error },
    )
    .where('id', '=', STATE_ID)
    .execute();
}
