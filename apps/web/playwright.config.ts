import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/chromium';

/**
 * Journeys whose assertions time the app (tabs taking over, polling, an outage): never beside
 * the others, which keep both cores busy. Beside each other they are fine: each mostly waits on
 * its own quiet server and one dashboard.
 */
const TIMING_SENSITIVE = /(resilience|resilience-outage|sign-out-tabs)\.journey\.ts/;

/**
 * Browser tests drive the real built app in Debian's Chromium (never a downloaded browser).
 * `journeys` run in `npm test` (the rest of the journeys first, as its dependency); `screenshots`
 * refreshes docs/screenshots (npm run screenshots).
 */
export default defineConfig({
  testDir: './e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // The most at once, over all projects; each project sets its own below.
  workers: 3,
  retries: 0,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  use: {
    browserName: 'chromium',
    trace: 'off',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  projects: [
    // Journey files side by side, each with its own server. Three took 146-148 s against 202 s
    // with two on a fast machine (docs/decisions.md, "The suite's time"). The journeys that watch
    // a backfill run keep it slow enough to be seen on a loaded machine.
    {
      name: 'journeys-shared-cores',
      testMatch: /.*\.journey\.ts/,
      testIgnore: TIMING_SENSITIVE,
      // Two at a time since 2026-12-01 (evening): on a slow machine, three kept the cores 95%
      // busy and five journeys missed a time bound in six full runs (docs/decisions.md).
      workers: 2,
    },
    // Tab leadership, a hidden tab's polling and an outage measure time: they run after, each
    // test on its own (a worker starts its file's server for it), three at a time: on a slow
    // machine 134-136 s against 162-170 s two at a time, in two runs with takeovers of
    // 0.8-1.2 s against the 5 s bound (docs/decisions.md, "The suite's time"). Three at a time
    // had failed there before the connectivity probe was timed on the wire (docs/decisions.md,
    // "The connectivity probe is timed on the wire").
    {
      name: 'journeys',
      testMatch: TIMING_SENSITIVE,
      dependencies: ['journeys-shared-cores'],
      fullyParallel: true,
      workers: 3,
      // Their handle collects for minutes, and the dashboard's endless animations (the striped
      // progress bar, spinners) drawn in software cost the project about a third of its CPU:
      // 255 core-seconds against 160-181 in the browser's reduced motion, which stills them
      // (app/styles.css). These journeys count requests and time takeovers, which a loaded
      // machine delays; what moves on screen is the other journeys' part.
      use: { reducedMotion: 'reduce' },
      // npm test runs this project on its own after the others: a folder of its own, so that
      // run does not clear the others' failure reports.
      outputDir: 'test-results/timing',
    },
    { name: 'screenshots', testMatch: /screenshots\.ts/ },
  ],
});
