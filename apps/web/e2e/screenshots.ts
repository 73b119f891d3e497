import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  expect,
  test,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
} from '@playwright/test';
import {
  fillRegisterForm,
  registerSuperAdmin,
  registerUser,
  signOut,
  submitRegisterForm,
  submitSignIn,
} from './accounts';
import { addHandleInPanel, expectReady, handlePanel, handleRow } from './handle-rows';
import {
  demoTweets,
  followBusyDemoHandle,
  startNotifyFakes,
  type DemoTweet,
  type NotifyFakes,
} from './notify-fakes';
import {
  addHandleByApi,
  apiCallAnswering,
  apiData,
  saveSettings,
  switchNotifications,
  waitForBackfill,
} from './perch-api';
import { servePerchWith, withPerchServer, withPerchServerOn } from './journey-servers';
import { authenticator, failSignIns } from './security-helpers';
import {
  collectThenRefuseCredentials,
  startFakeXWithAccounts,
  xApiEnv,
  type FakeXServer,
} from './x-fakes';
import { startFakeXWebWithAccounts, xWebEnv } from './x-web-fakes';

// Refreshes docs/screenshots (npm run screenshots): login, register, the shell, handles, the
// analytics dashboard, Settings, Admin, Security and Alerts, desktop and phone widths, default
// dark theme.
const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots');
const WIDTHS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
type Width = keyof typeof WIDTHS;
const LABELS = Object.keys(WIDTHS) as Width[];

/** The password of every account the screenshots register. */
const PASSWORD = 'Corr3ct-Horse-Battery!';
/** The Discord user the Settings screens connect. */
const DISCORD_USER_ID = '80351110224678912';

// Telegram and Discord are the server's loopback fakes, so Settings can connect and deliver.
const { server } = servePerchWith(
  () => startNotifyFakes('perch_alerts_bot'),
  (notify) => ({
    // Slow enough that a new handle's collecting overlay can be captured.
    DEMO_PAGE_DELAY_MS: '300',
    MONITOR_INTERVAL_SECONDS: '5',
    ...notify.env,
  }),
);

// Capturing.

const pngPath = (name: string) => path.join(OUT, `${name}.png`);

/**
 * Runs `capture` with the viewport grown to the whole page, then puts the viewport back: the
 * shell's header is fixed, which a stitched full-page capture paints mid-page.
 */
async function onWholePage(page: Page, capture: () => Promise<void>) {
  const viewport = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (viewport) await page.setViewportSize({ width: viewport.width, height });
  await page.waitForTimeout(300);
  await capture();
  if (viewport) await page.setViewportSize(viewport);
}

/** The page once the network is quiet: the whole page, or (fullPage: false) its top. */
async function shoot(page: Page, name: string, { fullPage = true } = {}) {
  await page.waitForLoadState('networkidle');
  if (!fullPage) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: pngPath(name) });
    return;
  }
  await onWholePage(page, async () => {
    await page.screenshot({ path: pngPath(name) });
  });
}

/** The viewport as it is this moment, without waiting for the network (which may never rest). */
async function shootNow(page: Page, name: string) {
  await page.screenshot({ path: pngPath(name) });
}

/** From the top of `first` to the bottom of `last`, the full width of the page's content. */
async function shootSpan(page: Page, first: Locator, last: Locator, name: string) {
  await page.waitForLoadState('networkidle');
  await onWholePage(page, async () => {
    const top = await first.boundingBox();
    const bottom = await last.boundingBox();
    if (!top || !bottom) throw new Error(`${name}: nothing to capture`);
    const margin = 12;
    const left = Math.min(top.x, bottom.x);
    const right = Math.max(top.x + top.width, bottom.x + bottom.width);
    await page.screenshot({
      path: pngPath(name),
      clip: {
        x: Math.max(0, left - margin),
        y: Math.max(0, top.y - margin),
        width: right - left + 2 * margin,
        height: bottom.y + bottom.height - top.y + 2 * margin,
      },
    });
  });
}

/** One part of the page, with the viewport grown to the whole page so the header stays clear. */
async function shootPart(page: Page, part: Locator, name: string) {
  await shootSpan(page, part, part, name);
}

/**
 * The page as it is, resized to each width in turn: `${name}-desktop`, `${name}-phone`. The
 * page is left at the last width.
 */
async function shootAtWidths(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  for (const label of LABELS) {
    await page.setViewportSize(WIDTHS[label]);
    await shoot(page, `${name}-${label}`, options);
  }
}

/** As shootAtWidths, for one part of the page. */
async function shootPartAtWidths(page: Page, part: Locator, name: string) {
  for (const label of LABELS) {
    await page.setViewportSize(WIDTHS[label]);
    await shootPart(page, part, `${name}-${label}`);
  }
}

/**
 * Runs `body` once per width, each in a fresh browser context of that width (signed in with
 * `storageState` when given), closed afterwards.
 */
async function forEachWidth(
  browser: Browser,
  body: (tab: { page: Page; context: BrowserContext; label: Width }) => Promise<void>,
  { storageState }: Pick<BrowserContextOptions, 'storageState'> = {},
) {
  for (const label of LABELS) {
    const context = await browser.newContext({
      viewport: WIDTHS[label],
      ...(storageState ? { storageState } : {}),
    });
    try {
      await body({ page: await context.newPage(), context, label });
    } finally {
      await context.close();
    }
  }
}

