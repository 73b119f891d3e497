import { X_USAGE_MESSAGES } from '@perch/shared';

/** A handle's text while X refuses the app's credentials (401/403): waiting, not failed. */
export const WAITING_FOR_CREDENTIALS = X_USAGE_MESSAGES.credentialsWaiting;
/** A handle's text while X answers 402: the app's pay-per-use balance is gone. */
export const CREDITS_DEPLETED = X_USAGE_MESSAGES.creditsDepleted;
/** A handle's text while the daily X spend limit holds its collection back. */
export const BUDGET_PAUSED = X_USAGE_MESSAGES.budgetPaused;

/** Texts of a handle that waits for the X credentials, the credits or the budget (not failed). */
export const WAITING_TEXTS: readonly string[] = [
  WAITING_FOR_CREDENTIALS,
  CREDITS_DEPLETED,
  BUDGET_PAUSED,
];

/** The share (0-100) of the window [targetStart, windowEnd] covered once `oldest` is reached. */
export function coveredShare(windowEnd: number, targetStart: number, oldest: number): number {
  const span = windowEnd - targetStart;
  if (span <= 0) return 100;
  const share = ((windowEnd - Math.max(oldest, targetStart)) / span) * 100;
  return Math.min(100, Math.max(0, share));
}
