import { SECURITY_MESSAGES } from '@perch/shared';
import { expect, test, type Page } from '@playwright/test';
import { registerUser, signOut, submitSignIn } from './accounts';
import { servePerch, withPerchServer } from './journey-servers';
import { authenticator, failSignIns } from './security-helpers';

const USERNAME = 'ada';
const PASSWORD = 'Corr3ct-Horse-Battery!';

const server = servePerch();

/** The password step; answers the second step's form. */
async function enterPassword(page: Page) {
  await page.goto(`${server.origin}/dashboard/login`);
  await submitSignIn(page, USERNAME, PASSWORD);
  const step = page.getByRole('form', { name: 'Two-factor sign-in' });
  await expect(step.getByText(SECURITY_MESSAGES.twoFactorRequired)).toBeVisible();
  return step;
}

test('two-factor sign-in: turn it on, sign in with a code or a recovery code, sign out the other sessions', async ({
  page,
  browser,
}) => {
  // Up to two waits for a fresh 30 s step of the authenticator.
  test.setTimeout(180_000);
  await registerUser(page, server.origin, USERNAME, server.firstStartCode, { password: PASSWORD });

  // The Security Dashboard (not in the menu): turn on two-factor sign-in.
  await page.goto(`${server.origin}/dashboard/security`);
  await expect(page.getByRole('heading', { name: 'Security Dashboard' })).toBeVisible();
  const card = page.getByTestId('security-two-factor');
  await expect(card.getByTestId('two-factor-status')).toHaveText('Off');
  await card.getByRole('button', { name: 'Turn on' }).click();
  const setup = card.getByRole('form', { name: 'Set up two-factor sign-in' });
  await expect(
    setup.getByRole('img', { name: 'QR code for your authenticator app' }),
  ).toBeVisible();
  const secret = (await setup.getByTestId('totp-secret').innerText()).replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  const nextCode = authenticator(secret);
  await setup.getByLabel('6-digit code').fill(await nextCode());
  await setup.getByRole('button', { name: 'Verify and turn on' }).click();

  // The recovery codes, shown once.
  const recovery = card.getByTestId('recovery-codes');
  await expect(recovery.getByText(SECURITY_MESSAGES.twoFactorEnabled)).toBeVisible();
  const codes = await recovery
    .getByRole('list', { name: 'Your recovery codes' })
    .getByRole('listitem')
    .allInnerTexts();
  expect(codes).toHaveLength(10);
  await recovery.getByRole('button', { name: 'I have saved them' }).click();
  await expect(card.getByTestId('two-factor-status')).toHaveText('On');
  await signOut(page);

  // The password alone no longer signs in: the second step asks for the code.
  let step = await enterPassword(page);
  await expect(page.getByTestId('user-badge')).toHaveCount(0);
  const codeField = step.getByLabel('Authentication code');
  await expect(codeField).toHaveAttribute('autocomplete', 'one-time-code');
  await expect(codeField).toHaveAttribute('inputmode', 'numeric');
  await codeField.fill('000000');
  await step.getByRole('button', { name: 'Verify' }).click();
  await expect(step.getByText(SECURITY_MESSAGES.twoFactorCodeInvalid)).toBeVisible();
  await codeField.fill(await nextCode());
  await step.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByTestId('user-badge')).toHaveText(USERNAME);
  await expect(page).toHaveURL(/\/dashboard\/?$/);

  // Back returns to the password; a recovery code works instead of the app's code, once.
  await signOut(page);
  step = await enterPassword(page);
  await step.getByRole('button', { name: 'Back' }).click();
  await expect(page.getByLabel('Username')).toHaveValue(USERNAME);
  step = await enterPassword(page);
  await step.getByRole('button', { name: 'Use a recovery code' }).click();
  await step.getByLabel('Recovery code').fill(codes[0]!);
  await step.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByTestId('user-badge')).toHaveText(USERNAME);

  // A second browser signs in too.
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  const otherStep = await enterPassword(otherPage);
  await otherStep.getByLabel('Authentication code').fill(await nextCode());
  await otherStep.getByRole('button', { name: 'Verify' }).click();
  await expect(otherPage.getByTestId('user-badge')).toHaveText(USERNAME);

  // The first one signs out every other session...
  await page.goto(`${server.origin}/dashboard/security`);
  const sessions = page.getByTestId('security-sessions');
  await expect(sessions.getByText('This device')).toBeVisible();
  await sessions.getByRole('button', { name: 'Sign out everywhere else' }).click();
  await page
    .getByRole('dialog', { name: 'Sign out everywhere else' })
    .getByRole('button', { name: 'Sign out everywhere else' })
    .click();
  await expect(sessions.getByText(SECURITY_MESSAGES.otherSessionsRevoked(1))).toBeVisible();

  // ...so the second browser's next page is the sign-in page, and the first stays signed in.
  await otherPage.goto(`${server.origin}/dashboard/settings`);
  await expect(otherPage).toHaveURL(/\/dashboard\/login$/);
  await expect(otherPage.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await other.close();
  await page.reload();
  await expect(page.getByTestId('user-badge')).toHaveText(USERNAME);
});

test('security alerts: an unencrypted connection and repeated failed sign-ins; a dismissed critical alert stays dismissed', async ({
  browser,
  request,
}) => {
  // Reached by name through a proxy that speaks plain HTTP: not a local install any more.
  await withPerchServer({ TRUST_PROXY: 'true' }, async (proxied) => {
    const context = await browser.newContext({
      extraHTTPHeaders: { 'x-forwarded-host': 'perch.example.net' },
    });
    const page = await context.newPage();
    await registerUser(page, proxied.origin, USERNAME, proxied.firstStartCode, {
      password: PASSWORD,
    });
    const panel = page.getByRole('region', { name: 'Security alerts' });
    const critical = panel.getByTestId('security-alert').filter({
      hasText: SECURITY_MESSAGES.alertInsecureTransport,
    });
    await expect(critical).toBeVisible();
    await expect(critical.getByText('Critical: Unencrypted connection')).toBeVisible();

    await failSignIns(request, proxied.origin, USERNAME, 6);
    await page.reload();
    const others = panel.getByRole('button', { name: '1 security alert' });
    await expect(others).toBeVisible();
    await expect(panel.getByText(SECURITY_MESSAGES.alertRepeatedFailures(6))).toHaveCount(0);
    await others.click();
    await expect(panel.getByText(SECURITY_MESSAGES.alertRepeatedFailures(6))).toBeVisible();

    // Dismissed, the critical alert stays away after a reload; the others stay.
    await critical.getByRole('button', { name: 'Dismiss alert' }).click();
    await expect(critical).toHaveCount(0);
    await page.reload();
    await expect(others).toBeVisible();
    await expect(panel.getByText(SECURITY_MESSAGES.alertInsecureTransport)).toHaveCount(0);

    await others.click();
    await panel.getByRole('link', { name: 'Review security' }).click();
    await expect(page).toHaveURL(/\/dashboard\/security$/);
    await expect(page.getByRole('heading', { name: 'Security Dashboard' })).toBeVisible();
    await context.close();
  });
});