/**
 * As forEachWidth, with a new account `${name}_${label}` registered on the shared server first
 * (signed in).
 */
async function forEachNewUser(
  browser: Browser,
  name: string,
  body: (tab: { page: Page; label: Width }) => Promise<void>,
) {
  await forEachWidth(browser, async ({ page, label }) => {
    await registerUser(page, server.origin, `${name}_${label}`, await server.invite(), {
      password: PASSWORD,
    });
    await body({ page, label });
  });
}

// The screens.

/** Settings, open. */
async function openSettings(page: Page, origin: string) {
  await page.goto(`${origin}/dashboard/settings`);
  await expect(page.getByRole('heading', { name: 'Settings', exact: true })).toBeVisible();
}

/** The Admin page, open. */
async function openAdmin(page: Page, origin: string) {
  await page.goto(`${origin}/dashboard/admin`);
  await expect(page.getByRole('heading', { name: 'Admin Dashboard' })).toBeVisible();
}

/** A handle's analytics, open with the numbers in. */
async function openAnalytics(page: Page, origin: string, handle: string) {
  await page.goto(`${origin}/dashboard/?handle=${handle}`);
  await expect(page.getByTestId('summary-card-total_tweets')).toBeVisible({ timeout: 30_000 });
}

/** On the open Settings page: the X account, Telegram and Discord, each saved in its card. */
async function connectChannels(
  page: Page,
  { xUsername, telegramChatId }: { xUsername: string; telegramChatId: string },
) {
  const xCard = page.getByTestId('x-account-card');
  await xCard.getByLabel('Your X username').fill(xUsername);
  await xCard.getByRole('button', { name: 'Save' }).click();
  await expect(xCard.getByTestId('x-username')).toBeVisible();
  const telegramCard = page.getByTestId('telegram-card');
  await telegramCard.getByLabel('Telegram Chat ID').fill(telegramChatId);
  await telegramCard.getByRole('button', { name: 'Save' }).click();
  await expect(telegramCard.getByText(telegramChatId)).toBeVisible();
  const discordCard = page.getByTestId('discord-card');
  await discordCard.getByLabel('Discord User ID').fill(DISCORD_USER_ID);
  await discordCard.getByRole('button', { name: 'Save' }).click();
  await expect(discordCard.getByText(DISCORD_USER_ID)).toBeVisible();
}

test('screenshots', async ({ browser }) => {
  // Two widths, each waiting for a real delivery to reach the Settings page's log.
  test.setTimeout(480_000);
  await forEachWidth(browser, async ({ page, label }) => {
    await page.goto(`${server.origin}/dashboard/login`);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await shoot(page, `login-${label}`);

    const username = `grace_${label}`;
    await page.goto(`${server.origin}/dashboard/register`);
    await fillRegisterForm(page, username, { password: 'Weakish1' });
    await shoot(page, `register-${label}`);

    const code = label === 'desktop' ? server.firstStartCode : await server.invite();
    await fillRegisterForm(page, username, { password: PASSWORD, code });
    await submitRegisterForm(page, username);
    await expect(page.getByText('X Monitoring and Analytics System')).toBeVisible();
    await shoot(page, `shell-${label}`, { fullPage: false });
    // The shell with collected handles, and a handle's recent tweets.
    for (const handle of ['nasa', 'typical_news', 'prolific_dev']) {
      await addHandleByApi(page, server.origin, handle, 15);
    }
    await page.reload();
    const rows = handlePanel(page).getByTestId('handle-row');
    await expect(rows).toHaveCount(3);
    for (const row of await rows.all()) await expectReady(row, 30_000);
    await shoot(page, `handles-${label}`, { fullPage: false });
    await rows
      .first()
      .getByRole('button', { name: /^Recent tweets from/ })
      .click();
    await expect(page.getByTestId('recent-tweet').first()).toBeVisible();
    await shoot(page, `recent-tweets-${label}`, { fullPage: false });
    await page.keyboard.press('Escape');

    // The analytics of a busy handle: every block, then the toolbar and cards close up.
    await openAnalytics(page, server.origin, 'prolific_dev');
    await page.waitForTimeout(800); // charts animate in
    await shoot(page, `analytics-${label}`);
    await shoot(page, `analytics-top-${label}`, { fullPage: false });

    // A handle just added: the blurred overlay with its progress.
    await addHandleInPanel(page, `typical_${label}`);
    await expect(page.getByTestId('collecting-overlay')).toContainText(/[1-9]\d*%/, {
      timeout: 15_000,
    });
    await shootNow(page, `analytics-collecting-${label}`);

    if (label === 'phone') {
      await page.getByRole('button', { name: 'Toggle navigation' }).click();
      await expect(page.getByRole('link', { name: 'Settings' })).toBeInViewport();
      await page.waitForTimeout(400); // let the slide-in transition finish
      await shoot(page, `shell-menu-${label}`, { fullPage: false });
    }

    // Settings as a new user finds it, then connected, forwarding, with a delivery in the log.
    const busy = await followBusyDemoHandle(page, server.origin, 20_000, 200_000);
    await openSettings(page, server.origin);
    await expect(page.getByTestId('delivery-log').getByTestId('deliveries-empty')).toBeVisible();
    await shoot(page, `settings-setup-${label}`);

    await connectChannels(page, {
      xUsername: username,
      telegramChatId: label === 'desktop' ? '512000714' : '512000715',
    });
    await switchNotifications(page, server.origin, busy.id, { telegramEnabled: true });
    await expect(page.getByTestId('forwarding-status')).toHaveText('Forwarding active', {
      timeout: 15_000,
    });
    await expect(page.getByTestId('delivery-row').filter({ hasText: 'Sent' }).first()).toBeVisible({
      timeout: 150_000,
    });
    await page.getByTestId('telegram-card').getByRole('button', { name: 'Test' }).click();
    await expect(page.getByTestId('settings-success')).toBeVisible();
    await shoot(page, `settings-${label}`);
  });
});

