/**
 * The pieces of two-factor sign-in that touch no database: RFC 6238 TOTP secrets and codes
 * (otplib), their otpauth URL and QR code, and one-time recovery codes.
 */
import { randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import { RECOVERY_CODE_COUNT, TOTP_DIGITS, TOTP_PERIOD_SECONDS } from '@perch/shared';
import { sha256Hex } from '../../lib/tokens.js';

/** The issuer authenticator apps show beside the account name. */
export const TOTP_ISSUER = 'Perch';

const TOTP_CODE = new RegExp(`^\\d{${TOTP_DIGITS}}$`);

/** A new random secret (160 bits, as RFC 4226 recommends), base32. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** A secret as typed or pasted back: upper case, without spaces. */
export function normaliseSecret(secret: string): string {
  return secret.replace(/\s+/g, '').toUpperCase();
}

/** The otpauth:// URL authenticator apps read (from the QR code or typed in). */
export function otpauthUrl(username: string, secret: string): string {
  return generateURI({
    issuer: TOTP_ISSUER,
    label: username,
    secret,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
}

/** A PNG QR code of `text`, as a data: URL (the encoder loads with the first 2FA set-up). */
export async function qrCodeDataUrl(text: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
}

/** The code without the spaces or dashes people type into it. */
function compact(code: string): string {
  return code.replace(/[\s-]+/g, '');
}

/** True when `code` has the shape of a TOTP code (six digits), not of a recovery code. */
export function looksLikeTotp(code: string): boolean {
  return TOTP_CODE.test(compact(code));
}

/**
 * Checks a TOTP code against `secret`, accepting the previous and the next 30 s step too (clock
 * drift), but no step at or before `afterStep` (a code already used). Answers the time step the
 * code belongs to, or null.
 */
export async function verifyTotp(
  secret: string,
  code: string,
  afterStep: number | null,
  now = Date.now(),
): Promise<number | null> {
  const token = compact(code);
  if (!TOTP_CODE.test(token)) return null;
  const result = await verify({
    secret,
    token,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    epoch: Math.floor(now / 1000),
    epochTolerance: TOTP_PERIOD_SECONDS,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  // The functional API types TOTP and HOTP results alike; only a TOTP result has a time step.
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

// Crockford's base32 without easily confused letters (as invitation codes).
const RECOVERY_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
// 16 characters: about 78 bits, so the stored hashes cannot be reversed by trying them all.
const RECOVERY_LENGTH = 16;
const RECOVERY_CODE = new RegExp(`^[${RECOVERY_ALPHABET}]{${RECOVERY_LENGTH}}$`);

/** RECOVERY_CODE_COUNT new recovery codes like 7K3M-Q9TX-4WZB-8RTA. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from(
      { length: RECOVERY_LENGTH },
      () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)],
    ).join('');
    return chars.match(/.{4}/g)?.join('-') ?? chars;
  });
}

/**
 * What is stored of a recovery code: SHA-256 of the code in upper case without dashes or spaces,
 * or null when `code` cannot be a recovery code.
 */
export function recoveryCodeHash(code: string): string | null {
  const normalised = compact(code).toUpperCase();
  return RECOVERY_CODE.test(normalised) ? sha256Hex(normalised) : null;
}
