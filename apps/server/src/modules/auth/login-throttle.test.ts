import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_FREE_FAILURES,
  DEFAULT_ACCOUNT_DELAY_MAX_MS,
  accountDelayMs,
  holdKey,
} from './login-throttle.js';

describe('accountDelayMs', () => {
  it.each([
    [0, 0],
    [ACCOUNT_FREE_FAILURES, 0],
    [ACCOUNT_FREE_FAILURES + 1, 1_000],
    [ACCOUNT_FREE_FAILURES + 2, 2_000],
    [ACCOUNT_FREE_FAILURES + 3, 4_000],
    [ACCOUNT_FREE_FAILURES + 6, 32_000],
    [ACCOUNT_FREE_FAILURES + 7, 60_000],
    [ACCOUNT_FREE_FAILURES + 1_000, 60_000],
  ])('waits after %i failures: %i ms (60 s bound)', (failures, expected) => {
    expect(accountDelayMs(failures, DEFAULT_ACCOUNT_DELAY_MAX_MS)).toBe(expected);
  });

  it('never waits longer than the bound it is given', () => {
    expect(accountDelayMs(ACCOUNT_FREE_FAILURES + 3, 3_000)).toBe(3_000);
  });
});

describe('holdKey', () => {
  it('keys an account by its id, whichever name was typed, and an unknown name by itself', () => {
    expect(holdKey({ userId: 7, login: 'Ada@Example.com' })).toBe('account:7');
    expect(holdKey({ userId: 7, login: 'ada' })).toBe('account:7');
    expect(holdKey({ userId: null, login: 'Nobody' })).toBe('name:nobody');
  });
});