test('admin screenshots', async ({ browser }) => {
  test.setTimeout(300_000);
  // Its own server: the demo collector account asks for a code until the super admin gives it.
  const challengeCode = '246810';
  const adminEnv = { DEMO_CHALLENGE_CODE: challengeCode, DEMO_PAGE_DELAY_MS: '300' };
  await withPerchServer(adminEnv, async (adminServer) => {
    await forEachWidth(browser, async ({ page, label }) => {
      const code =
        label === 'desktop' ? adminServer.firstStartCode : await adminServer.invite('superadmin');
      await registerUser(page, adminServer.origin, `ada_${label}`, code, { password: PASSWORD });

      if (label === 'desktop') {
        // The challenge waits once per server: both widths are captured before it is answered.
        await openSettings(page, adminServer.origin);
        const challenge = page.getByTestId('challenge-panel');
        await expect(challenge.getByTestId('challenge-awaiting')).toBeVisible();
        await shootAtWidths(page, 'settings-challenge', { fullPage: false });
        await page.setViewportSize(WIDTHS[label]);
        await challenge.getByRole('textbox', { name: 'Verification code' }).fill(challengeCode);
        await challenge.getByRole('button', { name: 'Submit code' }).click();
        await expect(challenge.getByText('No verification needed')).toBeVisible({
          timeout: 20_000,
        });
      }

      for (const handle of ['nasa', `typical_${label}`]) {
        await addHandleByApi(page, adminServer.origin, handle, 3);
      }

      await openAdmin(page, adminServer.origin);
      await expect(page.getByRole('region', { name: /^Registered Users/ })).toBeVisible();
      const demo = page.getByTestId('handles-demo');
      await demo.getByRole('button', { name: 'Show TanStack Query Demo' }).click();
      const rows = demo.getByTestId('demo-handle-row');
      await expect(rows).toHaveCount(2);
      for (const status of await rows.getByTestId('demo-handle-status').all()) {
        await expect(status).toHaveText('Ready', { timeout: 60_000 });
      }
      await expect(demo.getByText('Analytics Available: Yes')).toBeVisible();
      await page.reload();
      await expect(page.getByRole('region', { name: 'Global Handle Management' })).toBeVisible();
      await shoot(page, `admin-${label}`);

      await demo.getByRole('button', { name: 'Show TanStack Query Demo' }).click();
      await expect(demo.getByText('Analytics Available: Yes')).toBeVisible();
      await demo.getByRole('button', { name: 'Record Activity' }).click();
      await shootPart(page, demo, `admin-demo-${label}`);
    });
  });
});

test('security screenshots', async ({ browser, playwright }) => {
  // Waits for fresh authenticator steps; the proxy setting lets the failed sign-ins come from
  // several addresses and the alert panel see a connection that is not local.
  test.setTimeout(240_000);
  await withPerchServer({ TRUST_PROXY: 'true' }, async (securityServer) => {
    await forEachWidth(browser, async ({ page, context, label }) => {
      const username = `ada_${label}`;
      const code =
        label === 'desktop' ? securityServer.firstStartCode : await securityServer.invite();
      await registerUser(page, securityServer.origin, username, code, { password: PASSWORD });

      // Someone tries passwords: 'repeated failed sign-ins'.
      const request = await playwright.request.newContext();
      await failSignIns(request, securityServer.origin, username, 6);
      await request.dispose();

      // Two-factor sign-in on, then the second step of the sign-in page.
      await page.goto(`${securityServer.origin}/dashboard/security`);
      const card = page.getByTestId('security-two-factor');
      await card.getByRole('button', { name: 'Turn on' }).click();
      const secret = (await card.getByTestId('totp-secret').innerText()).replace(/\s+/g, '');
      const nextCode = authenticator(secret);
      await card.getByLabel('6-digit code').fill(await nextCode());
      await card.getByRole('button', { name: 'Verify and turn on' }).click();
      await card.getByRole('button', { name: 'I have saved them' }).click();
      if (label === 'phone') await page.getByRole('button', { name: 'Toggle navigation' }).click();
      await signOut(page);
      await submitSignIn(page, username, PASSWORD);
      const step = page.getByRole('form', { name: 'Two-factor sign-in' });
      await expect(step.getByLabel('Authentication code')).toBeFocused();
      await shoot(page, `security-login-2fa-${label}`);
      await step.getByLabel('Authentication code').fill(await nextCode());
      await step.getByRole('button', { name: 'Verify' }).click();
      await expect(page.getByTestId('user-badge')).toHaveText(username);

      // The alert panel, reached through a proxy over plain HTTP: a critical alert, and the
      // others opened from their count.
      await context.setExtraHTTPHeaders({ 'x-forwarded-host': 'perch.example.net' });
      await page.reload();
      const panel = page.getByRole('region', { name: 'Security alerts' });
      await expect(panel.getByTestId('security-alert')).toHaveCount(1);
      await panel.getByRole('button', { name: /security alert/ }).click();
      await expect(panel.getByTestId('security-alert')).toHaveCount(2);
      await shoot(page, `security-alerts-${label}`, { fullPage: false });
      await context.setExtraHTTPHeaders({});

      // The Security Dashboard with a record to show.
      await page.goto(`${securityServer.origin}/dashboard/security`);
      await expect(page.getByRole('heading', { name: 'Security Dashboard' })).toBeVisible();
      await expect(page.getByTestId('two-factor-status')).toHaveText('On');
      await shoot(page, `security-${label}`);
    });
  });
});

