import { expect, test, type Page } from '@playwright/test';
import { handleRow } from './handle-rows';
import {
  EVENTS,
  HANDLE,
  HEALTH,
  HEARTBEAT,
  OUTSIDE_BREAKER,
  PROBE,
  SETTLE_MS,
  keyOf,
  serveResilienceWorld,
  sleep,
  tally,
} from './resilience-world';

/**
 * A server outage, counted at the server (resilience-world.ts): it trips the circuit breaker, a
 * bounded number of requests go out, and the UI comes back by itself when the server does.
 */

const { apiRequests, newContext, openDashboard, proxy } = serveResilienceWorld();

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
  proxy().down();
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
  proxy().up();
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
