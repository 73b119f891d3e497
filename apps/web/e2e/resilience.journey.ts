import {
  expect,
  test,
  type Browser,
  type BrowserContext,
  type Page,
  type Request,
} from '@playwright/test';
import { registerUser } from './accounts';
import { startCountingProxy, type CountingProxy, type ProxiedRequest } from './counting-proxy';
import { handleRow } from './handle-rows';
import { addHandleByApi } from './perch-api';
import { startPerchServer, type PerchServer } from './perch-server';

/**
 * Client resilience, counted at the server: the browser talks to a counting proxy in
 * front of the built server (counting-proxy.ts), so every number below is what reached the server.
 *
 * 1. Two tabs of one browser profile cost about what one costs: only the leading tab polls, and
 *    closing it hands polling to the other tab within a few seconds.
 * 2. A hidden tab stops polling (only the session heartbeat goes on) and refetches when shown.
 * 3. A server outage trips the circuit breaker: a bounded number of requests, then the UI comes
 *    back by itself when the server does.
 */

let server: PerchServer;
let proxy: CountingProxy;
let storageState: Awaited<ReturnType<BrowserContext['storageState']>>;

/**
 * A quiet demo account backfilled over 90 days: 180 pages of 12 h (demo-source.ts), at 1.5 s a
 * page about 4.5 minutes, so the handle is collecting (the fastest polling) through tests 1 and 2.
 */
const HANDLE = 'quiet_lark';
const PAGE_DELAY_MS = 1_500;
/** After a dashboard load: the election (100 + 600 ms) and the mount fetches are over. */
const SETTLE_MS = 3_000;
/** A counting window: longer than the 15 s heartbeat, so even a leader that only beats shows. */
const WINDOW_MS = 16_000;

const HEARTBEAT = 'POST /api/v1/session/heartbeat';
const HEALTH = 'GET /api/v1/health';
const PROBE = 'HEAD /api/v1/health';
const EVENTS = 'GET /api/v1/events';
/** Requests that do not go through the API client's circuit breaker. */
const OUTSIDE_BREAKER = new Set([HEARTBEAT, HEALTH, PROBE, EVENTS]);

const keyOf = (r: { method: string; pathname: string }) => `${r.method} ${r.pathname}`;
const isApi = (r: { pathname: string }) => r.pathname.startsWith('/api/');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** API requests that reached the proxy in [from, to). */
function apiRequests(from: number, to = Number.POSITIVE_INFINITY): ProxiedRequest[] {
  return proxy.requests(from).filter((r) => isApi(r) && r.at < to);
}

function tally(requests: readonly { method: string; pathname: string }[]): Record<string, number> {
  const result: Record<string, number> = {};
  for (const r of requests) result[keyOf(r)] = (result[keyOf(r)] ?? 0) + 1;
  return result;
}

/** The API requests one page sends, as the page itself sees them (for telling tabs apart). */
function trackPage(page: Page) {
  const seen: { method: string; pathname: string; at: number }[] = [];
  page.on('request', (request: Request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/api/'))
      seen.push({ method: request.method(), pathname, at: Date.now() });
  });
  return {
    since: (from: number, to = Number.POSITIVE_INFINITY) =>
      seen.filter((r) => r.at >= from && r.at < to),
  };
}

async function openDashboard(page: Page) {
  await page.goto(`${proxy.origin}/dashboard`);
  await expect(handleRow(page, HANDLE)).toBeVisible();
}

async function newContext(browser: Browser, init?: () => void) {
  const context = await browser.newContext({ storageState });
  if (init) await context.addInitScript(init);
  return context;
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(60_000);
  server = await startPerchServer({ DEMO_PAGE_DELAY_MS: String(PAGE_DELAY_MS) });
  proxy = await startCountingProxy(server.origin);

  // Register through the proxy (the browser only ever sees the proxy's origin) and add the
  // handle; every test then starts from this signed-in state in a fresh context.
  const context = await browser.newContext();
  const page = await context.newPage();
  await registerUser(page, proxy.origin, 'hopper', server.firstStartCode);
  await addHandleByApi(page, proxy.origin, HANDLE, 90);
  storageState = await context.storageState();
  await context.close();
});

