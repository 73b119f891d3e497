/**
 * How a BullMQ consumer learns that it lost a running job's lock: BullMQ says it in the errors of
 * the lock's renewal and of the job's end, by code or only in words.
 */
import { ErrorCode } from 'bullmq';

/** How BullMQ words the loss of a running job's lock, when no error code says it. */
const LOCK_RENEWAL_FAILED = /^could not renew lock for job (\S+)$/;
/** Codes of BullMQ's refusals to finish a job this consumer no longer holds. */
const LOST_JOB_CODES: readonly number[] = [
  ErrorCode.JobLockMismatch,
  ErrorCode.JobLockNotExist,
  ErrorCode.JobNotInState,
  ErrorCode.JobNotExist,
];
/** The job named in those refusals ('Lock mismatch for job X. ...', 'Job X is not in ...'). */
const JOB_IN_MESSAGE = /\b[Jj]ob ([^\s.]+)/;

export const JOB_LOCK_LOST_MESSAGE =
  'lost the lock of a running job: another worker may run it again';

/**
 * The BullMQ id of the job whose lock this consumer lost, when `error` says it lost one:
 * a failed renewal, or a refusal to finish a job that is no longer this consumer's.
 */
export function lostLockJobId(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const renewal = LOCK_RENEWAL_FAILED.exec(error.message);
  if (renewal) return renewal[1];
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code !== 'number' || !LOST_JOB_CODES.includes(code)) return undefined;
  return JOB_IN_MESSAGE.exec(error.message)?.[1];
}
