import { expect, test } from '@playwright/test';
import { fillRegisterForm, signIn, signOut, submitSignIn } from './accounts';
import { servePerch } from './journey-servers';

const server = servePerch({ SUPPORT_EMAIL: 'help@perch.example' });

test('first start: register the super admin, sign out and in, deep links, not found', async ({
  page,
}) => {
  const username = 'ada';

  // Signed out, the dashboard sends us to the sign-in page.
  await page.goto(`${server.origin}/`);
  await expect(page).toHaveURL(/\/dashboard\/login$/);

  // Register with the code the first start printed.
  await page.getByRole('link', { name: 'Create an account' }).click();
  await expect(page).toHaveURL(/\/dashboard\/register$/);
  // The invitation hint names the installation's own support address.
  await expect(page.getByRole('link', { name: 'help@perch.example' })).toBeVisible();
  await fillRegisterForm(page, username);
  await expect(page.getByText('Passwords match')).toBeVisible();
  await page.getByLabel('Invitation code').fill(server.firstStartCode);
  await page.getByRole('button', { name: 'Create account' }).click();

  // The shell: header, the username badge, and the Admin entry for the super admin.
  await expect(page.getByText('X Monitoring and Analytics System')).toBeVisible();
  await expect(page.getByTestId('user-badge')).toHaveText(username);
  await expect(page).toHaveURL(/\/dashboard\/?$/);
  await expect(page.getByRole('link', { name: 'Admin' })).toBeVisible();

  // Sign out.
  await signOut(page);

  // A wrong password shows the spec's message.
  await submitSignIn(page, username, 'not-the-password');
  await expect(
    page.getByText('The username or password you entered is incorrect. Please try again.'),
  ).toBeVisible();

  // The right one lands in the shell.
  await signIn(page, username);

  // A reload on a deep link keeps the session and the page.
  await page.goto(`${server.origin}/dashboard/settings`);
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  await expect(page.getByTestId('user-badge')).toHaveText(username);

  // An unknown route shows the not found page.
  await page.goto(`${server.origin}/dashboard/no-such-page`);
  await expect(page.getByText('Page Not Found')).toBeVisible();
  await expect(
    page.getByText("The page you're looking for doesn't exist or has been moved."),
  ).toBeVisible();
  await expect(page.getByRole('link', { name: 'Go back home' })).toBeVisible();

  // The first-start invitation is spent: the server never prints a new one after a user exists.
  expect(server.output().match(/invitation code:/g)).toHaveLength(1);
});

test('the API reference: Swagger UI at /api/docs lists the routes of the served server', async ({
  page,
}) => {
  // Served from swagger-ui's own package by the bundled server that `npm start` runs.
  await page.goto(`${server.origin}/api/docs/`);
  await expect(page.getByRole('heading', { name: /Perch API/ })).toBeVisible();
  await expect(page.getByText('/api/v1/auth/check').first()).toBeVisible();
});