test.afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

test('two tabs poll like one; closing the leading tab makes the other take over', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const context = await newContext(browser);
  const first = await context.newPage();
  const firstLog = trackPage(first);
  await openDashboard(first);
  await expect(handleRow(first, HANDLE).getByTestId('handle-status')).toHaveText(/Collecting/);
  await first.waitForTimeout(SETTLE_MS);

  // Baseline: one tab, the handle collecting.
  const oneStart = Date.now();
  await sleep(WINDOW_MS);
  const one = apiRequests(oneStart, oneStart + WINDOW_MS);

  // A second tab of the same profile (one context, so BroadcastChannel connects them).
  const second = await context.newPage();
  const secondLog = trackPage(second);
  await openDashboard(second);
  await second.waitForTimeout(SETTLE_MS);
  const twoStart = Date.now();
  await sleep(WINDOW_MS);
  const twoEnd = twoStart + WINDOW_MS;
  const two = apiRequests(twoStart, twoEnd);
  const byFirst = firstLog.since(twoStart, twoEnd);
  const bySecond = secondLog.since(twoStart, twoEnd);
  console.log(
    `[resilience] one tab: ${one.length} API requests in ${WINDOW_MS / 1000} s ${JSON.stringify(tally(one))}; ` +
      `two tabs: ${two.length} ${JSON.stringify(tally(two))}; first tab sent ${byFirst.length}, second ${bySecond.length}`,
  );

  expect(one.length, 'one collecting tab polls').toBeGreaterThan(0);
  expect(two.length).toBeLessThanOrEqual(Math.ceil(1.5 * one.length));
  // Exactly one of the two tabs talks to the server; the other follows.
  expect(Math.min(byFirst.length, bySecond.length), 'the following tab sent nothing').toBe(0);
  expect(Math.max(byFirst.length, bySecond.length)).toBeGreaterThan(0);

  // The leader goes away (pagehide: it resigns); the follower takes over at once.
  const [leader, follower, followerLog] =
    byFirst.length > 0 ? [first, second, secondLog] : [second, first, firstLog];
  const closedAt = Date.now();
  await leader.close({ runBeforeUnload: true });
  await expect
    .poll(() => followerLog.since(closedAt).length, { timeout: 5_000, intervals: [100] })
    .toBeGreaterThan(0);
  const takeoverMs = (followerLog.since(closedAt)[0]?.at ?? closedAt) - closedAt;
  // And it polls from then on (the handle is still collecting), as counted at the server.
  await follower.waitForTimeout(8_000);
  const after = apiRequests(closedAt);
  console.log(
    `[resilience] takeover: first request of the remaining tab ${takeoverMs} ms after close; ` +
      `${after.length} API requests in the next ${((Date.now() - closedAt) / 1000).toFixed(1)} s ` +
      JSON.stringify(tally(after)),
  );
  expect(after.filter((r) => !OUTSIDE_BREAKER.has(keyOf(r))).length).toBeGreaterThan(0);
  await context.close();
});

/**
 * Headless Chromium keeps every page 'visible' (minimising its window, bringing another page to
 * the front, freezing it through CDP's Page.setWebLifecycleState and turning focus emulation off
 * were all tried: document.visibilityState stays 'visible', and CDP has no command that sets it).
 * So this script plays the browser's part: it makes document.visibilityState / document.hidden /
 * document.hasFocus() report what a real tab switch would, and fires the same events (blur and
 * visibilitychange on leaving; visibilitychange and focus on returning). The app's own code
 * (TanStack Query's focus manager, the health monitor, the election) is not touched.
 */
