import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { startPerchServer, type PerchServer } from './perch-server';

// Refreshes docs/screenshots (npm run screenshots): login, register, the shell, handles and the
// analytics dashboard, desktop and phone widths, default dark theme.
const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots');
const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

let server: PerchServer;

test.beforeAll(async () => {
  // Slow enough that a new handle's collecting overlay can be captured.
  server = await startPerchServer({ DEMO_PAGE_DELAY_MS: '300' });
});

test.afterAll(async () => {
  await server?.stop();
});

async function shoot(page: Page, name: string, { fullPage = true } = {}) {
  await page.waitForLoadState('networkidle');
  const file = path.join(OUT, `${name}.png`);
  if (!fullPage) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: file });
    return;
  }
  // The shell's header is fixed, which a stitched full-page capture paints mid-page: grow the
  // viewport to the whole page instead, then put it back.
  const viewport = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (viewport) await page.setViewportSize({ width: viewport.width, height });
  await page.waitForTimeout(300);
  await page.screenshot({ path: file });
  if (viewport) await page.setViewportSize(viewport);
}

test('screenshots', async ({ browser }) => {
  for (const [label, viewport] of Object.entries(WIDTHS)) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(`${server.origin}/dashboard/login`);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await shoot(page, `login-${label}`);

    await page.goto(`${server.origin}/dashboard/register`);
    await page.getByLabel('Username').fill(`grace_${label}`);
    await page.getByLabel('Email').fill(`grace_${label}@example.com`);
    await page.getByLabel('Password', { exact: true }).fill('Weakish1');
    await page.getByLabel('Confirm password').fill('Weakish1');
    await shoot(page, `register-${label}`);

    const code = label === 'desktop' ? server.firstStartCode : await server.invite();
    await page.getByLabel('Invitation code').fill(code);
    await page.getByLabel('Password', { exact: true }).fill('Corr3ct-Horse-Battery!');
    await page.getByLabel('Confirm password').fill('Corr3ct-Horse-Battery!');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByText('X Monitoring and Analytics System')).toBeVisible();
    await shoot(page, `shell-${label}`, { fullPage: false });
    // The shell with collected handles, and a handle's recent tweets.
    const csrf = (await context.cookies()).find((c) => c.name === 'perch_csrf')?.value ?? '';
    for (const username of ['nasa', 'typical_news', 'prolific_dev']) {
      const response = await page.request.post(`${server.origin}/api/v1/handles`, {
        data: { username, backfill_days: 15, async: true },
        headers: { 'x-csrf-token': csrf },
      });
      expect(response.status()).toBe(201);
    }
    await page.reload();
    const rows = page.getByTestId('handle-panel').getByTestId('handle-row');
    await expect(rows).toHaveCount(3);
    for (const status of await rows.getByTestId('handle-status').all()) {
      await expect(status).toHaveText(/Ready/, { timeout: 30_000 });
    }
    await shoot(page, `handles-${label}`, { fullPage: false });
    await rows
      .first()
      .getByRole('button', { name: /^Recent tweets from/ })
      .click();
    await expect(page.getByTestId('recent-tweet').first()).toBeVisible();
    await shoot(page, `recent-tweets-${label}`, { fullPage: false });
    await page.keyboard.press('Escape');

    // The analytics of a busy handle: every block, then the toolbar and cards close up.
    await page.goto(`${server.origin}/dashboard/?handle=prolific_dev`);
    await expect(page.getByTestId('summary-card-total_tweets')).toBeVisible({ timeout: 30_000 });
    await page.waitForTimeout(800); // charts animate in
    await shoot(page, `analytics-${label}`);
    await shoot(page, `analytics-top-${label}`, { fullPage: false });

    // A handle just added: the blurred overlay with its progress.
    const panel = page.getByTestId('handle-panel');
    await panel.getByLabel('Twitter handle').fill(`typical_${label}`);
    await panel.getByRole('button', { name: 'Add handle' }).click();
    await expect(page.getByTestId('collecting-overlay')).toContainText(/[1-9]\d*%/, {
      timeout: 15_000,
    });
    await page.screenshot({ path: path.join(OUT, `analytics-collecting-${label}.png`) });

    if (label === 'phone') {
      await page.getByRole('button', { name: 'Toggle navigation' }).click();
      await expect(page.getByRole('link', { name: 'Settings' })).toBeInViewport();
      await page.waitForTimeout(400); // let the slide-in transition finish
      await shoot(page, `shell-menu-${label}`, { fullPage: false });
    }
    await context.close();
  }
});
