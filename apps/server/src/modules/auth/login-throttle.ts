/**
 * Sign-in limits: what stands between a guesser and anything that proves who somebody is (a
 * password, a two-factor or recovery code, the current password of a password change). Every
 * such check is admitted by `admitAttempt` first and then reports how it went. Counts come from
 * `login_attempts` and holds from `sign_in_holds`, so every API node sees the same. An account is
 * counted as one whichever of its names (username, email) was typed; a name no account has is
 * counted on its own, the same way, so the limits do not tell which names exist.
 *
 * 1. Per account and address: LOGIN_MAX_FAILURES failures since the last success there, inside
 *    LOGIN_FAILURE_WINDOW_MS, refuse that address until the oldest leaves the window.
 * 2. Per address: ADDRESS_MAX_FAILURES failures of any names inside the window refuse it, so one
 *    address cannot try one password on many accounts.
 * 3. Per account, across addresses: past ACCOUNT_FREE_FAILURES failures since its last success,
 *    each failure makes the next attempt wait longer (accountDelayMs), up to a bound: guessing
 *    from many addresses is slowed to about one try a minute, and the owner waits at most that
 *    long. An address the account signed in from within KNOWN_ADDRESS_MS does not wait (rule 1
 *    still holds it), so the delay cannot keep the owner out of their usual network. One attempt
 *    per account runs at a time: the hold is claimed in one statement, so a burst cannot slip in
 *    together before the first failure is counted.
 *
 * A refused attempt is not counted, and the right password gets the same 429, so a refusal tells
 * nothing about the password.
 */
import { LOGIN_FAILURE_WINDOW_MS, LOGIN_MAX_FAILURES } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { tooManyRequests } from '../../lib/errors.js';
import { recordAuthEvent, type ClientInfo } from './auth-events.js';
import {
  failuresFromIp,
  insertLoginAttempt,
  recentFailures,
  signedInFrom,
  type AttemptSubject,
} from './login-attempts.repository.js';
import {
  claimHold,
  delayHold,
  deleteHold,
  findHold,
  releaseHold,
} from './sign-in-holds.repository.js';

/** Failures from one address inside the window, whatever names they were for, before 429. */
export const ADDRESS_MAX_FAILURES = 20;
/** Failures of one account (all addresses) since its last success before delays begin. */
export const ACCOUNT_FREE_FAILURES = 10;
/** The wait after the first failure past the free ones; it doubles with each further one. */
export const ACCOUNT_DELAY_BASE_MS = 1_000;
/**
 * The longest wait by default (SIGN_IN_DELAY_MAX_SECONDS): at most about 60 guesses an hour on
 * one account, under the 100 that OWASP ASVS 2.2.1 allows, and a bounded wait for its owner.
 */
export const DEFAULT_ACCOUNT_DELAY_MAX_MS = 60_000;
/** An address the account signed in from within this long skips the account's delay. */
export const KNOWN_ADDRESS_MS = 30 * 24 * 60 * 60 * 1000;
/** How long one attempt holds its account; released when done, so this only bounds a crash. */
export const ATTEMPT_CLAIM_MS = 5_000;
/** Retry-After while another attempt on the account is being checked (it takes milliseconds). */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

/** The settings of this process (the auth routes set them from config). */
export interface SignInLimits {
  accountDelayMaxMs: number;
}

let limits: SignInLimits = { accountDelayMaxMs: DEFAULT_ACCOUNT_DELAY_MAX_MS };

export function configureSignInLimits(next: SignInLimits): void {
  limits = next;
}

/**
 * The wait before an account's next attempt after `failures` failures since its last success:
 * none up to ACCOUNT_FREE_FAILURES, then 1 s, 2 s, 4 s ... up to `maxMs`.
 */
export function accountDelayMs(failures: number, maxMs: number): number {
  const beyond = failures - ACCOUNT_FREE_FAILURES;
  if (beyond <= 0) return 0;
  return Math.min(ACCOUNT_DELAY_BASE_MS * 2 ** (beyond - 1), maxMs);
}

/** The `sign_in_holds` key of an account or of a name no account has. */
export function holdKey(subject: AttemptSubject): string {
  return subject.userId !== null
    ? `account:${subject.userId}`
    : `name:${subject.login.toLowerCase()}`;
}

const iso = (ms: number) => new Date(ms).toISOString();
const windowMinutes = LOGIN_FAILURE_WINDOW_MS / 60_000;

/** An admitted attempt; exactly one of its methods (or a success, countAttempt) ends it. */
export interface AdmittedAttempt {
  /** Counts a failure and sets when the account's next attempt may start. */
  failed(): Promise<void>;
  /** Ends the attempt without counting it (a right password whose code is still to come). */
  release(): Promise<void>;
  /** Waits for `work`; should it throw (the hash queue was full), releases first. */
  guard<T>(work: Promise<T>): Promise<T>;
}

/**
 * Admits one attempt for `subject` from `client`, or throws 429 with `message` and Retry-After
 * (recording 'login_locked'). `subject.login` is the name typed (or the username).
 */