test('preferences and connection screenshots', async ({ browser }) => {
  test.setTimeout(180_000);
  await forEachNewUser(browser, 'lin', async ({ page, label }) => {
    // The Preferences card on Settings, as it starts (every default).
    await openSettings(page, server.origin);
    const card = page.getByTestId('preferences-card');
    await expect(card.getByRole('switch', { name: 'Auto refresh' })).toBeChecked();
    await shootPart(page, card, `settings-preferences-${label}`);

    // Compact mode tightens the whole shell.
    await card.getByRole('switch', { name: 'Compact mode' }).click();
    await expect(page.locator('html')).toHaveAttribute('data-compact', 'true');
    await page.goto(`${server.origin}/dashboard/`);
    await expect(page.getByText('Monitored Handles').first()).toBeVisible();
    await shoot(page, `dashboard-compact-${label}`, { fullPage: false });

    // The server stops answering: its health check fails and the banner says so.
    await page.route('**/api/v1/health', (route) => route.abort('connectionrefused'));
    await page.reload();
    await expect(page.getByTestId('connection-banner')).toBeVisible();
    await shoot(page, `connection-banner-${label}`, { fullPage: false });
  });
});

test('X API usage screenshots', async ({ browser }) => {
  test.setTimeout(180_000);
  // Its own server on the x-api source, reading from the loopback fake X, with a spend limit.
  const usageEnv = (fake: FakeXServer) => ({ ...xApiEnv(fake), X_DAILY_SPEND_LIMIT_USD: '2.5' });
  await withPerchServerOn(startFakeXWithAccounts, usageEnv, async (xServer, fake) => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop });
    const page = await context.newPage();
    await registerSuperAdmin(page, xServer, 'marta', { password: PASSWORD });
    for (const handle of ['orbitnews', 'tidepools']) {
      await addHandleByApi(page, xServer.origin, handle);
    }
    await expect.poll(() => fake.billing().posts, { timeout: 60_000 }).toBe(204);

    await openAdmin(page, xServer.origin);
    const card = page.getByTestId('x-usage');
    await expect(card.getByText('$1.04').first()).toBeVisible();
    await shootPartAtWidths(page, card, 'admin-x-usage');

    fake.setCredits(0);
    await expect
      .poll(() => fake.requests.some((request) => request.status === 402), { timeout: 30_000 })
      .toBe(true);
    const signedIn = await context.storageState();
    await context.close();
    // A fresh page per width: the phone layout starts with its menu closed.
    await forEachWidth(
      browser,
      async ({ page: widthPage, label }) => {
        await openAdmin(widthPage, xServer.origin);
        await expect(widthPage.getByTestId('x-credentials-banner')).toBeVisible();
        await shoot(widthPage, `admin-x-credits-${label}`, { fullPage: false });
      },
      { storageState: signedIn },
    );
  });
});

interface DeliveryLogPlan {
  /** Followed on Telegram: a tweet, then one with a photo Telegram refuses, then a burst. */
  telegram: string;
  /** Every photo the Telegram handle posts in the window (all refused). */
  refusedPhotos: string[];
  /** Followed on Discord, which is down: a tweet that expires, then one still pending. */
  discord: string;
}

/** Text the browser's fonts draw (Debian's Chromium here has no CJK font). */
const DRAWABLE = /^[\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]*$/u;

/**
 * Two firehose handles whose next minutes make every state of the delivery log, with the fewest
 * tweets (rows) and in text the screenshots can show. Nothing in the first 20 s (monitoring
 * starts). Telegram: a plain tweet and then a photo within 2 minutes, the next tweet at least 8 s
 * after the photo (Telegram goes down in between) and 3 within 100 s (one digest). Discord: a
 * tweet within a minute (it expires after 180 s), the next 100-150 s later (still pending when
 * the first has expired).
 */
