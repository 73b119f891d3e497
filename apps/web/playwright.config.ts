import { defineConfig } from '@playwright/test';

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
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [
    { name: 'journeys', testMatch: /.*\.journey\.ts/ },
    { name: 'screenshots', testMatch: /screenshots\.ts/ },
  ],
});
