import { ADMIN_MESSAGES } from '@perch/shared';
import { expect, test } from '@playwright/test';
import { registerSuperAdmin } from './accounts';
import { servePerch } from './journey-servers';
import { recordShown } from './shown-texts';

/** The code the demo collector account accepts (DEMO_CHALLENGE_CODE). */
const CHALLENGE_CODE = '246810';
/** A demo handle posting about 2,000 tweets a day: a 3-day backfill takes many pages. */
const BUSY_HANDLE = 'bench_admin';

const server = servePerch({
  DEMO_CHALLENGE_CODE: CHALLENGE_CODE,
  // Slow enough that the backfill is seen collecting before it is ready.
  DEMO_PAGE_DELAY_MS: '300',
});

test('super admin: answers the collector account challenge, sees the admin sections, follows a handle in the demo panel', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await registerSuperAdmin(page, server, 'grace');

  // Settings: the collector account asked for a code when collection started.
  await page.getByRole('link', { name: 'Settings' }).first().click();
  const challenge = page.getByTestId('challenge-panel');
  const awaiting = challenge.getByTestId('challenge-awaiting');
  await expect(awaiting).toBeVisible();
  await expect(awaiting.getByText('Verification code needed')).toBeVisible();
  await expect(awaiting.getByText(ADMIN_MESSAGES.collectionPausedByChallenge)).toBeVisible();
  const code = awaiting.getByLabel('Verification code');
  const submit = awaiting.getByRole('button', { name: 'Submit code' });
  await expect(submit).toBeDisabled();
  await code.fill('   ');
  await expect(submit).toBeDisabled();

  // A wrong code: checked, refused, and asked for again.
  await code.fill('135790');
  await submit.click();
  await expect(challenge.getByText('Checking...')).toBeVisible();
  await expect(awaiting.getByText(ADMIN_MESSAGES.codeRejected)).toBeVisible({ timeout: 20_000 });

  // The right code: accepted, and the panel is calm again.
  await awaiting.getByLabel('Verification code').fill(CHALLENGE_CODE);
  await awaiting.getByRole('button', { name: 'Submit code' }).click();
  await expect(challenge.getByText('Checking...')).toBeVisible();
  await expect(challenge.getByText('No verification needed')).toBeVisible({ timeout: 20_000 });
  await expect(challenge.getByText(ADMIN_MESSAGES.codeAccepted)).toBeVisible();
  await expect(challenge.getByLabel('Verification code')).toHaveCount(0);

  // The Admin page and its sections.
  await page.getByRole('link', { name: 'Admin' }).first().click();
  await expect(page.getByRole('heading', { name: 'Admin Dashboard' })).toBeVisible();
  const users = page.getByRole('region', { name: /^Registered Users/ });
  await expect(users).toBeVisible();
  await expect(users.getByText('grace', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('region', { name: 'Collectors' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Global Handle Management' })).toBeVisible();

  // The handles demo, hidden until asked for.
  const demo = page.getByTestId('handles-demo');
  await expect(demo.getByTestId('demo-panel')).toHaveCount(0);
  await demo.getByRole('button', { name: 'Show TanStack Query Demo' }).click();
  const panel = demo.getByTestId('demo-panel');
  await expect(
    panel.getByText('No handles added yet. Add your first Twitter handle above.'),
  ).toBeVisible();
  await expect(panel.getByText('Handles (0/10)')).toBeVisible();

  // Add with 3 days: Collecting, then Ready, and its analytics become available.
  await panel.getByPlaceholder('Enter Twitter handle (e.g., @username)').fill(`@${BUSY_HANDLE}`);
  await panel.getByLabel('Backfill days').fill('3');
  const added = await recordShown(page, `@${BUSY_HANDLE} added successfully!`);
  await panel.getByRole('button', { name: 'Add' }).click();
  await added();
  await expect(panel.getByText('Handles (1/10)')).toBeVisible();
  const row = panel.getByRole('listitem', { name: `@${BUSY_HANDLE}` });
  const badge = row.getByTestId('demo-handle-status');
  await expect(badge).toHaveText('Collecting', { timeout: 20_000 });
  await expect(row.getByRole('button', { name: 'Selected' })).toBeVisible();
  const progress = panel.getByTestId('demo-progress-panel');
  await expect(progress).toContainText(`Progress of @${BUSY_HANDLE}`);
  await expect(progress.getByText('Analytics Available: No')).toBeVisible();

  await expect(badge).toHaveText('Ready', { timeout: 120_000 });
  await expect(progress.getByText('Analytics Available: Yes')).toBeVisible();
  await expect(progress.getByTestId('demo-progress-percent')).toHaveText('100%');
  await expect(row).toContainText(/Tweets: [1-9][\d,]* \| Followers: [1-9]/);

  // Hide Demo puts it away again.
  await demo.getByRole('button', { name: 'Hide Demo' }).click();
  await expect(demo.getByTestId('demo-panel')).toHaveCount(0);
});