async function planDeliveryLog(now: number): Promise<DeliveryLogPlan> {
  const quietUntil = now + 20_000;
  let telegram: { handle: string; tweets: DemoTweet[] } | null = null;
  let discord: { handle: string; tweets: DemoTweet[] } | null = null;
  for (let index = 0; index < 400; index++) {
    const handle = `bench_${index}`;
    const tweets = await demoTweets(handle, now, now + 330_000);
    if (!tweets.every((tweet) => DRAWABLE.test(tweet.text))) continue;
    if ((tweets[0]?.at ?? 0) < quietUntil) continue;
    const photo = tweets.findIndex((tweet) => tweet.photoUrls.length > 0);
    const [photoAt, next, third] = [photo, photo + 1, photo + 3].map((i) => tweets[i]?.at);
    if (
      (photo === 1 || photo === 2) &&
      photoAt !== undefined &&
      photoAt <= now + 120_000 &&
      next !== undefined &&
      next >= photoAt + 8_000 &&
      third !== undefined &&
      third - next <= 100_000 &&
      (!telegram || tweets.length < telegram.tweets.length)
    ) {
      telegram = { handle, tweets };
      continue;
    }
    const [first, second] = tweets;
    if (
      first &&
      second &&
      first.at <= now + 60_000 &&
      second.at - first.at >= 100_000 &&
      second.at - first.at <= 150_000 &&
      (!discord || tweets.length < discord.tweets.length)
    ) {
      discord = { handle, tweets };
    }
  }
  if (!telegram || !discord) throw new Error('no demo handles fit the delivery log plan');
  return {
    telegram: telegram.handle,
    refusedPhotos: telegram.tweets.flatMap((tweet) => tweet.photoUrls),
    discord: discord.handle,
  };
}

test('delivery log screenshots', async ({ browser }) => {
  // Waits for real deliveries: a Telegram outage and its digest, Discord rows expiring.
  test.setTimeout(600_000);
  // Its own server and fakes: Telegram and Discord go down. Rows expire after 180 s (not the
  // default 24 hours) and more than 2 waiting notices of a handle go as a digest (default 5).
  const logEnv = (fakes: NotifyFakes) => ({
    DEMO_PAGE_DELAY_MS: '0',
    MONITOR_INTERVAL_SECONDS: '5',
    NOTIFY_MAX_AGE_HOURS: '0.05',
    NOTIFY_DIGEST_AFTER: '2',
    ...fakes.env,
  });
  const startFakes = () => startNotifyFakes('perch_alerts_bot');
  await withPerchServerOn(startFakes, logEnv, async (logServer, { telegram: tg, discord: dc }) => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop });
    const page = await context.newPage();
    await registerSuperAdmin(page, logServer, 'grace', { password: PASSWORD });

    // X, Telegram and Discord connected: forwarding starts.
    await openSettings(page, logServer.origin);
    await connectChannels(page, { xUsername: 'grace', telegramChatId: '512000716' });
    await expect(page.getByTestId('forwarding-status')).toHaveText('Forwarding active', {
      timeout: 15_000,
    });

    // Discord is down from now on. One handle goes to Telegram, one to Discord.
    dc.setDown(true, 'reset');
    const plan = await planDeliveryLog(Date.now());
    for (const url of plan.refusedPhotos) tg.refusePhotoUrl(url);
    const follow = async (handle: string, channels: Record<string, boolean>) => {
      const id = await addHandleByApi(page, logServer.origin, handle, 1);
      await switchNotifications(page, logServer.origin, id, channels);
    };
    await follow(plan.telegram, { telegramEnabled: true });
    await follow(plan.discord, { discordEnabled: true });

    type Row = {
      channel: string;
      status: string;
      handle: string;
      error: string | null;
      note: string | null;
    };
    const deliveries = async (): Promise<Row[]> => {
      const response = await page.request.get(
        `${logServer.origin}/api/v1/settings/deliveries?limit=100`,
      );
      return ((await response.json()) as { data: { deliveries: Row[] } }).data.deliveries;
    };
    const count = async (match: (row: Row) => boolean) => (await deliveries()).filter(match).length;
    const slow = { timeout: 330_000, intervals: [500] };

    // A tweet sent, then one whose photo Telegram refuses: sent as plain text.
    await expect
      .poll(() => count((row) => row.note?.startsWith('Sent as plain text') ?? false), slow)
      .toBeGreaterThan(0);
    expect(await count((row) => row.status === 'sent' && row.note === null)).toBeGreaterThan(0);
    // Telegram goes down while the handle posts 3 more: when it is back, they go as one digest.
    tg.setDown(true, 'reset');
    await expect
      .poll(() => count((row) => row.channel === 'telegram' && row.status === 'pending'), slow)
      .toBeGreaterThanOrEqual(3);
    tg.setDown(false);
    await expect
      .poll(() => count((row) => row.note?.startsWith('Sent in one digest') ?? false), slow)
      .toBeGreaterThanOrEqual(3);
    // Discord: the first row is given up, a later one still waits (with Discord's error).
    await expect.poll(() => count((row) => row.status === 'expired'), slow).toBeGreaterThan(0);
    await expect
      .poll(() => count((row) => row.status === 'pending' && row.error !== null), slow)
      .toBeGreaterThan(0);

    await page.reload();
    const card = page.getByTestId('delivery-log');
    await expect(card.getByTestId('delivery-row').filter({ hasText: 'Expired' })).not.toHaveCount(
      0,
    );
    await shootPartAtWidths(page, card, 'settings-delivery-log');
    await context.close();
  });
});