function fakeVisibility() {
  let hidden = false;
  const realHasFocus = Document.prototype.hasFocus;
  Object.defineProperty(document, 'visibilityState', {
    configurable: true,
    get: () => (hidden ? 'hidden' : 'visible'),
  });
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  document.hasFocus = function hasFocus() {
    return !hidden && realHasFocus.call(this);
  };
  (window as unknown as { __perchSetHidden: (next: boolean) => void }).__perchSetHidden = (
    next,
  ) => {
    if (next === hidden) return;
    hidden = next;
    if (next) window.dispatchEvent(new FocusEvent('blur'));
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    if (!next) window.dispatchEvent(new FocusEvent('focus'));
  };
}

async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((next) => {
    (window as unknown as { __perchSetHidden: (next: boolean) => void }).__perchSetHidden(next);
  }, hidden);
  expect(await page.evaluate(() => document.visibilityState)).toBe(hidden ? 'hidden' : 'visible');
}

test('a hidden tab stops polling and refetches when shown again', async ({ browser }) => {
  test.setTimeout(90_000);
  const context = await newContext(browser, fakeVisibility);
  const page = await context.newPage();
  await openDashboard(page);
  await expect(handleRow(page, HANDLE).getByTestId('handle-status')).toHaveText(/Collecting/);
  await page.waitForTimeout(SETTLE_MS);

  // Visible and collecting: it polls.
  const visibleStart = Date.now();
  await sleep(8_000);
  const visible = apiRequests(visibleStart).filter((r) => keyOf(r) !== HEARTBEAT);
  expect(visible.length, 'a visible collecting tab polls').toBeGreaterThan(0);

  // Hidden for 22 s: nothing but the session heartbeat reaches the server.
  await setHidden(page, true);
  await sleep(1_000); // a request already on its way when the tab was hidden may still land
  const hiddenStart = Date.now();
  await sleep(22_000);
  const whileHidden = apiRequests(hiddenStart);
  console.log(
    `[resilience] visible 8 s: ${visible.length} requests ${JSON.stringify(tally(visible))}; ` +
      `hidden 22 s: ${whileHidden.length} ${JSON.stringify(tally(whileHidden))}`,
  );
  expect(whileHidden.filter((r) => keyOf(r) !== HEARTBEAT)).toEqual([]);
  // The heartbeat goes on while hidden (every 15 s): the session stays alive.
  expect(whileHidden.filter((r) => keyOf(r) === HEARTBEAT).length).toBeGreaterThanOrEqual(1);

  // Shown again: what went stale while hidden is fetched at once (which queries are stale
  // depends on the live stream: it keeps the handle list fresh, not the progress polls).
  const shownAt = Date.now();
  await setHidden(page, false);
  await expect
    .poll(() => apiRequests(shownAt).filter((r) => keyOf(r) !== HEARTBEAT).length, {
      timeout: 5_000,
      intervals: [100],
    })
    .toBeGreaterThan(0);
  console.log(
    `[resilience] shown: ${JSON.stringify(tally(apiRequests(shownAt)))} within ${Date.now() - shownAt} ms`,
  );
  await context.close();
});

/**
 * The most requests a 60 s outage may cost, each kind from its own schedule:
 * - calls through the API client (the polls and their retries): 10 failures open the breaker,
 *   plus up to 5 that were already in flight when it opened; then none for 60 s;
 * - GET /health every 30 s and HEAD /health (connectivity probe) every 30 s: 3 each in 60 s;
 * - the session heartbeat retrying after 1, 2, 4, 8 s, then every 15 s: 8 in 60 s (+1 in flight);
 * - the SSE stream, which the browser reopens every 5 s (the server's `retry`): 12 in 60 s, +1.
 * The bound on its own is loose (a collecting dashboard without a breaker sends about 45 polls a
 * minute); what shows the breaker is that nothing goes through the API client once it is open.
 */
const OUTAGE_MS = 60_000;
const OUTAGE_BOUND = {
  breakerCalls: 15,
  [HEALTH]: 3,
  [PROBE]: 3,
  [HEARTBEAT]: 9,
  [EVENTS]: 13,
} as const;
const OUTAGE_TOTAL_BOUND = Object.values(OUTAGE_BOUND).reduce((a, b) => a + b, 0);
/** From this long into the outage the breaker is open: no call through the API client. */
const BREAKER_OPEN_BY_MS = 30_000;
/**
 * The server back, the UI recovers within this: the next 30 s health check, and some slack
 * (RESILIENCE_RECOVERY_MS overrides it, to measure how long recovery really takes).
 */
