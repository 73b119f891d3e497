import { TOTP_DIGITS, TOTP_PERIOD_SECONDS } from '@perch/shared';
import { expect, type APIRequestContext } from '@playwright/test';
import { generate } from 'otplib';

const currentStep = () => Math.floor(Date.now() / 1000 / TOTP_PERIOD_SECONDS);
/** Seconds left in the current 30 s step. */
const secondsLeftInStep = () => TOTP_PERIOD_SECONDS - ((Date.now() / 1000) % TOTP_PERIOD_SECONDS);

/**
 * An authenticator app for `secret`. The server takes each 30 s step once, and the step before
 * and after the current one too (clock drift), so every code comes from a step after the last
 * one used. The first code is the previous step's while the current step has 10 s left to use
 * it in, so three codes in a row need no wait for a new step.
 */
export function authenticator(secret: string): () => Promise<string> {
  let lastStep = Number.NEGATIVE_INFINITY;
  return async () => {
    const earliest = currentStep() - (secondsLeftInStep() >= 10 ? 1 : 0);
    const step = Math.max(earliest, lastStep + 1);
    while (step > currentStep() + 1) await new Promise((resolve) => setTimeout(resolve, 500));
    lastStep = step;
    return generate({
      secret,
      epoch: step * TOTP_PERIOD_SECONDS,
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
    });
  };
}

/**
 * `count` failed sign-ins for `username`, each from its own address (the lock is per name and
 * IP; the server must run with TRUST_PROXY for the addresses to count).
 */
export async function failSignIns(
  request: APIRequestContext,
  origin: string,
  username: string,
  count: number,
): Promise<void> {
  await request.get(`${origin}/api/v1/auth/check`);
  const { cookies } = await request.storageState();
  const csrf = cookies.find((cookie) => cookie.name === 'perch_csrf')?.value ?? '';
  for (let attempt = 1; attempt <= count; attempt += 1) {
    const response = await request.post(`${origin}/api/v1/auth/login`, {
      data: { username, password: 'not-the-password', rememberMe: false },
      headers: { 'x-csrf-token': csrf, 'x-forwarded-for': `198.51.100.${attempt}` },
    });
    expect(response.status()).toBe(401);
  }
}
