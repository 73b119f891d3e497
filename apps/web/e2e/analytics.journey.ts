import { expect, test, type Page } from '@playwright/test';
import type { CompleteAnalytics } from '@perch/shared';
import { startPerchServer, type PerchServer } from './perch-server';

let server: PerchServer;
/** A non-UTC zone: the day and hour buckets the page shows must be the browser's own. */
const TIMEZONE = 'America/New_York';

test.beforeAll(async () => {
  // Slow enough that the collecting overlay can be seen, quick enough for a test.
  server = await startPerchServer({ DEMO_PAGE_DELAY_MS: '250' });
});

test.afterAll(async () => {
  await server?.stop();
});

test.use({ timezoneId: TIMEZONE, viewport: { width: 1280, height: 900 } });

async function register(page: Page) {
  await page.goto(`${server.origin}/dashboard/register`);
  await page.getByLabel('Username').fill('ada');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByLabel('Password', { exact: true }).fill('Corr3ct-Horse!');
  await page.getByLabel('Confirm password').fill('Corr3ct-Horse!');
  await page.getByLabel('Invitation code').fill(server.firstStartCode);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByTestId('user-badge')).toHaveText('ada');
}

/** The complete analytics the API gives for the handle, as the page would ask for them. */
async function apiComplete(page: Page, handle: string, period: number) {
  const response = await page.request.get(
    `${server.origin}/api/v1/analytics/complete/${handle}?period=${period}&timezone=${encodeURIComponent(TIMEZONE)}`,
  );
  expect(response.status()).toBe(200);
  return ((await response.json()) as { data: CompleteAnalytics }).data;
}

/** The raw numbers behind the summary cards. */
async function cardValues(page: Page, keys: readonly string[]) {
  const values: Record<string, string | null> = {};
  for (const key of keys) {
    values[key] = await page.getByTestId(`summary-card-${key}`).getAttribute('data-value');
  }
  return values;
}

const CARD_KEYS = ['total_tweets', 'total_likes', 'total_retweets', 'total_replies'] as const;

test('add a demo handle, watch the overlay, read analytics that match the API, switch to week, refresh twice', async ({
  page,
}) => {
  await register(page);
  const panel = page.getByTestId('handle-panel');
  await panel.getByLabel('Twitter handle').fill('prolific_grace');
  await panel.getByRole('button', { name: 'Add handle' }).click();

  // While the backfill runs, the blurred overlay shows its progress.
  const overlay = page.getByTestId('collecting-overlay');
  await expect(overlay).toBeVisible();
  await expect(overlay).toContainText(/\d+%/);

  // Then the analytics appear, and the overlay is gone.
  const view = page.getByTestId('analytics-view');
  await expect(overlay).toBeHidden({ timeout: 45_000 });
  await expect(page.getByTestId('summary-card-total_tweets')).toBeVisible();
  await expect(page.getByText('@prolific_grace data collection completed!')).toBeVisible();

  // Month (the default): the cards show the API's numbers.
  await expect(async () => {
    const month = await apiComplete(page, 'prolific_grace', 30);
    expect(month.analytics_status).toBe('data_ready');
    expect(await cardValues(page, CARD_KEYS)).toEqual(
      Object.fromEntries(CARD_KEYS.map((key) => [key, String(month.summary[key])])),
    );
  }).toPass({ timeout: 15_000 });
  const monthTweets = Number(
    await page.getByTestId('summary-card-total_tweets').getAttribute('data-value'),
  );
  for (const title of ['Posting heatmap', 'Top tweets', 'Hashtags', 'Languages']) {
    await expect(view.getByText(title, { exact: true }).first()).toBeVisible();
  }

  // Week: fewer tweets, again the API's numbers.
  await page.getByTestId('period-switch').getByText('Week').click();
  await expect(async () => {
    const week = await apiComplete(page, 'prolific_grace', 7);
    expect(await cardValues(page, CARD_KEYS)).toEqual(
      Object.fromEntries(CARD_KEYS.map((key) => [key, String(week.summary[key])])),
    );
    expect(week.summary.total_tweets).toBeLessThan(monthTweets);
  }).toPass({ timeout: 15_000 });

  // Refresh twice quickly: the second one is refused, and the page says why.
  const refresh = page.getByTestId('refresh-analytics');
  await refresh.click();
  // The refresh polls the handle first (a page of the demo source), then says it is done.
  await expect(page.getByText('Analytics refreshed')).toBeVisible();
  await refresh.click({ force: true });
  await expect(page.getByText('Please wait a few seconds before refreshing again.')).toBeVisible();
});