test('notification filter and feeds screenshots', async ({ browser }) => {
  test.setTimeout(240_000);
  await forEachNewUser(browser, 'ada_feeds', async ({ page, label }) => {
    for (const handle of ['nasa', 'typical_news', 'prolific_dev']) {
      await addHandleByApi(page, server.origin, handle, 1);
    }

    // A filter saved for one handle (its summary under the switches), then its editor again.
    await page.goto(`${server.origin}/dashboard/`);
    await expect(handlePanel(page).getByTestId('handle-row')).toHaveCount(3);
    const nasa = handleRow(page, 'nasa');
    const openEditor = () =>
      nasa.getByRole('button', { name: 'Notification filter for @nasa' }).click();
    await openEditor();
    const dialog = page.getByRole('dialog', { name: 'Notification filter for @nasa' });
    const include = dialog.getByRole('combobox', { name: 'Notify only about tweets with' });
    for (const term of ['launch', 'landing', '"spacewalk live"']) {
      await include.fill(term);
      await include.press('Enter');
    }
    const exclude = dialog.getByRole('combobox', { name: 'Never notify about tweets with' });
    for (const term of ['giveaway', 'sponsored']) {
      await exclude.fill(term);
      await exclude.press('Enter');
    }
    await dialog.getByRole('switch', { name: 'Only tweets with a photo or video' }).check();
    await dialog.getByRole('button', { name: 'Save filter' }).click();
    await expect(nasa.getByTestId('filter-summary')).toBeVisible();
    await shootPart(page, handlePanel(page), `handle-filters-summary-${label}`);
    await openEditor();
    await expect(dialog.getByText('spacewalk live')).toBeVisible();
    await page.waitForTimeout(400); // the modal's transition
    await shootNow(page, `handle-filters-${label}`);
    await page.keyboard.press('Escape');

    // The Feeds card on Settings: every handle's two addresses.
    await openSettings(page, server.origin);
    const card = page.getByTestId('feeds-card');
    await expect(card.getByTestId('feed-row')).toHaveCount(3);
    await shootPart(page, card, `settings-feeds-${label}`);
  });
});

/**
 * One word of each of the demo handle's first `count` posts between `fromMs` and `toMs` from now:
 * a whole word of Latin letters (the browser's fonts draw it), at least 5 long, so a words alert
 * of these fires on each of those posts.
 */
async function upcomingWords(handle: string, fromMs: number, toMs: number, count: number) {
  const now = Date.now();
  const words = (await demoTweets(handle, now + fromMs, now + toMs)).flatMap((tweet) => {
    const word = tweet.text
      .split(/[^\p{L}\p{N}]+/u)
      .find((token) => /^\p{Script=Latin}{5,}$/u.test(token));
    return word ? [word.toLowerCase()] : [];
  });
  const distinct = [...new Set(words)].slice(0, count);
  if (distinct.length === 0) throw new Error(`@${handle} has no post to come with a word to watch`);
  return distinct;
}

test('alerts and webhooks screenshots', async ({ browser }) => {
  // Each width waits for the next posts of a busy demo handle to fire a words alert.
  test.setTimeout(480_000);
  await forEachNewUser(browser, 'hedy', async ({ page, label }) => {
    const { origin } = server;
    const nasa = await addHandleByApi(page, origin, 'nasa', 1);
    // Busy over the next minutes: its coming posts fire the words alert below.
    const busy = await followBusyDemoHandle(page, origin, 20_000, 180_000);
    await waitForBackfill(page, origin, busy.handle);

    // Two webhooks and @nasa's new posts sent to them. Their addresses are under the reserved
    // .example domain: nothing is ever delivered, and the card is captured before any attempt.
    const addWebhook = (data: Record<string, string>) =>
      apiCallAnswering(201, page, origin, 'POST', '/webhooks', data);
    await addWebhook({
      name: 'Ops receiver',
      url: 'https://ops.example/hooks/perch',
      preset: 'generic',
    });
    await addWebhook({
      name: 'Launch room',
      url: 'https://chat.example/services/launch-room',
      preset: 'slack',
    });
    await switchNotifications(page, origin, nasa, { webhookEnabled: true });

    // The Webhooks card on Settings: the endpoints and the switch per handle.
    await openSettings(page, origin);
    const webhooksCard = page.getByTestId('webhooks-card');
    await expect(webhooksCard.getByTestId('webhook-row')).toHaveCount(2);
    await expect(webhooksCard.getByRole('switch', { name: 'Webhooks for @nasa' })).toBeChecked();
    await shootPart(page, webhooksCard, `settings-webhooks-${label}`);

    // The dashboard's switches per handle: Telegram, Discord and Webhooks. The analytics above
    // the panel load first, so the panel stays put while it is captured.
    await openAnalytics(page, origin, 'nasa');
    await page.waitForTimeout(800); // charts animate in
    const nasaRow = handleRow(page, 'nasa');
    await expectReady(nasaRow, 30_000);
    await expectReady(handleRow(page, busy.handle), 30_000);
    await expect(
      nasaRow.getByRole('switch', { name: 'Webhook notifications for @nasa' }),
    ).toBeChecked();
    await shootPart(page, handlePanel(page), `handle-switches-${label}`);

    // Rules of both handles, one switched off; the words rule fires on the coming posts.
    const addRule = (data: Record<string, unknown>) =>
      apiCallAnswering(201, page, origin, 'POST', '/alerts', data);
    await addRule({
      handle: busy.handle,
      name: 'Words to watch',
      kind: {
        type: 'words',
        include: await upcomingWords(busy.handle, 10_000, 150_000, 3),
        exclude: [],
      },
    });
    await addRule({
      handle: busy.handle,
      name: 'Viral post',
      kind: { type: 'engagement_multiple', multiple: 3, period: 'week' },
    });
    await addRule({
      handle: 'nasa',
      name: 'Big post',
      kind: { type: 'metric_threshold', metric: 'likes', threshold: 5000, within_hours: 24 },
    });
    await addRule({
      handle: 'nasa',
      name: 'Quiet spell',
      enabled: false,
      kind: { type: 'silence', days: 3 },
    });
    await expect
      .poll(
        async () =>
          (await apiData<{ firings: unknown[] }>(page, origin, 'GET', '/alerts/firings')).firings
            .length,
        { timeout: 200_000, intervals: [2_000] },
      )
      .toBeGreaterThanOrEqual(2);

    // The Alerts page: the rules per handle and the history of what fired.
    await page.goto(`${origin}/dashboard/alerts`);
    await expect(page.getByRole('heading', { name: 'Alerts', exact: true })).toBeVisible();
    await expect(page.getByTestId('alert-rule')).toHaveCount(4);
    await expect(page.getByTestId('alert-history').getByTestId('alert-firing')).not.toHaveCount(0);
    await shoot(page, `alerts-${label}`);
  });
});

