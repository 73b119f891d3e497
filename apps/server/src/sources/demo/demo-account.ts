/** The demo source's collector account, challenged when DEMO_CHALLENGE_CODE is set. */
import type { AccountChallenge, SourceAccount } from '../../domain/tweet-source.js';

/** The challenge the demo account is asked when a challenge code is configured. */
export const DEMO_CHALLENGE: AccountChallenge = {
  type: 'email_code',
  details:
    'X sent a confirmation code to the email address of the collector account. Enter it to resume collection.',
};

/**
 * The demo account's session: challenged at sign-in until the configured code has been
 * accepted once, as a real session stays verified after a successful check.
 */
export function demoAccount(
  challengeCode: string,
  pause: (signal?: AbortSignal) => Promise<void>,
): SourceAccount {
  let verified = false;
  const account: SourceAccount = {
    async challengeOnStart() {
      await pause();
      return verified ? null : DEMO_CHALLENGE;
    },
    async verify(code) {
      await pause();
      const accepted = code.trim() === challengeCode;
      if (accepted) verified = true;
      return accepted;
    },
  };
  return account;
}
