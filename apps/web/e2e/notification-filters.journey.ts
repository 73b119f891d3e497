import { FILTER_MESSAGES } from '@perch/shared';
import { expect, test, type Page } from '@playwright/test';
import {
  pickBusyDemoHandle,
  startFakeTelegramServer,
  type FakeTelegramServer,
} from './notify-fakes';
import { startPerchServer, type PerchServer } from './perch-server';
import { registerUser } from './accounts';

const CHAT_ID = '424242077';
/** Demo handles starting with `bench` post about 2,000 tweets a day (demo-source.ts). */
const CANDIDATES = Array.from({ length: 24 }, (_, index) => `bench_${index}`);
/** A word no demo tweet holds: with it as the only "notify about" word, every tweet is held back. */
const NEVER = 'zyzzyva';

let telegram: FakeTelegramServer;
let server: PerchServer;

test.beforeAll(async () => {
  telegram = await startFakeTelegramServer({ botUsername: 'perch_filters_bot' });
  server = await startPerchServer({
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_BASE_URL: telegram.baseUrl,
    MONITOR_INTERVAL_SECONDS: '5',
    DEMO_PAGE_DELAY_MS: '0',
  });
});

test.afterAll(async () => {
  await server?.stop();
  await telegram?.close();
});

/** A call of the signed-in page (with its CSRF token). */
async function api(page: Page, method: 'post' | 'put', path: string, data: unknown) {
  const csrf = (await page.context().cookies()).find((c) => c.name === 'perch_csrf')?.value ?? '';
  const response = await page.request[method](`${server.origin}/api/v1${path}`, {
    data,
    headers: { 'x-csrf-token': csrf },
  });
  expect(response.ok(), await response.text()).toBe(true);
  return (await response.json()) as { data: Record<string, unknown> };
}

test('filter a handle: the summary shows, its next tweet is held back and the log says why', async ({
  page,
}) => {
  test.setTimeout(360_000);
  await registerUser(page, server.origin, 'curie', server.firstStartCode);
  // X and Telegram connected, forwarding on, Telegram switched on for a handle about to post.
  await api(page, 'post', '/settings', {
    twitter_username: 'marie_curie',
    telegram_chat_id: CHAT_ID,
  });
  await api(page, 'post', '/bot/start', {});
  const now = Date.now();
  const busy = await pickBusyDemoHandle(CANDIDATES, now + 30_000, now + 200_000);
  const added = await api(page, 'post', '/handles', {
    username: busy.handle,
    backfill_days: 1,
    async: true,
  });
  const { id } = added.data.handle as { id: number };
  await api(page, 'put', `/handles/${id}/notifications`, { telegramEnabled: true });

  // The dashboard: no filter yet; the editor sets one.
  await page.goto(`${server.origin}/dashboard/`);
  const row = page
    .getByTestId('handle-panel')
    .getByTestId('handle-row')
    .filter({ hasText: `@${busy.handle}` });
  await expect(row.getByTestId('filter-summary')).toHaveCount(0);
  await row.getByRole('button', { name: `Notification filter for @${busy.handle}` }).click();
  const dialog = page.getByRole('dialog', { name: `Notification filter for @${busy.handle}` });
  const include = dialog.getByRole('combobox', { name: 'Notify only about tweets with' });
  // A word in both lists is refused before anything is sent.
  await include.fill(NEVER);
  await include.press('Enter');
  const exclude = dialog.getByRole('combobox', { name: 'Never notify about tweets with' });
  await exclude.fill(NEVER.toUpperCase());
  await exclude.press('Enter');
  await dialog.getByRole('button', { name: 'Save filter' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(FILTER_MESSAGES.termInBoth(NEVER));
  // Backspace in an empty tags input removes its last tag.
  await exclude.press('Backspace');
  await exclude.fill('sponsored');
  await exclude.press('Enter');
  await dialog.getByRole('button', { name: 'Save filter' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(FILTER_MESSAGES.saved(busy.handle))).toBeVisible();
  await expect(row.getByTestId('filter-summary')).toHaveText(
    `With “${NEVER}” · without “sponsored”`,
  );
  // It is stored: a reload shows it, and the editor opens with it.
  await page.reload();
  await expect(row.getByTestId('filter-summary')).toHaveText(
    `With “${NEVER}” · without “sponsored”`,
  );

  // The handle's next tweet is found and held back: nothing reaches Telegram, the log says why.
  await page.goto(`${server.origin}/dashboard/settings`);
  const held = page
    .getByTestId('delivery-log')
    .getByTestId('delivery-row')
    .filter({ hasText: `@${busy.handle}` })
    .first();
  await expect(held).toContainText('Filtered', { timeout: 180_000 });
  await expect(held.getByTestId('delivery-note')).toHaveText(
    FILTER_MESSAGES.heldBackNoneOf([NEVER]),
  );
  const heldLink =
    (await held.getByRole('link', { name: 'Open tweet' }).getAttribute('href')) ?? '';
  const heldId = /status\/(\d+)/.exec(heldLink)?.[1] ?? 'none';
  const sentIds = () =>
    telegram.messagesTo(CHAT_ID).map((message) => /status\/(\d+)/.exec(message.raw)?.[1]);
  expect(sentIds()).not.toContain(heldId);

  // Cleared, the next tweet goes out again.
  await page.goto(`${server.origin}/dashboard/`);
  await row.getByRole('button', { name: `Notification filter for @${busy.handle}` }).click();
  await dialog.getByRole('button', { name: 'Clear filter' }).click();
  await expect(page.getByText(FILTER_MESSAGES.cleared(busy.handle))).toBeVisible();
  await expect(row.getByTestId('filter-summary')).toHaveCount(0);
  const before = sentIds().length;
  await expect
    .poll(() => sentIds().length, { timeout: 180_000, intervals: [1_000] })
    .toBeGreaterThan(before);
  expect(sentIds()).not.toContain(heldId);
});