test('analytics compare and words screenshots', async ({ browser }) => {
  test.setTimeout(240_000);
  await forEachNewUser(browser, 'lin_week', async ({ page, label }) => {
    // 15 days of backfill: this week and the whole week before it.
    await addHandleByApi(page, server.origin, 'prolific_dev', 15);

    // The whole backfill first: the previous week is then collected in full.
    await expect
      .poll(
        async () => {
          const response = await page.request.get(
            `${server.origin}/api/v1/analytics/availability/prolific_dev`,
          );
          return ((await response.json()) as { data?: { analytics_status?: string } }).data
            ?.analytics_status;
        },
        { timeout: 90_000 },
      )
      .toBe('data_ready');
    await openAnalytics(page, server.origin, 'prolific_dev');
    await page.getByTestId('period-switch').getByText('Week').click();
    await expect(page.getByTestId('summary-change-total_tweets')).toHaveText(/vs last week$/, {
      timeout: 30_000,
    });
    const chart = page.getByTestId('analytics-time-series');
    await chart.getByRole('switch', { name: 'Compare with previous period' }).focus();
    await page.keyboard.press('Space');
    await expect(chart.getByText('Previous week')).toBeVisible();
    await page.waitForTimeout(800); // charts animate in
    await shootSpan(page, page.getByTestId('summary-cards'), chart, `analytics-compare-${label}`);

    const words = page.getByTestId('analytics-words');
    await words.scrollIntoViewIfNeeded();
    await expect(words.getByRole('heading', { name: 'Top words' })).toBeVisible();
    await shootPart(page, words, `analytics-words-${label}`);
  });
});

test('tweets browse screenshots', async ({ browser }) => {
  test.setTimeout(180_000);
  await forEachNewUser(browser, 'tess', async ({ page, label }) => {
    await addHandleByApi(page, server.origin, 'prolific_dev', 15);
    await page.reload();
    const row = handlePanel(page).getByTestId('handle-row').first();
    await expectReady(row, 60_000);

    // A search as typed (the last word a prefix), the words marked in each tweet.
    await row.getByRole('button', { name: /^Recent tweets from/ }).click();
    const dialog = page.getByRole('dialog', { name: /^Recent tweets from/ });
    await dialog.getByRole('textbox', { name: 'Search tweets' }).fill('new rel');
    await expect(dialog.getByTestId('tweets-summary')).toContainText('"new rel"');
    await expect(dialog.getByTestId('recent-tweet').first()).toBeVisible();
    await page.waitForTimeout(300); // the modal's transition
    await shoot(page, `tweets-browse-${label}`, { fullPage: false });
  });
});

test('forwarding reasons, failed handle and empty phone dashboard screenshots', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  await forEachNewUser(browser, 'rosalind', async ({ page, label }) => {
    await expect(page).toHaveURL(/\/dashboard\/?$/);

    // The empty dashboard: on a phone the handle panel offers the sample handles.
    const panel = handlePanel(page);
    await expect(panel).toContainText('No handles yet');
    if (label === 'phone') await expect(panel.getByTestId('sample-handles')).toBeVisible();
    await shoot(page, `dashboard-empty-${label}`);

    // Telegram connected but no X account; a handle with Telegram switched on, one that failed.
    await saveSettings(page, server.origin, { telegram_chat_id: '515151' });
    const id = await addHandleByApi(page, server.origin, 'typical_news', 1);
    await switchNotifications(page, server.origin, id, { telegramEnabled: true });
    await addHandleByApi(page, server.origin, 'suspended_demo', 1);

    await page.goto(`${server.origin}/dashboard/?handle=suspended_demo`);
    await expect(page.getByTestId('handle-failed')).toContainText('@suspended_demo is suspended', {
      timeout: 30_000,
    });
    const newsRow = handleRow(page, 'typical_news');
    await expect(newsRow.getByTestId('forwarding-reason')).toBeVisible();
    await expectReady(newsRow, 30_000);
    await shoot(page, `handle-failed-${label}`, { fullPage: false });

    // A refused switch (Discord is not connected) answers beside it.
    await newsRow.getByRole('switch', { name: 'Discord notifications for @typical_news' }).click();
    await expect(newsRow.getByTestId('switch-refusal')).toBeVisible();
    await shootPart(page, panel, `forwarding-reasons-${label}`);
  });
});

