import { expect, test, type Page, type Request } from '@playwright/test';
import { handleRow } from './handle-rows';
import {
  HANDLE,
  HEARTBEAT,
  OUTSIDE_BREAKER,
  SETTLE_MS,
  keyOf,
  serveResilienceWorld,
  sleep,
  tally,
} from './resilience-world';

/**
 * Client resilience with tabs, counted at the server (resilience-world.ts):
 *
 * 1. Two tabs of one browser profile cost about what one costs: only the leading tab polls, and
 *    closing it hands polling to the other tab within a few seconds.
 * 2. A hidden tab stops polling (only the session heartbeat goes on) and refetches when shown.
 *
 * A server outage is resilience-outage.journey.ts.
 */

const { apiRequests, newContext, openDashboard } = serveResilienceWorld();

/** A counting window: longer than the 15 s heartbeat, so even a leader that only beats shows. */
const WINDOW_MS = 16_000;

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

/** Waits (5 s at most) for the page of `log` to send a request from `from` on; answers how soon. */
async function firstRequestAfter(log: ReturnType<typeof trackPage>, from: number): Promise<number> {
  await expect
    .poll(() => log.since(from).length, { timeout: 5_000, intervals: [100] })
    .toBeGreaterThan(0);
  return log.since(from)[0]!.at - from;
}

test('two tabs poll like one; closing or crashing the leading tab makes another take over', async ({
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
  const takeoverMs = await firstRequestAfter(followerLog, closedAt);
  // And it polls from then on (the handle is still collecting), as counted at the server.
  await follower.waitForTimeout(8_000);
  const after = apiRequests(closedAt);
  console.log(
    `[resilience] takeover: first request of the remaining tab ${takeoverMs} ms after close; ` +
      `${after.length} API requests in the next ${((Date.now() - closedAt) / 1000).toFixed(1)} s ` +
      JSON.stringify(tally(after)),
  );
  expect(after.filter((r) => !OUTSIDE_BREAKER.has(keyOf(r))).length).toBeGreaterThan(0);

  // A tab that crashes says nothing, but the browser frees its Web Lock: the tab that follows
  // it takes over as fast as from a tab that was closed, not after 15 s of silence.
  const third = await context.newPage();
  const thirdLog = trackPage(third);
  await openDashboard(third);
  await third.waitForTimeout(SETTLE_MS);
  expect(thirdLog.since(Date.now() - 2_000), 'the new tab follows').toEqual([]);
  const crashedAt = Date.now();
  const crashed = new Promise((resolve) => follower.once('crash', resolve));
  const cdp = await context.newCDPSession(follower);
  void cdp.send('Page.crash').catch(() => {
    // The renderer is gone before it can answer.
  });
  await crashed;
  const crashTakeoverMs = await firstRequestAfter(thirdLog, crashedAt);
  console.log(
    `[resilience] crash: first request of the remaining tab ${crashTakeoverMs} ms after the crash`,
  );
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
