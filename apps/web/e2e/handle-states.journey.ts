import { expect, test } from '@playwright/test';
import { registerSuperAdmin, registerUser, signIn } from './accounts';
import { sidebarStatus } from './handle-rows';
import { addHandleByApi } from './perch-api';
import { servePerch, withPerchServerOn } from './journey-servers';
import { collectThenRefuseCredentials, startFakeXWithAccounts, xApiEnv } from './x-fakes';

const server = servePerch({ DEMO_PAGE_DELAY_MS: '0' });

test('a failed handle says why where the analytics would be, and Retry queues it again', async ({
  page,
}) => {
  await registerSuperAdmin(page, server, 'rosalind');
  await addHandleByApi(page, server.origin, 'suspended_demo', 1);
  await page.goto(`${server.origin}/dashboard/?handle=suspended_demo`);

  const failed = page.getByTestId('handle-failed');
  await expect(failed).toContainText('Collection of @suspended_demo failed');
  await expect(failed).toContainText('@suspended_demo is suspended');
  // The badge and the alert agree; the timer's 'stuck' verdict never shows.
  const sidebarBadge = sidebarStatus(page, 'suspended_demo');
  await expect(sidebarBadge).toHaveText('Failed');
  const panelRow = page.getByTestId('handle-row').filter({ hasText: '@suspended_demo' });
  await expect(panelRow).toContainText('@suspended_demo is suspended');
  await expect(page.getByText('Collection stuck at 0%')).toHaveCount(0);
  // Nothing collects: no collecting overlay over the (empty) numbers.
  await expect(page.getByTestId('collecting-overlay')).toHaveCount(0);

  // Retry: the server queues it again (200), the demo account is still suspended, so it fails
  // again with the same reason.
  const retried = page.waitForResponse(
    (response) =>
      /\/api\/v1\/handles\/\d+\/retry$/.test(response.url()) &&
      response.request().method() === 'POST',
  );
  await failed.getByRole('button', { name: 'Retry' }).click();
  expect((await retried).status()).toBe(200);
  await expect(page.getByTestId('handle-failed')).toContainText('@suspended_demo is suspended', {
    timeout: 15_000,
  });
  await expect(sidebarBadge).toHaveText('Failed');
});

test('a session that ends drops the previous account’s data at once; a blip is not a sign-out', async ({
  browser,
}) => {
  // Two registrations, a blip the page waits out, a sign-out and a sign-in: about 50 s on a loaded
  // two-core machine, where 60 s ran out once while the last step was still waiting.
  test.setTimeout(120_000);
  // Bob exists; Alice is signed in with a handle on screen.
  const bobContext = await browser.newContext();
  await registerUser(await bobContext.newPage(), server.origin, 'bob_b', await server.invite());
  await bobContext.close();

  const context = await browser.newContext();
  const page = await context.newPage();
  await registerUser(page, server.origin, 'alice_a', await server.invite());
  await addHandleByApi(page, server.origin, 'typical_alpha', 1);
  await page.reload();
  await expect(
    page.getByTestId('sidebar-handle').filter({ hasText: '@typical_alpha' }),
  ).toBeVisible();

  // A blip: the session check gets no answer. The app says so and keeps the session.
  await page.route('**/api/v1/auth/check', (route) => route.abort('connectionrefused'));
  await page.reload();
  const unreachable = page.getByTestId('session-unreachable');
  await expect(unreachable).toContainText('Perch is not answering', { timeout: 15_000 });
  await expect(page).not.toHaveURL(/\/login$/);
  await page.unroute('**/api/v1/auth/check');
  await unreachable.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('user-badge')).toHaveText('alice_a');
  await expect(
    page.getByTestId('sidebar-handle').filter({ hasText: '@typical_alpha' }),
  ).toBeVisible();

  // The session ends on the server's side (the cookie is gone): the next call is a 401, the
  // navigation's or a background poll's, whichever comes first (then the link is gone).
  await context.clearCookies();
  await page
    .getByRole('link', { name: 'Settings' })
    .first()
    .click({ timeout: 5_000 })
    .catch(() => undefined);
  // A loaded machine took over 10 s to answer and redirect once.
  await expect(page).toHaveURL(/\/dashboard\/login$/, { timeout: 30_000 });
  // From here on, watch for anything of Alice's reaching the screen.
  await page.evaluate(() => {
    const seen = { alpha: false };
    (window as unknown as { __seen: typeof seen }).__seen = seen;
    new MutationObserver(() => {
      if (document.body.textContent?.includes('@typical_alpha')) seen.alpha = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });

  // Bob signs in in the same tab: nothing of Alice's shows, not even for a moment.
  await signIn(page, 'bob_b');
  await expect(page.getByTestId('handle-panel')).toContainText('No handles yet');
  const seenAfter = await page.evaluate(
    () => (window as unknown as { __seen: { alpha: boolean } }).__seen.alpha,
  );
  expect(seenAfter).toBe(false);
  await context.close();
});

test('a collected handle whose X credentials are refused shows Waiting for X, never Ready', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await withPerchServerOn(startFakeXWithAccounts, xApiEnv, async (xServer, fake) => {
    // Ready, then X starts refusing the app's bearer token: the next poll waits for the
    // credentials.
    const sidebarBadge = await collectThenRefuseCredentials(page, xServer, fake, 1);
    await expect(sidebarBadge).toHaveAttribute('title', 'Waiting for X credentials');
    const waiting = page.getByTestId('handle-waiting');
    await expect(waiting).toContainText('Collection of @TidePools is waiting');
    await expect(waiting).toContainText('Waiting for X credentials');

    // A handle added meanwhile waits too, rather than 'Starting collection...' for ever.
    await addHandleByApi(page, xServer.origin, 'OrbitNews', 1);
    await page.reload();
    await expect(sidebarStatus(page, 'OrbitNews')).toHaveText('Waiting for X', {
      timeout: 15_000,
    });
  });
});