test('X web collector accounts screenshots', async ({ browser }) => {
  test.setTimeout(180_000);
  // Its own server on the x-web source, signing in to the loopback fake of X's web API.
  await withPerchServerOn(startFakeXWebWithAccounts, xWebEnv, async (webServer, fake) => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop });
    const page = await context.newPage();
    await registerSuperAdmin(page, webServer, 'marta', { password: PASSWORD });
    const add = (data: Record<string, unknown>) =>
      apiCallAnswering(201, page, webServer.origin, 'POST', '/admin/x-web-accounts', data);
    // Two accounts by cookies (X locked the second), one by password that has not signed in.
    for (const username of ['orbit_reader', 'spare_lens']) {
      fake.addAccount({ username, password: 'pw', email: `${username}@example.com` });
      const session = fake.issueSession(username);
      await add({ method: 'cookies', username, auth_token: session.authToken, ct0: session.ct0 });
    }
    fake.lockAccount('spare_lens');
    fake.addAccount({
      username: 'tide_watch',
      password: 'Tr0ub4dor&3',
      email: 'tide@example.com',
      totpSecret: 'JBSWY3DPEHPK3PXP',
      emailCode: true,
    });
    await add({
      method: 'credentials',
      username: 'tide_watch',
      password: 'Tr0ub4dor&3',
      email: 'tide@example.com',
      totp_secret: 'JBSWY3DPEHPK3PXP',
    });
    await addHandleByApi(page, webServer.origin, 'orbitnews');
    await expect
      .poll(() => fake.requests.some((r) => r.account === 'spare_lens' && r.status === 403), {
        timeout: 30_000,
      })
      .toBe(true);

    await openAdmin(page, webServer.origin);
    const section = page.getByTestId('x-web-accounts');
    await expect(section.getByRole('row', { name: 'Collector account @spare_lens' })).toContainText(
      'Locked',
    );
    await shootPartAtWidths(page, section, 'admin-x-web');

    // X ends the only usable session: the password account signs in and X emails it a code.
    fake.expireSessions('orbit_reader');
    await expect.poll(() => fake.mailbox('tide_watch').length, { timeout: 30_000 }).toBe(1);
    await openSettings(page, webServer.origin);
    const panel = page.getByTestId('challenge-panel');
    await expect(panel.getByTestId('challenge-account')).toBeVisible();
    await shootPartAtWidths(page, panel, 'settings-x-web-challenge');

    // The operations in use, read from x.com's client when collection began.
    await openAdmin(page, webServer.origin);
    const operations = page.getByTestId('x-web-operations');
    await expect(operations.getByTestId('x-web-operations-age')).toBeVisible();
    await shootPartAtWidths(page, operations, 'admin-x-web-operations');

    // Cloudflare refuses the server: the pool pauses, the accounts stay as they are.
    fake.refuseWithHtml('always');
    fake.addAccount({ username: 'fresh_eye', password: 'pw', email: 'fresh@example.com' });
    const fresh = fake.issueSession('fresh_eye');
    await add({
      method: 'cookies',
      username: 'fresh_eye',
      auth_token: fresh.authToken,
      ct0: fresh.ct0,
    });
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByTestId('x-web-pool-paused').isVisible();
        },
        { timeout: 45_000 },
      )
      .toBe(true);
    await shootPartAtWidths(page, page.getByTestId('x-web-pool-paused'), 'admin-x-web-paused');
    fake.refuseWithHtml(0);
    await context.close();
  });
});

test('waiting for X and unreachable session screenshots', async ({ browser }) => {
  test.setTimeout(180_000);
  // Its own server on the x-api source: the fake X refuses the bearer token after the backfill.
  await withPerchServerOn(startFakeXWithAccounts, xApiEnv, async (xServer, fake) => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop });
    const page = await context.newPage();
    await collectThenRefuseCredentials(page, xServer, fake, 3, { password: PASSWORD });
    const signedIn = await context.storageState();
    await context.close();

    await forEachWidth(
      browser,
      async ({ page: widthPage, label }) => {
        await widthPage.goto(`${xServer.origin}/dashboard/?handle=TidePools`);
        await expect(widthPage.getByTestId('handle-waiting')).toBeVisible();
        await shoot(widthPage, `handle-waiting-${label}`, { fullPage: false });

        // The session check gets no answer: a retry screen, not the sign-in page.
        await widthPage.route('**/api/v1/auth/check', (route) => route.abort('connectionrefused'));
        await widthPage.reload();
        await expect(widthPage.getByTestId('session-unreachable')).toBeVisible({
          timeout: 15_000,
        });
        await shoot(widthPage, `session-unreachable-${label}`, { fullPage: false });
      },
      { storageState: signedIn },
    );
  });
});
