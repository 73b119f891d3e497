import type { XWebAccount } from '@perch/shared';
import { X_WEB_STATUS_HINT, X_WEB_TEXTS } from './x-web-texts';

/** A line of an account's "why": the text and, when known, the instant it refers to. */
export interface WhyLine {
  text: string;
  at: string | null;
}

/** Why an account is where it is: its status (out of the pool) and its last error. */
export interface AccountWhy {
  /** Why it is not ACTIVE, in X's words or the status's own; null while ACTIVE. */
  status: WhyLine | null;
  /** The last error of a request or sign-in, unless it is the status's reason already. */
  lastError: WhyLine | null;
}

/**
 * The "why" of an account row. Every status but ACTIVE has a line (X's reason, else what the
 * status means); the last error is kept apart, since an ACTIVE account may have one too (a rate
 * limit, a refused request) and an account out of the pool may have failed differently since.
 */
export function accountWhy(account: XWebAccount): AccountWhy {
  const lastError = account.last_error
    ? { text: account.last_error, at: account.last_error_at }
    : null;
  if (account.status === 'ACTIVE') return { status: null, lastError };

  if (account.status === 'AWAITING_INPUT') {
    const text = account.challenge_step
      ? X_WEB_TEXTS.waitingStep(account.challenge_step)
      : (account.status_reason ?? X_WEB_STATUS_HINT.AWAITING_INPUT ?? '');
    return { status: { text, at: account.challenge_since }, lastError };
  }

  const reason = account.status_reason;
  if (reason && reason === account.last_error) {
    // The server writes X's reason to both when it takes an account out: one line, with its time.
    return { status: { text: reason, at: account.last_error_at }, lastError: null };
  }
  return {
    status: { text: reason ?? X_WEB_STATUS_HINT[account.status] ?? '', at: null },
    lastError,
  };
}
