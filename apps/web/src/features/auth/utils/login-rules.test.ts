import { MESSAGES, loginRequestSchema } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { loginPasswordIssue, loginUsernameIssue } from './login-rules';

/** The first text loginRequestSchema gives for a field, or null when it accepts the value. */
function schemaIssue(field: 'username' | 'password', value: string): string | null {
  const result = loginRequestSchema.shape[field].safeParse(value);
  return result.success ? null : (result.error.issues[0]?.message ?? null);
}

const usernames = ['', '   ', 'ada', '  ada@example.com  ', 'a'.repeat(254), 'a'.repeat(255)];
const passwords = ['', ' ', 'secret', 'p'.repeat(256), 'p'.repeat(257)];

describe('login field rules', () => {
  it.each(usernames.map((value) => [value.length, value]))(
    'gives the schema text for a username of %i characters',
    (_length, value) => {
      expect(loginUsernameIssue(value)).toBe(schemaIssue('username', value));
    },
  );

  it.each(passwords.map((value) => [value.length, value]))(
    'gives the schema text for a password of %i characters',
    (_length, value) => {
      expect(loginPasswordIssue(value)).toBe(schemaIssue('password', value));
    },
  );

  it('checks the username trimmed, and the password as typed', () => {
    expect(loginUsernameIssue(`  ${'a'.repeat(254)}  `)).toBeNull();
    expect(loginUsernameIssue('\t \n')).toBe(MESSAGES.loginUsernameRequired);
    expect(loginPasswordIssue(' ')).toBeNull();
    expect(loginPasswordIssue('')).toBe(MESSAGES.loginPasswordRequired);
  });
});