const RECOVERY_MS = Number(process.env.RESILIENCE_RECOVERY_MS ?? 40_000);

/**
 * What every page shows while the API does not answer: the app-wide connection banner ('Perch is
 * not answering'; the settings page's own 'API connection issue detected!' is not on the
 * dashboard).
 */
function connectionProblem(page: Page) {
  return page.getByTestId('connection-banner');
}

test('a server outage trips the breaker (bounded requests) and the UI recovers by itself', async ({
  browser,
}) => {
  test.setTimeout(110_000 + RECOVERY_MS);
  const context = await newContext(browser);
  const page = await context.newPage();
  await openDashboard(page);
  await page.waitForTimeout(SETTLE_MS);
  await expect(connectionProblem(page)).toBeHidden();

  const downAt = Date.now();
  proxy.down();
  // The failed health check (every 30 s) or the failures themselves show the problem.
  await expect(connectionProblem(page)).toBeVisible({ timeout: 35_000 });
  const shownAfterMs = Date.now() - downAt;
  await sleep(downAt + OUTAGE_MS - Date.now());

  const during = apiRequests(downAt, downAt + OUTAGE_MS);
  const counts = tally(during);
  const breakerCalls = during.filter((r) => !OUTSIDE_BREAKER.has(keyOf(r)));
  const lateCalls = breakerCalls.filter((r) => r.at >= downAt + BREAKER_OPEN_BY_MS);
  console.log(
    `[resilience] outage ${OUTAGE_MS / 1000} s: ${during.length} requests (bound ${OUTAGE_TOTAL_BOUND}) ` +
      `${JSON.stringify(counts)}; through the breaker ${breakerCalls.length} ` +
      `(last at +${breakerCalls.length ? ((breakerCalls.at(-1)!.at - downAt) / 1000).toFixed(1) : '-'} s); ` +
      `warning shown after ${shownAfterMs} ms`,
  );
  expect(during.every((r) => r.outcome === 'refused')).toBe(true);
  expect(breakerCalls.length).toBeLessThanOrEqual(OUTAGE_BOUND.breakerCalls);
  expect(lateCalls, 'the breaker is open: no call through the API client').toEqual([]);
  for (const key of [HEALTH, PROBE, HEARTBEAT, EVENTS] as const) {
    expect(counts[key] ?? 0, key).toBeLessThanOrEqual(OUTAGE_BOUND[key]);
  }
  expect(during.length).toBeLessThanOrEqual(OUTAGE_TOTAL_BOUND);

  // The server is back: the next health check closes the breaker and the queries refetch.
  const upAt = Date.now();
  proxy.up();
  const timeline = () =>
    apiRequests(upAt)
      .map((r) => `+${((r.at - upAt) / 1000).toFixed(1)}s ${keyOf(r)} ${r.status ?? r.outcome}`)
      .join(', ');
  let bannerGoneAfterMs: number | undefined;
  try {
    await expect(connectionProblem(page)).toBeHidden({ timeout: RECOVERY_MS });
    bannerGoneAfterMs = Date.now() - upAt;
    await expect
      .poll(
        () =>
          apiRequests(upAt).filter(
            (r) => r.method === 'GET' && r.pathname === '/api/v1/handles' && r.status === 200,
          ).length,
        { timeout: Math.max(1_000, upAt + RECOVERY_MS - Date.now()), intervals: [250] },
      )
      .toBeGreaterThan(0);
    await expect(handleRow(page, HANDLE)).toBeVisible();
  } finally {
    console.log(
      `[resilience] recovery: banner gone after ${bannerGoneAfterMs ?? '(not gone)'} ms; ` +
        `requests after up: ${timeline()}`,
    );
  }
  await context.close();
});
