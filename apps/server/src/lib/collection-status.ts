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

const CATCHING_UP_START = 'Catching up: ';

/** A collected handle's text while its polls walk through more new posts than one poll reads. */
export function catchingUpText(found: number): string {
  const posts = found === 1 ? 'post' : 'posts';
  return `${CATCHING_UP_START}${found.toLocaleString('en-US')} new ${posts} so far`;
}

const GAP_CUT_START = 'X returns only the latest ';
const GAP_CUT_END = ' could not be read';

/**
 * A collected handle's text once a catch-up ended at the source's depth limit (X: the latest
 * 3,200 posts) rather than at the last post stored: the gap's posts older than `oldestRead`
 * were out of reach.
 */
export function gapCutText(depth: number, oldestRead: string | null): string {
  const before = oldestRead ? ` before ${oldestRead.slice(0, 16).replace('T', ' ')} UTC` : '';
  return `${GAP_CUT_START}${depth.toLocaleString('en-US')} posts: posts of the pause${before}${GAP_CUT_END}`;
}

/** Whether a handle's text is a gapCutText: polls keep it, as it tells of data, not a state. */
export function isGapCutText(text: string | null): boolean {
  return text !== null && text.startsWith(GAP_CUT_START) && text.endsWith(GAP_CUT_END);
}

/**
 * Whether a handle's text is a note on its data (catching up, a cut gap) rather than an error:
 * a wait for X, which stops the collection, is said over it.
 */
export function isDataNote(text: string | null): boolean {
  return text !== null && (text.startsWith(CATCHING_UP_START) || isGapCutText(text));
}
