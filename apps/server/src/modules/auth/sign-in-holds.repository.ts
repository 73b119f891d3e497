import type { Selectable } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { SignInHoldsTable } from '../../db/types.js';

export type SignInHoldRow = Selectable<SignInHoldsTable>;

/**
 * Claims the hold of `key` for one attempt until `claimedUntil`, in one statement so that of
 * concurrent attempts on any node exactly one wins. It is free when no attempt holds it and its
 * next attempt is due; `ignoreDelay` claims it while a delay still runs (a known address).
 */
export async function claimHold(
  db: Executor,
  key: string,
  now: string,
  claimedUntil: string,
  ignoreDelay: boolean,
): Promise<boolean> {
  const result = await db
    .insertInto('sign_in_holds')
    .values({ key, next_attempt_at: now, claimed_until: claimedUntil })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({ claimed_until: claimedUntil })
        .where((eb) =>
          eb.and([
            eb('sign_in_holds.claimed_until', '<=', now),
            ...(ignoreDelay ? [] : [eb('sign_in_holds.next_attempt_at', '<=', now)]),
          ]),
        ),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function findHold(db: Executor, key: string): Promise<SignInHoldRow | undefined> {
  return db.selectFrom('sign_in_holds').selectAll().where('key', '=', key).executeTakeFirst();
}

/** Ends the claim and makes the next attempt wait until `nextAttemptAt`. */
export async function delayHold(
  db: Executor,
  key: string,
  now: string,
  nextAttemptAt: string,
): Promise<void> {
  await db
    .updateTable('sign_in_holds')
    .set({ next_attempt_at: nextAttemptAt, claimed_until: now })
    .where('key', '=', key)
    .execute();
}

/** Ends the claim, keeping a delay that still runs; a hold with nothing left to say goes. */
export async function releaseHold(db: Executor, key: string, now: string): Promise<void> {
  await db
    .deleteFrom('sign_in_holds')
    .where('key', '=', key)
    .where('next_attempt_at', '<=', now)
    .execute();
  await db
    .updateTable('sign_in_holds')
    .set({ claimed_until: now })
    .where('key', '=', key)
    .execute();
}

/** Forgets the hold: a success starts the count afresh. */
export async function deleteHold(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('sign_in_holds').where('key', '=', key).execute();
}
