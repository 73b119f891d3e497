// Client load benchmark: ten open tabs should cost the server about as much as one (target:
// 10 tabs cost at most 1.2x one tab).
// Usage: npm run bench:client-load   (builds first when needed; about 8 minutes)
//        node --import tsx bench/client-load/run.mjs   (the app must be built)
//
// The built server (apps/web/e2e/perch-server.ts, a temp DATA_DIR, the demo tweet source) runs
// behind the counting proxy of apps/web/e2e/counting-proxy.ts; Debian's Chromium opens the
// proxy's origin, so every request counted is one that reached the server. One user, 10 handles,
// the dashboard open in 1 tab, then in 10 tabs of one browser profile (one context: the tabs see
// each other over BroadcastChannel). Each scenario gets a fresh context; the API requests (/api/...)
// reaching the proxy are counted over a window that starts a fixed time after the first tab opened.
//
// Two states, each on its own server:
// - idle: 10 handles with a 1-day backfill and no page delay, all completed before measuring;
// - collecting: 10 quiet handles with a 90-day backfill (180 pages of 12 h) at DEMO_PAGE_DELAY_MS
//   2000: with the collector's 4 slots every handle is still collecting or queued at the end.
//
// Prints a Markdown table and one JSON line, and writes the "Client load" section of
// docs/benchmarks.md (BENCH_NO_DOCS=1 leaves the docs alone). BENCH_WINDOW_S (default 60) and
// BENCH_WARMUP_S (default 30, counted from the first tab opened) change the window; BENCH_TABS (default 10) the tab count.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../apps/web/e2e/chromium.ts';
import { startCountingProxy } from '../../apps/web/e2e/counting-proxy.ts';
import { startPerchServer } from '../../apps/web/e2e/perch-server.ts';
import { renderSection, replaceSection } from './report.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = path.join(ROOT, 'docs/benchmarks.md');
const WINDOW_MS = Number(process.env.BENCH_WINDOW_S ?? 60) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 30) * 1000;
const TABS = Number(process.env.BENCH_TABS ?? 10);
const HANDLES = 10;
const TARGET_RATIO = 1.2;
const PASSWORD = 'Corr3ct-Horse!';

