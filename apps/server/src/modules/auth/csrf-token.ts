/**
 * The CSRF token, bound to the session (OWASP ASVS 4.0 4.2.2; docs/decisions.md):
 *
 * - With a session cookie, the token is HMAC-SHA256 keyed by that cookie's value (the raw session
 *   id, 256 random bits the browser keeps HttpOnly). Only the holder of the session can know it,
 *   every node derives the same without storing anything or sharing a key, and a new session id
 *   (sign-in, rotation) means a new token: a token of another or an earlier session is refused.
 *   The token says nothing about the session id (HMAC is one-way), so the page may read it.
 * - Without one (before sign-in), it is a random value that the request must repeat from its
 *   cookie (double submit), which keeps a sign-in from being forged.
 */
import { createHmac } from 'node:crypto';
import { randomToken, safeEqual } from '../../lib/tokens.js';

/** What the HMAC signs: the purpose, so the session id keys nothing else the same way. */
const CSRF_PURPOSE = 'perch/csrf/v1';
/** Cookie values outside this are not ours (a token is 43 characters). */
const MIN_TOKEN_LENGTH = 32;
const MAX_TOKEN_LENGTH = 128;

/** The CSRF token of the session whose raw id (the session cookie's value) is `sessionToken`. */
export function sessionCsrfToken(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update(CSRF_PURPOSE).digest('base64url');
}

/**
 * The CSRF tokens of the sessions seen lately, so that a signed-in request does not compute its
 * HMAC again: keyed by the session's id hash (the sessions table's id, as the session cache),
 * never by the cookie itself. A token never changes for a session, so nothing is invalidated;
 * past `max` sessions the memo starts over.
 */
export class SessionCsrfTokens {
  private readonly tokens = new Map<string, string>();

  constructor(private readonly max = 10_000) {}

  /** The CSRF token of the session `sessionToken`, whose SHA-256 is `idHash`. */
  of(sessionToken: string, idHash: string): string {
    let token = this.tokens.get(idHash);
    if (token === undefined) {
      if (this.tokens.size >= this.max) this.tokens.clear();
      token = sessionCsrfToken(sessionToken);
      this.tokens.set(idHash, token);
    }
    return token;
  }
}

/** A fresh token for a browser without a session. */
export function anonymousCsrfToken(): string {
  return randomToken();
}

/** A CSRF cookie value worth keeping: the length of a token of ours. */
export function plausibleCsrfToken(value: string | undefined): value is string {
  return (
    value !== undefined && value.length >= MIN_TOKEN_LENGTH && value.length <= MAX_TOKEN_LENGTH
  );
}

/** The header matches the token this request must carry (constant time). */
export function csrfHeaderMatches(expected: string, header: unknown): boolean {
  return typeof header === 'string' && safeEqual(header, expected);
}
