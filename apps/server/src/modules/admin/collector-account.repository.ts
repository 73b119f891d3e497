import { ADMIN_MESSAGES, type ChallengeStatus } from '@perch/shared';
import type { Executor } from '../../db/index.js';
import type { AccountChallenge } from '../../domain/tweet-source.js';

/**
 * The collector account's verification challenge, kept in the one `collector_account` row
 * (id 1) so that an API process and a worker process agree on it. The collector raises a
 * challenge when its source asks for one, a super admin submits a code, and the collector's next
 * tick tries that code and records the outcome. The submitted code is cleared once tried and
 * never leaves this module except to be tried.
 */

const ACCOUNT_ID = 1;

/** The status a super admin sees: IDLE with nulls when the account was never challenged. */
export async function readChallengeStatus(db: Executor): Promise<ChallengeStatus> {
  const row = await db
    .selectFrom('collector_account')
    .select(['status', 'challenge_type', 'challenge_details', 'last_challenge_at'])
    .where('id', '=', ACCOUNT_ID)
    .executeTakeFirst();
  return (
    row ?? {
      status: 'IDLE',
      challenge_type: null,
      challenge_details: null,
      last_challenge_at: null,
    }
  );
}

/** True while collection must wait for the account (a code is awaited or being checked). */
export const isChallengePending = (status: ChallengeStatus) => status.status !== 'IDLE';

/**
 * Records that the account asks for a code. A code already submitted and not yet tried is kept
 * (the next tick tries it); otherwise the challenge is (re)opened with this one's details.
 */
export async function raiseChallenge(
  db: Executor,
  challenge: AccountChallenge,
  now: string,
): Promise<void> {
  const open = {
    status: 'AWAITING_INPUT' as const,
    challenge_type: challenge.type,
    challenge_details: challenge.details,
    last_challenge_at: now,
    submitted_code: null,
    updated_at: now,
  };
  await db
    .insertInto('collector_account')
    .values({ id: ACCOUNT_ID, ...open })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet(open).where('collector_account.status', '!=', 'CODE_SUBMITTED'),
    )
    .execute();
}

/**
 * Closes a challenge left open while the account signed in without being asked (e.g. the
 * source changed): collection must not wait for a code nobody will check.
 */
export async function closeStaleChallenge(db: Executor, now: string): Promise<void> {
  await db
    .updateTable('collector_account')
    .set({ status: 'IDLE', submitted_code: null, challenge_details: null, updated_at: now })
    .where('id', '=', ACCOUNT_ID)
    .where('status', '!=', 'IDLE')
    .execute();
}

/**
 * Stores a super admin's code for the collector to try; false when no challenge is waiting for
 * one (never asked, already verified, or a code is being checked).
 */
export async function submitChallengeCode(
  db: Executor,
  code: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('collector_account')
    .set({ status: 'CODE_SUBMITTED', submitted_code: code, updated_at: now })
    .where('id', '=', ACCOUNT_ID)
    .where('status', '=', 'AWAITING_INPUT')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Takes the submitted code for trying, clearing it from the row in the same step, so that two
 * collectors never try one code twice. Null when there is none to try.
 */
export async function takeSubmittedCode(db: Executor): Promise<string | null> {
  const row = await db
    .selectFrom('collector_account')
    .select('submitted_code')
    .where('id', '=', ACCOUNT_ID)
    .where('status', '=', 'CODE_SUBMITTED')
    .executeTakeFirst();
  const code = row?.submitted_code ?? null;
  if (code === null) return null;
  const taken = await db
    .updateTable('collector_account')
    .set({ submitted_code: null })
    .where('id', '=', ACCOUNT_ID)
    .where('status', '=', 'CODE_SUBMITTED')
    .where('submitted_code', '=', code)
    .executeTakeFirst();
  return taken.numUpdatedRows > 0n ? code : null;
}

/**
 * Records what the account said to a code: accepted closes the challenge (collection resumes),
 * refused opens it again for a newer code.
 */
export async function recordVerification(
  db: Executor,
  accepted: boolean,
  now: string,
): Promise<void> {
  await db
    .updateTable('collector_account')
    .set(
      accepted
        ? { status: 'IDLE', challenge_details: ADMIN_MESSAGES.codeAccepted, updated_at: now }
        : {
            status: 'AWAITING_INPUT',
            challenge_details: ADMIN_MESSAGES.codeRejected,
            last_challenge_at: now,
            updated_at: now,
          },
    )
    .where('id', '=', ACCOUNT_ID)
    .where('status', '=', 'CODE_SUBMITTED')
    .execute();
}