const STATES = {
  idle: {
    env: { DEMO_PAGE_DELAY_MS: '0' },
    handle: (i) => `typical_idle${i}`,
    backfillDays: 1,
  },
  collecting: {
    env: { DEMO_PAGE_DELAY_MS: '2000' },
    handle: (i) => `quiet_busy${i}`,
    backfillDays: 90,
  },
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const isApi = (r) => r.pathname.startsWith('/api/');
/** Routes with the handle name folded, e.g. GET /api/v1/handles/:handle/backfill-progress. */
const keyOf = (r) =>
  `${r.method} ${r.pathname
    .replace(/\/handles\/[^/]+\//, '/handles/:handle/')
    .replace(/\/analytics\/([a-z-]+)\/[^/]+$/, '/analytics/$1/:handle')}`;

function tally(requests) {
  const result = {};
  for (const r of requests) result[keyOf(r)] = (result[keyOf(r)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(result).sort((a, b) => b[1] - a[1]));
}

async function register(browser, origin, code) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/dashboard/register`);
  await page.getByLabel('Username').fill('bench');
  await page.getByLabel('Email').fill('bench@example.com');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByLabel('Invitation code').fill(code);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByTestId('user-badge').waitFor({ timeout: 20_000 });
  return { context, page };
}

async function addHandles(context, origin, state) {
  const csrf = (await context.cookies()).find((c) => c.name === 'perch_csrf')?.value ?? '';
  for (let i = 0; i < HANDLES; i++) {
    const response = await context.request.post(`${origin}/api/v1/handles`, {
      data: { username: state.handle(i), backfill_days: state.backfillDays, async: true },
      headers: { 'x-csrf-token': csrf },
    });
    if (response.status() !== 201) {
      throw new Error(`adding ${state.handle(i)}: ${response.status()} ${await response.text()}`);
    }
  }
}

async function handleStatuses(context, origin) {
  const response = await context.request.get(`${origin}/api/v1/handles`);
  const body = await response.json();
  return body.data.handles.map((h) => h.backfill_status);
}

/**
 * Opens `tabs` dashboard tabs in a fresh context, then counts the API requests over the window.
 * The window starts WARMUP_MS after the FIRST tab opened, so the leading tab (the oldest, unless
 * another takes over) is as old in both scenarios: the poll gate slows polling down as the time
 * since the person's last activity grows (10 s, 60 s, 5 min), and nobody moves a mouse here.
 */
async function measure(browser, proxy, storageState, tabs) {
  const context = await browser.newContext({
    storageState,
    viewport: { width: 1280, height: 900 },
  });
  const openedAt = Date.now();
  /** Per tab: when it sent API requests, as the page itself saw them. */
  const sentAt = [];
  for (let i = 0; i < tabs; i++) {
    const page = await context.newPage();
    const times = [];
    sentAt.push(times);
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/api/'))
        times.push({ at: Date.now(), method: request.method(), pathname });
    });
    await page.goto(`${proxy.origin}/dashboard`);
    await page.getByTestId('handle-row').first().waitFor({ timeout: 30_000 });
  }
  const windowStart = openedAt + WARMUP_MS;
  if (Date.now() > windowStart) {
    console.warn(`${tabs} tabs took ${Date.now() - openedAt} ms to open, longer than the warm-up`);
  }
  await sleep(Math.max(0, windowStart + WINDOW_MS - Date.now()));
  const windowEnd = windowStart + WINDOW_MS;
  const opening = proxy.requests(openedAt).filter((r) => isApi(r) && r.at < windowStart);
  const inWindow = proxy.requests(windowStart).filter((r) => isApi(r) && r.at < windowEnd);
  const perTab = sentAt
    .map((times) => times.filter((r) => r.at >= windowStart && r.at < windowEnd))
    .filter((sent) => sent.length > 0)
    .sort((a, b) => b.length - a.length);
  const sendingTabs = perTab.length;
  // What the tabs other than the busiest sent (a follower's fetch, or a change of leader).
  const otherTabs = tally(perTab.slice(1).flat());
  await context.close();
  return {
    tabs,
    openingRequests: opening.length,
    openingSeconds: Math.round((windowStart - openedAt) / 1000),
    requests: inWindow.length,
    perMinute: Math.round((inWindow.length * 60_000) / WINDOW_MS),
    sendingTabs,
    byRoute: tally(inWindow),
    otherTabs,
  };
}

async function runState(browser, name) {
  const state = STATES[name];
  const server = await startPerchServer(state.env);
  const proxy = await startCountingProxy(server.origin);
  try {
    const { context } = await register(browser, proxy.origin, server.firstStartCode);
    await addHandles(context, proxy.origin, state);
    if (name === 'idle') {
      const deadline = Date.now() + 120_000;
      while (!(await handleStatuses(context, proxy.origin)).every((s) => s === 'completed')) {
        if (Date.now() > deadline) throw new Error('idle: backfills did not complete in 2 minutes');
        await sleep(500);
      }
    }
    const storageState = await context.storageState();
    await context.close();

    const rows = [];
    for (const tabs of [1, TABS]) {
      const row = await measure(browser, proxy, storageState, tabs);
      const check = await browser.newContext({ storageState });
      const statuses = await handleStatuses(check, proxy.origin);
      await check.close();
      row.collecting = statuses.filter((s) => s !== 'completed' && s !== 'failed').length;
      if (name === 'collecting' && row.collecting < HANDLES) {
        console.warn(`collecting: only ${row.collecting} of ${HANDLES} handles still collecting`);
      }
      if (name === 'idle' && row.collecting > 0) {
        console.warn(`idle: ${row.collecting} handles collecting again`);
      }
      rows.push({ state: name, ...row });
      console.error(
        `${name}, ${tabs} tab(s): ${row.perMinute} req/min from ${row.sendingTabs} tab(s) ` +
          `${JSON.stringify(row.byRoute)}; from the other tabs ${JSON.stringify(row.otherTabs)}`,
      );
    }
    return rows;
  } finally {
    await proxy.close();
    await server.stop();
  }
}

function chromiumVersion() {
  try {
    return execFileSync(CHROMIUM_PATH, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'Chromium (version unknown)';
  }
}

async function main() {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: apt-get install chromium, or set CHROMIUM_PATH`,
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
  const rows = [];
  try {
    for (const name of ['idle', 'collecting']) rows.push(...(await runState(browser, name)));
  } finally {
    await browser.close();
  }

  const results = ['idle', 'collecting'].map((state) => {
    const one = rows.find((r) => r.state === state && r.tabs === 1);
    const many = rows.find((r) => r.state === state && r.tabs === TABS);
    const ratio = one.perMinute === 0 ? null : many.perMinute / one.perMinute;
    return { state, one, many, ratio, met: ratio !== null && ratio <= TARGET_RATIO };
  });
  const meta = {
    date: new Date().toISOString().slice(0, 10),
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model?.trim() ?? 'unknown',
    node: process.version,
    chromium: chromiumVersion(),
    windowS: WINDOW_MS / 1000,
    warmupS: WARMUP_MS / 1000,
    tabs: TABS,
    handles: HANDLES,
    target: TARGET_RATIO,
  };
  const section = renderSection(meta, results);
  console.log(section);
  console.log(JSON.stringify({ meta, rows }));
  if (process.env.BENCH_NO_DOCS !== '1') {
    fs.writeFileSync(DOCS, replaceSection(fs.readFileSync(DOCS, 'utf8'), section));
    console.error(`wrote the "Client load" section of ${path.relative(ROOT, DOCS)}`);
  }
}

await main();
