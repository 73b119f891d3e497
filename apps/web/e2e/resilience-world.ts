import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { registerUser } from './accounts';
import { startCountingProxy, type CountingProxy, type ProxiedRequest } from './counting-proxy';
import { handleRow } from './handle-rows';
import { addHandleByApi } from './perch-api';
import { startPerchServer, type PerchServer } from './perch-server';

/**
 * The world of the client resilience journeys (resilience.journey.ts, resilience-outage.journey.ts):
 * the browser talks to a counting proxy in front of the built server (counting-proxy.ts), so
 * every number they assert is what reached the server. Each file gets a server of its own.
 */

/**
 * A quiet demo account backfilled over 90 days: 180 pages of 12 h (demo-source.ts), at 1.5 s a
 * page about 4.5 minutes, so the handle is collecting (the fastest polling) through a file's tests.
 */
export const HANDLE = 'quiet_lark';
const PAGE_DELAY_MS = 1_500;
/** After a dashboard load: the election (100 + 600 ms) and the mount fetches are over. */
export const SETTLE_MS = 3_000;

export const HEARTBEAT = 'POST /api/v1/session/heartbeat';
export const HEALTH = 'GET /api/v1/health';
export const PROBE = 'HEAD /api/v1/health';
export const EVENTS = 'GET /api/v1/events';
/** Requests that do not go through the API client's circuit breaker. */
export const OUTSIDE_BREAKER = new Set([HEARTBEAT, HEALTH, PROBE, EVENTS]);

export const keyOf = (r: { method: string; pathname: string }) => `${r.method} ${r.pathname}`;
const isApi = (r: { pathname: string }) => r.pathname.startsWith('/api/');
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function tally(
  requests: readonly { method: string; pathname: string }[],
): Record<string, number> {
  const result: Record<string, number> = {};
  for (const r of requests) result[keyOf(r)] = (result[keyOf(r)] ?? 0) + 1;
  return result;
}

export interface ResilienceWorld {
  /** The counting proxy the browser talks to (down() and up() play an outage). */
  proxy(): CountingProxy;
  /** API requests that reached the proxy in [from, to). */
  apiRequests(from: number, to?: number): ProxiedRequest[];
  /** A fresh context of the signed-in user (`init` runs in every page before the app). */
  newContext(browser: Browser, init?: () => void): Promise<BrowserContext>;
  /** The dashboard, through the proxy, once the handle's row shows. */
  openDashboard(page: Page): Promise<void>;
}

/**
 * Starts the file's server and proxy before its tests (a user signed up through the proxy,
 * following HANDLE) and stops them after.
 */
export function serveResilienceWorld(): ResilienceWorld {
  let server: PerchServer | undefined;
  let proxy: CountingProxy | undefined;
  let storageState: Awaited<ReturnType<BrowserContext['storageState']>> | undefined;

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

  const started = () => {
    if (!proxy) throw new Error('the resilience server has not started');
    return proxy;
  };
  return {
    proxy: started,
    apiRequests: (from, to = Number.POSITIVE_INFINITY) =>
      started()
        .requests(from)
        .filter((r) => isApi(r) && r.at < to),
    async newContext(browser, init) {
      const context = await browser.newContext({ storageState });
      if (init) await context.addInitScript(init);
      return context;
    },
    async openDashboard(page) {
      await page.goto(`${started().origin}/dashboard`);
      await expect(handleRow(page, HANDLE)).toBeVisible();
    },
  };
}
