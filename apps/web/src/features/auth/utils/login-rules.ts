import { MESSAGES } from '@perch/shared';

// The field rules of loginRequestSchema (@perch/shared), with its texts, checked without zod so
// the sign-in page does not load it; login-rules.test.ts holds them against the schema.

const USERNAME_MAX_LENGTH = 254;
const PASSWORD_MAX_LENGTH = 256;

/** zod's text for a username over its maximum length, as the schema gives it. */
const USERNAME_TOO_LONG = `Too big: expected string to have <=${USERNAME_MAX_LENGTH} characters`;

/** What is wrong with a sign-in username or email (checked trimmed), or null. */
export function loginUsernameIssue(username: string): string | null {
  const trimmed = username.trim();
  if (trimmed === '') return MESSAGES.loginUsernameRequired;
  return trimmed.length > USERNAME_MAX_LENGTH ? USERNAME_TOO_LONG : null;
}

/** What is wrong with a sign-in password, or null (the schema has one text for both limits). */
export function loginPasswordIssue(password: string): string | null {
  const fits = password !== '' && password.length <= PASSWORD_MAX_LENGTH;
  return fits ? null : MESSAGES.loginPasswordRequired;
}
