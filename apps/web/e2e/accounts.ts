import { expect, type Page } from '@playwright/test';
import type { PerchServer } from './perch-server';

/** The password every journey's accounts use. */
export const JOURNEY_PASSWORD = 'Corr3ct-Horse!';

export interface AccountOptions {
  /** The account's password, if not JOURNEY_PASSWORD. */
  password?: string;
}

/**
 * Fills the open register page's form for `username` (email `username@example.com`), and the
 * invitation code when there is one; sends nothing.
 */
export async function fillRegisterForm(
  page: Page,
  username: string,
  { password = JOURNEY_PASSWORD, code }: AccountOptions & { code?: string } = {},
) {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Email').fill(`${username}@example.com`);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  if (code !== undefined) await page.getByLabel('Invitation code').fill(code);
}

/** Sends the filled register form and waits until `username` is signed in. */
export async function submitRegisterForm(page: Page, username: string) {
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByTestId('user-badge')).toHaveText(username);
}

/** Registers `username` through the page with an invitation code and waits until signed in. */
export async function registerUser(
  page: Page,
  origin: string,
  username: string,
  code: string,
  options: AccountOptions = {},
) {
  await page.goto(`${origin}/dashboard/register`);
  await fillRegisterForm(page, username, { ...options, code });
  await submitRegisterForm(page, username);
}

/** Registers the first account of `server` with its first-start invitation: the super admin. */
export async function registerSuperAdmin(
  page: Page,
  server: PerchServer,
  username: string,
  options: AccountOptions = {},
) {
  await registerUser(page, server.origin, username, server.firstStartCode, options);
}

/** Fills the open sign-in page's form and sends it; waits for nothing. */
export async function submitSignIn(page: Page, username: string, password = JOURNEY_PASSWORD) {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in on the open sign-in page and waits until signed in. */
export async function signIn(page: Page, username: string, password = JOURNEY_PASSWORD) {
  await submitSignIn(page, username, password);
  await expect(page.getByTestId('user-badge')).toHaveText(username);
}

/** Signs out with the header's Logout button and waits for the sign-in page. */
export async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/dashboard\/login$/);
}
