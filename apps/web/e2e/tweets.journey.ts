import { expect, test, type Locator, type Page } from '@playwright/test';
import type { Tweet } from '@perch/shared';
import { registerSuperAdmin, registerUser } from './accounts';
import { expectReady, handleRow } from './handle-rows';
import { apiCall } from './perch-api';
import { servePerch } from './journey-servers';

const HANDLE = 'prolific_tess';

const server = servePerch({ DEMO_PAGE_DELAY_MS: '0' });

/** Follows the handle through the API and waits until its backfill is done. */
async function followCollected(page: Page) {
  const added = await apiCall(page, server.origin, 'POST', '/handles', {
    username: HANDLE,
    backfill_days: 7,
    async: true,
  });
  expect([201, 409]).toContain(added.status());
  await page.reload();
  const row = handleRow(page, HANDLE);
  await expectReady(row, 45_000);
  return row;
}

/** What the API answers for a query of the browser (the numbers the page must show). */
async function apiPage(page: Page, query: string) {
  const response = await page.request.get(
    `${server.origin}/api/v1/handles/${HANDLE}/tweets?limit=20&${query}`,
  );
  expect(response.status()).toBe(200);
  return ((await response.json()) as { data: { total: number; tweets: Tweet[] } }).data;
}

const count = (value: number) => value.toLocaleString('en-US');

async function likesOf(items: Locator): Promise<number[]> {
  const labels = await items
    .getByLabel(/ likes$/)
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('aria-label') ?? ''));
  return labels.map((label) => Number(label.split(' ')[0]));
}

test('browse every tweet of a handle: search, type, sort, load more, nothing found', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await registerSuperAdmin(page, server, 'tess');
  const row = await followCollected(page);
  const all = await apiPage(page, '');
  expect(all.total).toBeGreaterThan(40);

  await row.getByRole('button', { name: `Recent tweets from @${HANDLE}` }).click();
  const dialog = page.getByRole('dialog', { name: `Recent tweets from @${HANDLE}` });
  const items = dialog.getByTestId('recent-tweet');
  await expect(items).toHaveCount(20);
  await expect(dialog.getByTestId('tweets-summary')).toHaveText(`${count(all.total)} tweets`);
  await expect(dialog.getByText(`Showing 20 of ${count(all.total)}`)).toBeVisible();

  // More pages, all collected tweets reachable.
  await dialog.getByRole('button', { name: 'Load more' }).click();
  await expect(items).toHaveCount(40);
  await expect(dialog.getByText(`Showing 40 of ${count(all.total)}`)).toBeVisible();

  // A search by the prefix of a word: every tweet shown holds it, the total is the API's.
  const searched = await apiPage(page, 'q=relea');
  expect(searched.total).toBeGreaterThan(0);
  const search = dialog.getByRole('textbox', { name: 'Search tweets' });
  await search.fill('relea');
  await expect(dialog.getByTestId('tweets-summary')).toHaveText(
    `${count(searched.total)} ${searched.total === 1 ? 'tweet matches' : 'tweets match'} "relea"`,
  );
  await expect(items).toHaveCount(Math.min(20, searched.total));
  for (const text of await items.allInnerTexts()) expect(text.toLowerCase()).toContain('relea');
  await expect(items.first().locator('mark').first()).toHaveText(/relea/i);

  // Retweets only, most liked first.
  await search.fill('');
  const retweets = await apiPage(page, 'type=retweet&sort=likes');
  expect(retweets.total).toBeGreaterThan(0);
  await dialog.getByRole('combobox', { name: 'Tweet type' }).selectOption('Retweets');
  await dialog.getByRole('combobox', { name: 'Sort tweets' }).selectOption('Most liked');
  await expect(dialog.getByTestId('tweets-summary')).toHaveText(
    `${count(retweets.total)} retweets`,
  );
  await expect(items.first()).toContainText(retweets.tweets[0]!.text.slice(0, 30));
  for (const item of await items.all()) await expect(item.getByText('Retweet')).toBeVisible();
  const likes = await likesOf(items);
  expect(likes).toEqual([...likes].sort((a, b) => b - a));

  // Odd input is plain text: nothing found, said so, and the filters clear in one click.
  await search.fill('"zzq* -:(');
  await expect(dialog.getByText('No retweets match ""zzq* -:("')).toBeVisible();
  await expect(items).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Clear filters' }).click();
  await expect(search).toHaveValue('');
  await expect(dialog.getByTestId('tweets-summary')).toHaveText(`${count(all.total)} tweets`);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('on a phone the browser fills the screen and nothing overflows', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await registerUser(page, server.origin, 'tess_phone', await server.invite());
  const row = await followCollected(page);
  await row.getByRole('button', { name: `Recent tweets from @${HANDLE}` }).click();
  const dialog = page.getByRole('dialog', { name: `Recent tweets from @${HANDLE}` });
  await expect(dialog.getByTestId('recent-tweet')).toHaveCount(20);
  const box = await dialog.boundingBox();
  expect(box?.width).toBe(390);
  for (const control of [
    dialog.getByRole('textbox', { name: 'Search tweets' }),
    dialog.getByRole('combobox', { name: 'Tweet type' }),
    dialog.getByRole('combobox', { name: 'Sort tweets' }),
  ]) {
    await expect(control).toBeInViewport();
  }
  await dialog.getByRole('textbox', { name: 'Search tweets' }).fill('relea');
  await expect(dialog.getByTestId('tweets-summary')).toContainText('"relea"');
  const overflow = await page.evaluate(() => {
    const dialogs = [...document.querySelectorAll('[role="dialog"] *')];
    return dialogs.filter((node) => node.getBoundingClientRect().right > window.innerWidth + 1)
      .length;
  });
  expect(overflow).toBe(0);
  await context.close();
});
