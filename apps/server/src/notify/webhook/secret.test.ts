import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  signatureHeader,
  verifySignature,
  WEBHOOK_SECRET_PREFIX,
} from './secret.js';

const NOW = 1_764_408_000;

describe('webhook secrets', () => {
  it('are whsec_ and 32 random bytes in base64url', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64url')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});

describe('signatures', () => {
  it('are the hex HMAC-SHA256 of "<timestamp>.<body>", as documented', () => {
    // echo -n '1764408000.{}' | openssl dgst -sha256 -hmac whsec_test
    expect(signatureHeader('whsec_test', NOW, '{}')).toBe(
      'v1=ffc25171c8b7ce9398a61f325281f942c1cd5752b0578d65f569e066fc219dc0',
    );
  });

  it('verify what was signed, with the same secret, body and timestamp', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ unit: 'grapheme' }), (secret, body) => {
        const header = signatureHeader(secret, NOW, body);
        return verifySignature(secret, String(NOW), body, header, 300, NOW);
      }),
    );
  });

  it('refuse a changed body, secret or timestamp', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string(),
        fc.string({ minLength: 1 }),
        fc.integer({ min: 1, max: 299 }),
        (secret, body, extra, shift) => {
          const header = signatureHeader(secret, NOW, body);
          const verify = (s: string, t: number, b: string) =>
            verifySignature(s, String(t), b, header, 300, NOW);
          return (
            !verify(secret, NOW, body + extra) &&
            !verify(secret + extra, NOW, body) &&
            !verify(secret, NOW + shift, body)
          );
        },
      ),
    );
  });

  it('refuse a flipped signature character', () => {
    fc.assert(
      fc.property(fc.string(), fc.nat({ max: 63 }), (body, at) => {
        const header = signatureHeader('whsec_test', NOW, body);
        const digit = header[3 + at]!;
        const flipped = digit === '0' ? '1' : '0';
        const tampered = `${header.slice(0, 3 + at)}${flipped}${header.slice(4 + at)}`;
        return !verifySignature('whsec_test', String(NOW), body, tampered, 300, NOW);
      }),
    );
  });

  it.each([
    ['within the tolerance', NOW - 300, true],
    ['too old (a replay)', NOW - 301, false],
    ['too far ahead', NOW + 301, false],
  ])('a timestamp %s: valid %s', (_case, sentAt, valid) => {
    const header = signatureHeader('whsec_test', sentAt, '{}');
    expect(verifySignature('whsec_test', String(sentAt), '{}', header, 300, NOW)).toBe(valid);
  });

  it.each([
    ['a malformed timestamp', '17644x8000', null],
    ['no v1 signature', String(NOW), 'v0=abc'],
    ['a short signature', String(NOW), 'v1=ffc2'],
    ['not hex', String(NOW), `v1=${'zz'.repeat(32)}`],
    ['an empty header', String(NOW), ''],
  ])('refuse %s', (_case, timestamp, header) => {
    const given = header ?? signatureHeader('whsec_test', NOW, '{}');
    expect(verifySignature('whsec_test', timestamp, '{}', given, 300, NOW)).toBe(false);
  });

  it('accept a header holding the v1 signature beside others (a scheme change)', () => {
    const header = `v2=abcdef, ${signatureHeader('whsec_test', NOW, '{}')}`;
    expect(verifySignature('whsec_test', String(NOW), '{}', header, 300, NOW)).toBe(true);
  });
});
