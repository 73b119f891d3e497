import { X_USAGE_MESSAGES } from '@perch/shared';
import { expect, test } from '@playwright/test';
import { registerSuperAdmin } from './accounts';
import { addHandleByApi, waitForBackfill } from './perch-api';
import { servePerchWith } from './journey-servers';
import { startFakeXWithAccounts, xApiEnv } from './x-fakes';

const { server, fake } = servePerchWith(startFakeXWithAccounts, (fakeX) => ({
  ...xApiEnv(fakeX),
  X_DAILY_SPEND_LIMIT_USD: '5',
}));

test('admin: the X API usage card shows what X billed, and a banner when the credits run out', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await registerSuperAdmin(page, server, 'marta');
  for (const handle of ['orbitnews', 'tidepools']) {
    await addHandleByApi(page, server.origin, handle);
  }
  for (const handle of ['orbitnews', 'tidepools']) {
    await waitForBackfill(page, server.origin, handle);
  }

  // 204 posts and 2 users, each billed once today: $1.02 + $0.02.
  expect(fake.billing()).toMatchObject({ posts: 204, users: 2 });
  await page.goto(`${server.origin}/dashboard/admin`);
  const card = page.getByTestId('x-usage');
  await expect(card.getByRole('heading', { name: 'X API usage' })).toBeVisible();
  await expect(card.getByText('204 post reads · 2 user reads').first()).toBeVisible();
  await expect(card.getByText('$1.04').first()).toBeVisible();
  await expect(card.getByTestId('x-usage-budget')).toContainText('$1.04 of $5.00 spent today');
  await expect(card.getByText('OrbitNews')).toBeVisible();
  await expect(card.getByText('TidePools')).toBeVisible();
  await expect(page.getByTestId('x-credentials-banner')).toHaveCount(0);

  // The credits run out: the next poll gets 402, handles wait and the admin is told why.
  fake.setCredits(0);
  await expect
    .poll(() => fake.requests.some((request) => request.status === 402), { timeout: 30_000 })
    .toBe(true);
  await page.reload();
  const banner = page.getByTestId('x-credentials-banner');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText(X_USAGE_MESSAGES.creditsDepleted);
});
