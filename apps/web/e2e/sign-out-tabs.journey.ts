import { HEARTBEAT_INTERVAL_MS } from '@perch/shared';
import { expect, test, type Browser, type Page, type Request } from '@playwright/test';
import { registerSuperAdmin, signIn } from './accounts';
import { servePerch } from './journey-servers';

/**
 * Signing out with two tabs of one browser open (one context, so BroadcastChannel joins them).
 * Whichever tab signs out, the leading one or the other, both land on the sign-in page and
 * nothing goes out for the ended session: from the Logout click on, no response in either tab is
 * a 401, no console error shows, and after the logout request no tab calls the API for anything
 * but what a signed-out browser asks (the session check, the health check). A new sign-in then
 * starts as usual: one tab leads and holds the live stream, the other follows.
 */

const USERNAME = 'lovelace';
const EVENTS_PATH = '/api/v1/events';
const LOGOUT_PATH = '/api/v1/auth/logout';
/** API paths a signed-out browser calls: the session check, the health check and the probe. */
const SESSIONLESS_PATHS = new Set(['/api/v1/auth/check', '/api/v1/health']);
/**
 * How long both tabs are watched once on the sign-in page: past one heartbeat interval, so a
 * heartbeat left running shows as well as a stream or a poll.
 */
const QUIET_MS = HEARTBEAT_INTERVAL_MS + 2_000;

const server = servePerch();

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext();
  await registerSuperAdmin(await context.newPage(), server, USERNAME);
  await context.close();
});

/** What one tab sends and reports; problems and API calls count from `watchFromNow` on. */
function watchTab(page: Page, name: string) {
  const problems: string[] = [];
  const apiCalls: { method: string; path: string; at: number }[] = [];
  const openStreams = new Set<Request>();
  let watching = false;
  const pathOf = (url: string) => new URL(url).pathname;

  page.on('request', (request) => {
    const path = pathOf(request.url());
    if (path === EVENTS_PATH) openStreams.add(request);
    if (watching && path.startsWith('/api/')) {
      apiCalls.push({ method: request.method(), path, at: Date.now() });
    }
  });
  page.on('requestfinished', (request) => openStreams.delete(request));
  page.on('requestfailed', (request) => openStreams.delete(request));
  page.on('response', (response) => {
    if (watching && response.status() === 401) {
      const call = `${response.request().method()} ${pathOf(response.url())}`;
      problems.push(`${name}: ${call} answered 401`);
    }
  });
  page.on('console', (message) => {
    if (watching && message.type() === 'error') {
      problems.push(`${name}: console error: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => {
    if (watching) problems.push(`${name}: page error: ${error.message}`);
  });

  return {
    page,
    problems,
    /** Whether this tab holds the live stream open (only the leading tab does). */
    holdsStream: () => openStreams.size > 0,
    watchFromNow: () => {
      watching = true;
    },
    /** When this tab sent its logout request, if it did. */
    logoutSentAt: () => apiCalls.find((call) => call.path === LOGOUT_PATH)?.at,
    /** The calls at or after `from` that only a signed-in browser makes. */
    sessionCallsSince: (from: number) =>
      apiCalls
        .filter((call) => call.at >= from && call.path !== LOGOUT_PATH)
        .filter((call) => !SESSIONLESS_PATHS.has(call.path))
        .map((call) => `${name}: ${call.method} ${call.path}`),
  };
}

type Tab = ReturnType<typeof watchTab>;

/** Two signed-in tabs of one browser, told apart by which one holds the live stream. */
async function openTwoTabs(browser: Browser) {
  const context = await browser.newContext();
  const first = watchTab(await context.newPage(), 'first tab');
  await first.page.goto(`${server.origin}/dashboard/login`);
  await signIn(first.page, USERNAME);
  const second = watchTab(await context.newPage(), 'second tab');
  await second.page.goto(`${server.origin}/dashboard`);
  await expect(second.page.getByTestId('user-badge')).toHaveText(USERNAME);

  // The election is over and its winner has opened the stream, and it stays that way.
  const streamHolders = () => [first, second].filter((tab) => tab.holdsStream()).length;
  await expect.poll(streamHolders).toBe(1);
  await second.page.waitForTimeout(1_000);
  expect(streamHolders()).toBe(1);
  const [leader, follower] = first.holdsStream() ? [first, second] : [second, first];
  return { context, leader, follower };
}

/** Signs out in `signingOut` and checks both tabs, then stays on the sign-in page a while. */
async function signOutOf(signingOut: Tab, other: Tab) {
  const tabs = [signingOut, other];
  for (const tab of tabs) tab.watchFromNow();
  await signingOut.page.getByRole('button', { name: 'Logout' }).click();

  for (const tab of tabs) {
    await expect(tab.page).toHaveURL(/\/dashboard\/login$/);
    await expect(tab.page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  }
  await signingOut.page.waitForTimeout(QUIET_MS);

  const logoutSentAt = signingOut.logoutSentAt();
  expect(logoutSentAt, 'the logout request went out').toBeDefined();
  expect(tabs.flatMap((tab) => tab.problems)).toEqual([]);
  expect(tabs.flatMap((tab) => tab.sessionCallsSince(logoutSentAt ?? 0))).toEqual([]);
  expect(
    tabs.some((tab) => tab.holdsStream()),
    'no live stream is left open',
  ).toBe(false);
}

/** Signs in again in `tab`: both tabs are back, one of them holds the stream, nothing refused. */
async function signInAgain(tab: Tab, other: Tab) {
  await signIn(tab.page, USERNAME);
  await expect(other.page.getByTestId('user-badge')).toHaveText(USERNAME);
  await expect.poll(() => [tab, other].filter((each) => each.holdsStream()).length).toBe(1);
  expect([...tab.problems, ...other.problems]).toEqual([]);
}

test('signing out in the tab that does not lead signs both tabs out, nothing refused', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const { context, leader, follower } = await openTwoTabs(browser);
  await signOutOf(follower, leader);
  await signInAgain(follower, leader);
  await context.close();
});

test('signing out in the leading tab signs both tabs out, nothing refused', async ({ browser }) => {
  test.setTimeout(90_000);
  const { context, leader, follower } = await openTwoTabs(browser);
  await signOutOf(leader, follower);
  await signInAgain(leader, follower);
  await context.close();
});