export async function admitAttempt(
  db: Db,
  subject: AttemptSubject,
  client: ClientInfo,
  message: string,
): Promise<AdmittedAttempt> {
  const check: AttemptCheck = { db, subject, client, message, now: Date.now() };
  await refuseLockedAddress(check);
  await refuseBusyAddress(check);
  const key = await claimAccount(check);
  const release = () => releaseHold(db.db, key, new Date().toISOString());
  return {
    async failed() {
      await countAttempt(db, subject.login, subject.userId, client, false);
      const at = Date.now();
      const failures = await recentFailures(db.db, subject, iso(at - LOGIN_FAILURE_WINDOW_MS));
      const delay = accountDelayMs(failures.count, limits.accountDelayMaxMs);
      if (delay > 0) await delayHold(db.db, key, iso(at), iso(at + delay));
      else await release();
    },
    release,
    async guard(work) {
      try {
        return await work;
      } catch (error) {
        await release();
        throw error;
      }
    },
  };
}

/** One attempt being checked against the rules, at `now`; refused with `message`. */
interface AttemptCheck {
  db: Db;
  subject: AttemptSubject;
  client: ClientInfo;
  message: string;
  now: number;
}

/** Failures counted by one of the window rules: how many, and the oldest. */
type WindowFailures = Awaited<ReturnType<typeof failuresFromIp>>;

/**
 * Rules 1 and 2: refused (429, logged as a lock) while `failures` reach `limit`, until the
 * oldest of them leaves the window.
 */
async function refuseOverLimit(
  { db, subject, client, message, now }: AttemptCheck,
  rule: { failures: WindowFailures; limit: number; description: string; limitName?: string },
): Promise<void> {
  const { failures } = rule;
  if (failures.count < rule.limit) return;
  await recordAuthEvent(db, client, {
    type: 'login_locked',
    severity: 'high',
    description: rule.description,
    userId: subject.userId,
    metadata: { login: subject.login, ...(rule.limitName ? { limit: rule.limitName } : {}) },
  });
  const since = now - LOGIN_FAILURE_WINDOW_MS;
  const liftsAt = (failures.oldest ? Date.parse(failures.oldest) : since) + LOGIN_FAILURE_WINDOW_MS;
  throw tooManyRequests(message, (liftsAt - now) / 1000);
}

/** Rule 1: the account (or name) at this address. */
async function refuseLockedAddress(check: AttemptCheck): Promise<void> {
  const { db, subject, client, now } = check;
  const failures = await recentFailures(
    db.db,
    subject,
    iso(now - LOGIN_FAILURE_WINDOW_MS),
    client.ip,
  );
  await refuseOverLimit(check, {
    failures,
    limit: LOGIN_MAX_FAILURES,
    description: `Blocked after ${failures.count} failed attempts in ${windowMinutes} minutes.`,
  });
}

/** Rule 2: the address, whatever the name. */
async function refuseBusyAddress(check: AttemptCheck): Promise<void> {
  const { db, client, now } = check;
  const failures = await failuresFromIp(db.db, client.ip, iso(now - LOGIN_FAILURE_WINDOW_MS));
  await refuseOverLimit(check, {
    failures,
    limit: ADDRESS_MAX_FAILURES,
    description: `Blocked: ${failures.count} failed sign-ins from this address in ${windowMinutes} minutes.`,
    limitName: 'address',
  });
}

/** Rule 3: claims the account's hold for this attempt; returns its key. */
async function claimAccount({ db, subject, client, message, now }: AttemptCheck): Promise<string> {
  const key = holdKey(subject);
  const at = iso(now);
  const claimedUntil = iso(now + ATTEMPT_CLAIM_MS);
  if (await claimHold(db.db, key, at, claimedUntil, false)) return key;
  const hold = await findHold(db.db, key);
  // Gone since the claim was tried: the attempt holding it has just succeeded.
  if (!hold) {
    if (await claimHold(db.db, key, at, claimedUntil, false)) return key;
    throw tooManyRequests(message, IN_FLIGHT_RETRY_AFTER_SECONDS);
  }
  if (hold.next_attempt_at <= at) throw tooManyRequests(message, IN_FLIGHT_RETRY_AFTER_SECONDS);
  if (
    subject.userId !== null &&
    (await signedInFrom(db.db, subject.userId, client.ip, iso(now - KNOWN_ADDRESS_MS))) &&
    (await claimHold(db.db, key, at, claimedUntil, true))
  ) {
    return key;
  }
  const waitMs = Date.parse(hold.next_attempt_at) - now;
  await recordAuthEvent(db, client, {
    type: 'login_locked',
    severity: 'high',
    description: `Slowed down after repeated failures on this account: the next attempt may start in ${Math.ceil(waitMs / 1000)} s.`,
    userId: subject.userId,
    metadata: { login: subject.login, limit: 'account' },
  });
  throw tooManyRequests(message, waitMs / 1000);
}

/**
 * Counts one attempt (right or wrong) for the login name and IP. A success also ends the
 * account's hold: its count starts afresh.
 */
export async function countAttempt(
  db: Db,
  login: string,
  userId: number | null,
  client: ClientInfo,
  success: boolean,
): Promise<void> {
  await insertLoginAttempt(db.db, {
    login,
    userId,
    ip: client.ip,
    userAgent: client.userAgent,
    success,
    createdAt: new Date().toISOString(),
  });
  if (success) await deleteHold(db.db, holdKey({ userId, login }));
}
