/**
 * What X's web client sends (docs/decisions.md, "x-web source"): the web app's public bearer
 * token, the guest token for the sign-in flow, the session cookies (auth_token, ct0) with ct0
 * echoed as x-csrf-token. The operations' query ids and features are data
 * (x-web-operations.ts). Facts read in twscrape (login.py, api.py, account.py), Nitter and RSSHub.
 */
import { createHmac } from 'node:crypto';

/** The bearer token the x.com web app itself sends (public: it is in the web app's code). */
export const X_WEB_BEARER =
  'AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA';

/** A browser's user agent: X answers unknown clients less kindly. */
export const X_WEB_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** A cookie jar: name -> value, as the web client keeps them between calls. */
export type Cookies = Record<string, string>;

/** Takes the Set-Cookie headers of a response into `jar` (expired ones are removed). */
export function absorbCookies(jar: Cookies, headers: Headers): void {
  for (const line of headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';');
    const at = pair?.indexOf('=') ?? -1;
    if (!pair || at <= 0) continue;
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    const expired = attributes.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a));
    if (expired || value === '') delete jar[name];
    else jar[name] = value;
  }
}

export function cookieHeader(jar: Cookies): string {
  return Object.entries(jar)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
}

/** The headers of the web client: bearer, language, and the session's cookies and CSRF token. */
export function webHeaders(jar: Cookies, extra: Record<string, string> = {}): Headers {
  const headers = new Headers({
    authorization: `Bearer ${X_WEB_BEARER}`,
    'user-agent': X_WEB_USER_AGENT,
    'x-twitter-active-user': 'yes',
    'x-twitter-client-language': 'en',
    accept: '*/*',
    ...extra,
  });
  if (Object.keys(jar).length > 0) headers.set('cookie', cookieHeader(jar));
  if (jar.ct0) headers.set('x-csrf-token', jar.ct0);
  if (jar.auth_token) headers.set('x-twitter-auth-type', 'OAuth2Session');
  return headers;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Bytes(secret: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of secret.replace(/=+$/, '').toUpperCase()) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('The TOTP secret is not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/**
 * The RFC 6238 code (SHA-1, 6 digits, 30 s) of a base32 secret at `now`: what an authenticator
 * app shows, for X's LoginTwoFactorAuthChallenge. X's secrets are 80 bits, fewer than otplib's
 * guardrails take, so it is computed here.
 */
export function totpCode(secret: string, now: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000)));
  const digest = createHmac('sha1', base32Bytes(secret)).update(counter).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const code = (digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(code).padStart(6, '0');
}
