import { X_WEB_MESSAGES } from '@perch/shared';
import { expect, test } from '@playwright/test';
import { registerSuperAdmin } from './accounts';
import { addHandleByApi, waitForBackfill } from './perch-api';
import { servePerchWith } from './journey-servers';
import { startFakeXWebWithAccounts, xWebEnv } from './x-web-fakes';

const { server, fake } = servePerchWith(startFakeXWebWithAccounts, xWebEnv, { postgres: true });

test("x-web: a super admin adds a collector account, answers X's emailed code in Settings, and collection runs", async ({
  page,
}) => {
  test.setTimeout(120_000);
  fake.addAccount({
    username: 'orbit_reader',
    password: 'Tr0ub4dor&3',
    email: 'reader@example.com',
    emailCode: true,
  });
  await registerSuperAdmin(page, server, 'marta');

  // Admin page: the pool is empty; a wrong auth_token is refused before anything is sent.
  await page.goto(`${server.origin}/dashboard/admin`);
  const section = page.getByTestId('x-web-accounts');
  await expect(section.getByTestId('x-web-accounts-empty')).toBeVisible();
  const form = section.getByRole('form', { name: 'Add an account' });
  await form.getByLabel('X username').fill('orbit_reader');
  await form.getByLabel('auth_token cookie').fill('nope');
  await form.getByRole('button', { name: 'Add account' }).click();
  await expect(form.getByText(X_WEB_MESSAGES.authTokenRequired)).toBeVisible();

  // By password: it signs in when collection first needs it.
  await form.getByText('Password', { exact: true }).click();
  await form.getByLabel('Account password').fill('Tr0ub4dor&3');
  await form.getByLabel('Email address').fill('reader@example.com');
  await form.getByRole('button', { name: 'Add account' }).click();
  await expect(page.getByText(X_WEB_MESSAGES.accountAdded('orbit_reader'))).toBeVisible();
  const row = section.getByRole('row', { name: 'Collector account @orbit_reader' });
  await expect(row).toContainText('Not signed in yet');

  // Following a handle makes the collector sign in; X asks for the emailed code.
  await addHandleByApi(page, server.origin, 'orbitnews');
  await expect.poll(() => fake.mailbox('orbit_reader').length, { timeout: 30_000 }).toBe(1);
  await page.reload();
  await expect(row).toContainText('Waiting for code');
  await expect(row).toContainText('Waits at LoginAcid');

  // Settings: the verification panel names the account; a wrong code says what X said.
  await page.goto(`${server.origin}/dashboard/settings`);
  const panel = page.getByTestId('challenge-panel');
  await expect(panel.getByTestId('challenge-account')).toHaveText(
    '@orbit_reader, sign-in step LoginAcid',
  );
  await expect(panel.getByTestId('challenge-since')).toContainText('Waiting since');
  await panel.getByRole('textbox', { name: 'Verification code' }).fill('000000');
  await panel.getByRole('button', { name: 'Submit code' }).click();
  await expect(panel.getByTestId('challenge-submit-error')).toContainText(
    'X did not accept the code for @orbit_reader',
  );
  await expect(panel.getByTestId('challenge-awaiting')).toBeVisible();

  // The right code continues the same sign-in: no new email, collection runs.
  await panel
    .getByRole('textbox', { name: 'Verification code' })
    .fill(fake.mailbox('orbit_reader')[0]!);
  await panel.getByRole('button', { name: 'Submit code' }).click();
  await expect(panel.getByText('No verification needed')).toBeVisible();
  await expect(panel.getByText(X_WEB_MESSAGES.codeAccepted('orbit_reader'))).toBeVisible();
  expect(fake.mailbox('orbit_reader')).toHaveLength(1);
  await waitForBackfill(page, server.origin, 'orbitnews');

  await page.goto(`${server.origin}/dashboard/admin`);
  await expect(row).toContainText('Active');
  await expect(row).toContainText(/Timeline: \d+ \/ 50/);
  await expect(row).toContainText(/Lookup: \d+ \/ 95/);
});

test.describe('x-web against a changing X', () => {
  const healing = servePerchWith(startFakeXWebWithAccounts, xWebEnv, { postgres: true });

  test('x-web heals itself: X rotates its query ids, then refuses the server with Cloudflare, and the Admin page says so', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const fake = healing.fake;
    const server = healing.server;
    await registerSuperAdmin(page, server, 'ines');

    // Cookies lead the form: a second account by the cookies of a signed-in browser.
    fake.addAccount({ username: 'orbit_second', password: 'x', email: 'second@example.com' });
    const session = fake.issueSession('orbit_second');
    await page.goto(`${server.origin}/dashboard/admin`);
    const form = page.getByTestId('x-web-accounts').getByRole('form', { name: 'Add an account' });
    await expect(form.getByTestId('x-web-cookies-help')).toBeVisible();
    await form.getByLabel('X username').fill('orbit_second');
    await form.getByLabel('auth_token cookie').fill(session.authToken);
    await form.getByLabel('ct0 cookie').fill(session.ct0);
    await form.getByRole('button', { name: 'Add account' }).click();
    await expect(page.getByText(X_WEB_MESSAGES.accountAdded('orbit_second'))).toBeVisible();

    await addHandleByApi(page, server.origin, 'orbitnews');
    await waitForBackfill(page, server.origin, 'orbitnews');
    await page.reload();
    // The operations in use were read from x.com's client.
    const operations = page.getByTestId('x-web-operations');
    await expect(operations.getByTestId('x-web-operations-age')).toContainText(
      'Operations in use were read from x.com',
    );

    // X rotates every query id: a new handle is collected all the same, with no restart.
    fake.rotateQueryIds();
    const rotated = fake.operations();
    await addHandleByApi(page, server.origin, 'launchlog');
    await waitForBackfill(page, server.origin, 'launchlog');
    await page.reload();
    const timeline = operations.getByRole('row', { name: 'Operation UserTweetsAndReplies' });
    await expect(timeline).toContainText(rotated.UserTweetsAndReplies.queryId);
    await expect(timeline).toContainText('From x.com');

    // Cloudflare refuses the server (the next poll meets it): the pool pauses and no account is
    // taken out.
    fake.refuseWithHtml('always');
    const accounts = page.getByTestId('x-web-accounts');
    const secondAccount = accounts.getByRole('row', { name: 'Collector account @orbit_second' });
    await expect
      .poll(
        async () => {
          await page.reload();
          // The pool's state arrives with the accounts: read the banner once they show.
          await expect(secondAccount).toBeVisible();
          return page.getByTestId('x-web-pool-paused').isVisible();
        },
        { timeout: 45_000 },
      )
      .toBe(true);
    const banner = page.getByTestId('x-web-pool-paused');
    await expect(banner).toContainText(X_WEB_MESSAGES.poolPaused);
    await expect(banner).toContainText('Just a moment');
    await expect(secondAccount).toContainText('Active');
    fake.refuseWithHtml(0);
  });
});
