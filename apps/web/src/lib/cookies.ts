import { CSRF_COOKIE_NAMES } from '@perch/shared';

/** Value of a cookie readable by scripts, or null when it is not set. */
export function readCookie(name: string): string | null {
  if (typeof document === 'undefined') return null;
  for (const part of document.cookie.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1) continue;
    if (part.slice(0, separator).trim() !== name) continue;
    const value = part.slice(separator + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return null;
}

/**
 * The CSRF token the server handed this page: `__Host-perch_csrf` when it runs with
 * COOKIE_SECURE, `perch_csrf` otherwise (the page cannot tell which, so it looks for both).
 */
export function readCsrfCookie(): string | null {
  for (const name of CSRF_COOKIE_NAMES) {
    const value = readCookie(name);
    if (value) return value;
  }
  return null;
}
