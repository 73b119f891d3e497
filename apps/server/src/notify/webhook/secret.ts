/**
 * Webhook secrets and the signature scheme (docs/webhooks.md tells receivers the same):
 *
 *     X-Perch-Timestamp: 1764408000
 *     X-Perch-Signature: v1=<hex HMAC-SHA256 of "1764408000.<raw body>" with the secret>
 *
 * - The secret is `whsec_` and 32 random bytes in base64url; the whole string, prefix included,
 *   is the HMAC key, so a receiver copies it as shown.
 * - The timestamp is signed with the body, so a captured request cannot be replayed later than
 *   the receiver's tolerance (5 minutes by default).
 * - `v1=` names the scheme: a later one can be sent beside it (comma-separated) while receivers
 *   move over; `verifySignature` accepts a header when any of its v1 signatures matches.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const TIMESTAMP_HEADER = 'X-Perch-Timestamp';
export const SIGNATURE_HEADER = 'X-Perch-Signature';
/** How far a receiver lets a timestamp be from its own clock, by default. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** A new endpoint secret: shown once, when made or rotated. */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

function hmacHex(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The X-Perch-Signature value of a body sent at `timestamp` (Unix seconds). */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `v1=${hmacHex(secret, String(timestamp), body)}`;
}

/**
 * Whether a request was signed with `secret`: the signature header holds a v1 signature of
 * `timestamp` and the raw body, and the timestamp is within `toleranceSeconds` of `nowSeconds`.
 * Compared in constant time, so the answer's timing tells nothing about the right signature.
 */
export function verifySignature(
  secret: string,
  timestamp: string,
  body: string,
  header: string,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  return header
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const given = Buffer.from(part.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * What an endpoint's secret is sealed for at rest (token-cipher.ts context): that endpoint, so a
 * sealed secret copied into another endpoint's row does not open there (it would sign that
 * endpoint's requests with a secret somebody else knows).
 */
export const webhookSecretContext = (endpointId: number) => `webhook-endpoint-secret:${endpointId}`;

/**
 * Why an endpoint's secret cannot be used: it does not open with the server's key for this
 * endpoint (SECRET_KEY changed, or the sealed value was copied from another endpoint). The Test
 * button answers it, and a delivery stops the endpoint with it, as a refusing endpoint stops.
 */
export const WEBHOOK_SECRET_UNREADABLE =
  'The secret of this webhook cannot be read (the server key changed): make a new one.';

/** The one context every endpoint's secret was sealed under before it was bound to the endpoint. */
export const UNBOUND_WEBHOOK_SECRET_CONTEXT = 'webhook-endpoint-secret';
