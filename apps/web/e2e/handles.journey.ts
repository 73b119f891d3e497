import { expect, test } from '@playwright/test';
import { registerSuperAdmin } from './accounts';
import { addHandleInPanel, handlePanel, handleRow } from './handle-rows';
import { addHandleByApi } from './perch-api';
import { servePerch } from './journey-servers';
import { recordShown } from './shown-texts';

// A page delay of 500 ms keeps the demo backfill of a week in progress for several seconds: long
// enough for the badge's percentage to be seen even when a loaded machine renders the row late.
const server = servePerch({ DEMO_PAGE_DELAY_MS: '500' });

test('add a handle, watch it collect to Ready, browse tweets, hit the limit, remove', async ({
  page,
}) => {
  // A week's backfill at a page each 500 ms, then ten handles: past a minute on a slow machine.
  test.setTimeout(120_000);
  await registerSuperAdmin(page, server, 'hopper');
  const panel = handlePanel(page);
  await expect(page.getByText('Demo data')).toBeVisible();

  // For a person who asks their system for less motion, an endless animation (a collecting
  // bar's stripes, a spinner) runs once, at once; without that wish it runs on.
  const iterations = () =>
    page.evaluate(() => {
      const probe = document.createElement('div');
      probe.style.animation = 'perch-probe 1s linear infinite';
      document.body.append(probe);
      const count = getComputedStyle(probe).animationIterationCount;
      probe.remove();
      return count;
    });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  expect(await iterations()).toBe('1');
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  expect(await iterations()).toBe('infinite');

  // Add with 7 days: it appears at once and its badge moves on to 'Ready', showing a percentage
  // on the way (recorded in the page as it changes: a loaded machine may answer Playwright's
  // looks too slowly to catch it).
  const added = await recordShown(page, '@prolific_ada added successfully!');
  const collecting = await recordShown(page, /Collecting \d+%/);
  await addHandleInPanel(page, '@prolific_ada', { days: 7 });
  await added();
  const row = handleRow(page, 'prolific_ada');
  await expect(row).toBeVisible();
  await collecting();
  await expect(row.getByTestId('handle-status')).toHaveText(/Ready/, { timeout: 45_000 });
  await expect(row).toContainText('7 days');

  // The same handle again, in another case: the live hint says so.
  await panel.getByLabel('Twitter handle').fill('PROLIFIC_ADA');
  await expect(panel.getByText('Already monitoring @prolific_ada')).toBeVisible();
  await panel.getByLabel('Twitter handle').fill('');

  // Recent tweets of the collected handle.
  await row.getByRole('button', { name: 'Recent tweets from @prolific_ada' }).click();
  const dialog = page.getByRole('dialog', { name: 'Recent tweets from @prolific_ada' });
  await expect(dialog.getByTestId('recent-tweet').first()).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // Nine more: the limit of 10 disables adding.
  for (let i = 0; i < 9; i++) await addHandleByApi(page, server.origin, `quiet_user${i}`);
  await page.reload();
  await expect(page.getByTestId('handle-count').first()).toHaveText('10/10');
  await panel.getByLabel('Twitter handle').fill('one_more');
  await expect(panel.getByRole('button', { name: 'Add handle' })).toBeDisabled();
  await expect(panel.getByText('Handle limit reached (10)')).toBeVisible();
  await panel.getByLabel('Twitter handle').fill('');

  // Remove, confirming; it stays gone after a reload.
  await row.getByRole('button', { name: 'Remove @prolific_ada' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove handle' });
  await expect(confirm.getByText('Are you sure you want to remove this handle?')).toBeVisible();
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(row).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('handle-count').first()).toHaveText('9/10');
  await expect(row).toHaveCount(0);
  await expect(panel.getByTestId('handle-row')).toHaveCount(9);
});
