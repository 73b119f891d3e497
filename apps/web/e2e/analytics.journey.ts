import { expect, test, type Page } from '@playwright/test';
import { INVALID_COMPARE_MESSAGE, type CompleteAnalytics } from '@perch/shared';
import { registerSuperAdmin, registerUser } from './accounts';
import { addHandleInPanel } from './handle-rows';
import { addHandleByApi } from './perch-api';
import { servePerch } from './journey-servers';
import { recordShown } from './shown-texts';

/** A non-UTC zone: the day and hour buckets the page shows must be the browser's own. */
const TIMEZONE = 'America/New_York';

// Slow enough that the collecting overlay can be seen on a loaded machine (it gives way when the
// first page is stored), quick enough for a test: the two weeks take about 15 s.
const server = servePerch({ DEMO_PAGE_DELAY_MS: '500' });

test.use({ timezoneId: TIMEZONE, viewport: { width: 1280, height: 900 } });

/** The complete analytics the API gives for the handle, as the page would ask for them. */
async function apiComplete(page: Page, handle: string, period: number) {
  const response = await page.request.get(
    `${server.origin}/api/v1/analytics/complete/${handle}?period=${period}&timezone=${encodeURIComponent(TIMEZONE)}&compare=previous`,
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
  await registerSuperAdmin(page, server, 'ada');
  const completed = await recordShown(page, '@prolific_grace data collection completed!');
  // While the backfill runs, the blurred overlay shows its progress. It gives way to the numbers
  // as soon as the first stored page makes some, which on a loaded machine can be before
  // Playwright's first look: the page records it as it happens.
  const overlayPercent = await recordShown(page, /^\d+%$/, {
    selector: '[data-testid="collecting-overlay"] [data-testid="collecting-percent"]',
  });
  await addHandleInPanel(page, 'prolific_grace');
  await overlayPercent();
  const overlay = page.getByTestId('collecting-overlay');

  // Then the analytics appear, and the overlay is gone.
  const view = page.getByTestId('analytics-view');
  await expect(overlay).toBeHidden({ timeout: 45_000 });
  await expect(page.getByTestId('summary-card-total_tweets')).toBeVisible();
  await completed(45_000);

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

/** A change as a summary card words it: '+12.3% vs last week' (docs/analytics.md). */
function changeText(current: number, previous: number): string {
  if (previous === 0) return current === 0 ? 'same as last week' : 'up from 0 last week';
  const change = ((current - previous) / previous) * 100;
  if (Math.abs(change) < 0.005) return 'same as last week';
  const percent = new Intl.NumberFormat('en-US', {
    style: 'percent',
    maximumFractionDigits: Math.abs(change) < 1 ? 2 : 1,
  }).format(change / 100);
  return `${change > 0 ? '+' : ''}${percent} vs last week`;
}

test('compare a week with the one before, overlay it on the daily chart, read the top words', async ({
  page,
}) => {
  await registerUser(page, server.origin, 'lin', await server.invite());
  // 15 days of backfill: this week and the whole week before it.
  await addHandleByApi(page, server.origin, 'prolific_lin', 15);
  await page.goto(`${server.origin}/dashboard/?handle=prolific_lin`);
  await expect(page.getByTestId('summary-card-total_tweets')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('period-switch').getByText('Week').click();

  // Every count card says how it changed against the previous week, in the API's numbers.
  await expect(async () => {
    const week = await apiComplete(page, 'prolific_lin', 7);
    expect(week.analytics_status).toBe('data_ready');
    const previous = week.previous;
    if (!previous) throw new Error('no previous period');
    expect(previous.summary.total_tweets).toBeGreaterThan(0);
    for (const key of CARD_KEYS) {
      const line = page.getByTestId(`summary-change-${key}`);
      await expect(line).toHaveText(changeText(week.summary[key], previous.summary[key]), {
        timeout: 1_000,
      });
      const difference = week.summary[key] - previous.summary[key];
      await expect(line).toHaveAttribute(
        'data-tone',
        Math.abs(previous.change[key] ?? difference) < 0.005
          ? 'neutral'
          : difference > 0
            ? 'up'
            : 'down',
      );
    }
    // Follower counts are known only since the handle was added: none from last week.
    expect(previous.summary.followers).toBeNull();
    await expect(page.getByTestId('summary-change-followers')).toHaveText('no data last week', {
      timeout: 1_000,
    });
  }).toPass({ timeout: 30_000 });

  // The daily chart overlays the previous week on request, with a legend.
  const chart = page.getByTestId('analytics-time-series');
  const toggle = chart.getByRole('switch', { name: 'Compare with previous period' });
  const dashed = chart.locator('path[stroke-dasharray="5 4"]');
  await expect(toggle).not.toBeChecked();
  await expect(chart.getByText('Previous week')).toHaveCount(0);
  await expect(dashed).toHaveCount(0);
  // Switched from the keyboard (the page's fixed header can sit over it after a scroll).
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).toBeChecked();
  await expect(chart.getByText('Previous week')).toBeVisible();
  await expect(chart.getByLabel('Engagement per day; dashed: previous week')).toBeVisible();
  // The previous week is drawn dashed.
  await expect(dashed.first()).toBeVisible();

  // The top words card lists the API's most used words.
  const week = await apiComplete(page, 'prolific_lin', 7);
  expect(week.words.words.length).toBeGreaterThan(0);
  const words = page.getByTestId('analytics-words');
  await expect(words.getByRole('heading', { name: 'Top words' })).toBeVisible();
  for (const entry of week.words.words.slice(0, 3)) {
    await expect(words.getByText(entry.word, { exact: true })).toBeVisible();
  }
  // 20 words in two columns on a desktop, the first 10 on a phone; the changes still read.
  const eleventh = week.words.words[10];
  if (eleventh) await expect(words.getByText(eleventh.word, { exact: true })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(words.getByText(week.words.words[0]!.word, { exact: true })).toBeVisible();
  if (eleventh) await expect(words.getByText(eleventh.word, { exact: true })).toBeHidden();
  await expect(page.getByTestId('summary-change-total_tweets')).toHaveText(/last week$/);

  // Any other comparison is refused with the reason.
  const refused = await page.request.get(
    `${server.origin}/api/v1/analytics/complete/prolific_lin?period=7&compare=later`,
  );
  expect(refused.status()).toBe(400);
  expect(((await refused.json()) as { message: string }).message).toBe(INVALID_COMPARE_MESSAGE);
});
