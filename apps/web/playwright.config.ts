import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/chromium';

/**
 * Browser tests drive the real built app in Debian's Chromium (never a downloaded browser).
 * `journeys` run in `npm test`; `screenshots` refreshes docs/screenshots (npm run screenshots).
 */
export default defineConfig({
  testDir: './e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  use: {
    browserName: 'chromium',
    trace: 'off',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  projects: [
    { name: 'journeys', testMatch: /.*\.journey\.ts/ },
    { name: 'screenshots', testMatch: /screenshots\.ts/ },
  ],
});
