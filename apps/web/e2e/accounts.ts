import { expect, type Page } from '@playwright/test';

/** The password every journey's accounts use. */
export const JOURNEY_PASSWORD = 'Corr3ct-Horse!';

/** Registers `username` through the page with an invitation code and waits until signed in. */
export async function registerUser(page: Page, origin: string, username: string, code: string) {
  await page.goto(`${origin}/dashboard/register`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Email').fill(`${username}@example.com`);
  await page.getByLabel('Password', { exact: true }).fill(JOURNEY_PASSWORD);
  await page.getByLabel('Confirm password').fill(JOURNEY_PASSWORD);
  await page.getByLabel('Invitation code').fill(code);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByTestId('user-badge')).toHaveText(username);
}
