import { describe, expect, it } from 'vitest';
import { makeXWebAccount } from '../test/x-web-fixtures';
import { accountWhy } from './x-web-account-why';
import { X_WEB_STATUS_HINT, X_WEB_TEXTS } from './x-web-texts';

const AT = '2025-03-10T11:00:00.000Z';
const LATER = '2025-03-10T12:00:00.000Z';

describe('accountWhy', () => {
  it.each([
    ['an ACTIVE account without errors', makeXWebAccount({}), { status: null, lastError: null }],
    [
      'an ACTIVE account with a last error',
      makeXWebAccount({ last_error: '(88) Rate limit exceeded', last_error_at: AT }),
      { status: null, lastError: { text: '(88) Rate limit exceeded', at: AT } },
    ],
    [
      "an account taken out with X's reason (written to both fields)",
      makeXWebAccount({
        status: 'LOCKED',
        status_reason: '(326) Authorization: Denied by access control',
        last_error: '(326) Authorization: Denied by access control',
        last_error_at: AT,
      }),
      {
        status: { text: '(326) Authorization: Denied by access control', at: AT },
        lastError: null,
      },
    ],
    [
      'an account out for one reason that failed differently since',
      makeXWebAccount({
        status: 'EXPIRED',
        status_reason: '(32) Could not authenticate you',
        last_error: 'X answered HTTP 503',
        last_error_at: LATER,
      }),
      {
        status: { text: '(32) Could not authenticate you', at: null },
        lastError: { text: 'X answered HTTP 503', at: LATER },
      },
    ],
    [
      'an account waiting for a code, whose last code X refused',
      makeXWebAccount({
        status: 'AWAITING_INPUT',
        challenge_step: 'LoginAcid',
        challenge_since: AT,
        last_error: 'The code is wrong.',
        last_error_at: LATER,
      }),
      {
        status: { text: X_WEB_TEXTS.waitingStep('LoginAcid'), at: AT },
        lastError: { text: 'The code is wrong.', at: LATER },
      },
    ],
    [
      'an account not signed in yet',
      makeXWebAccount({ status: 'NEEDS_LOGIN' }),
      { status: { text: X_WEB_STATUS_HINT.NEEDS_LOGIN, at: null }, lastError: null },
    ],
  ])('%s', (_name, input, expected) => {
    expect(accountWhy(input)).toEqual(expected);
  });

  it('says something for every status but ACTIVE, even without a reason from X', () => {
    for (const status of [
      'NEEDS_LOGIN',
      'AWAITING_INPUT',
      'FAILED',
      'LOCKED',
      'SUSPENDED',
      'EXPIRED',
    ] as const) {
      expect(accountWhy(makeXWebAccount({ status })).status?.text).toBeTruthy();
    }
  });
});
