// `npm test`: the whole suite — lint, typecheck, unit/API/component tests, browser journey.
// Installs what is missing first (dependencies, Debian's chromium when root), never skips.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, ensureBuilt, ensureInstalled, run } from './lib.mjs';

const suiteStarted = Date.now();

function findChromium() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((candidate) => candidate && fs.existsSync(candidate));
}

function ensureChromium() {
  const found = findChromium();
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  const hasApt = spawnSync('which', ['apt-get']).status === 0;
  if (isRoot && hasApt) {
    console.log('Installing Debian chromium for the browser tests...');
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', 'chromium'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    const installed = findChromium();
    if (installed) return installed;
  }
  console.error(
    'Chromium is required for the browser tests: install it (sudo apt-get install chromium) or set CHROMIUM_PATH.',
  );
  process.exit(1);
}

ensureInstalled();
const chromium = ensureChromium();
ensureBuilt();

const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-test-report-'));
const steps = [];

function step(name, command, args, env = {}) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const status = run(command, args, { allowFailure: true, env: { ...process.env, ...env } });
  steps.push({ name, ok: status === 0, seconds: (Date.now() - started) / 1000 });
}

/**
 * Steps run at the same time (the static checks, which only read the tree), before the tests;
 * each one's output is printed whole when it ends, so the log stays readable. Beside the tests
 * at the lowest CPU priority they saved a minute but slowed the tests they ran beside
 * (docs/decisions.md, "The suite's time").
 */
function concurrentSteps(list) {
  return Promise.all(
    list.map(
      ([name, command, args]) =>
        new Promise((resolve) => {
          const started = Date.now();
          const child = spawn(command, args, {
            cwd: ROOT,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let output = '';
          child.stdout.on('data', (chunk) => (output += chunk));
          child.stderr.on('data', (chunk) => (output += chunk));
          child.on('close', (status) => {
            console.log(`\n=== ${name} ===\n${output.trimEnd()}`);
            steps.push({ name, ok: status === 0, seconds: (Date.now() - started) / 1000 });
            resolve();
          });
        }),
    ),
  );
}

await concurrentSteps([
  ['dependency audit (production)', 'node', ['scripts/audit.mjs']],
  ['lint', 'npx', ['eslint', '.', '--max-warnings', '0']],
  ['format', 'npx', ['prettier', '--check', '.', '--log-level', 'warn']],
  ['typecheck', 'npm', ['run', 'typecheck', '--silent']],
]);
const vitestReport = path.join(reports, 'vitest.json');
step('unit, API and component tests', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestReport}`,
]);
const playwright = (project, ...more) => [
  'playwright',
  'test',
  '-c',
  'apps/web/playwright.config.ts',
  '--project',
  project,
  ...more,
];
const browserEnv = (report) => ({ CHROMIUM_PATH: chromium, PLAYWRIGHT_JSON_OUTPUT_NAME: report });
const e2eReport = path.join(reports, 'playwright.json');
step(
  'browser journeys (Chromium)',
  'npx',
  playwright('journeys-shared-cores'),
  browserEnv(e2eReport),
);

// Last, one after the other: the journeys that time the app, then scale-out, two API and two
// worker processes on PostgreSQL and Redis. Side by side they saved a minute on a fast machine,
// but on a slow one scale-out's processes missed their start deadline and the timing journeys
// their polling windows (docs/decisions.md, "The suite's time"). Scale-out needs the
// PostgreSQL of TEST_DATABASE_URL (CI sets it) and Redis.
const timingReport = path.join(reports, 'playwright-timing.json');
const scaleOutReport = path.join(reports, 'scale-out.json');
const lastSteps = [
  [
    'browser journeys that time the app (Chromium)',
    'npx',
    playwright('journeys', '--no-deps'),
    browserEnv(timingReport),
  ],
];
if (process.env.TEST_DATABASE_URL) {
  lastSteps.push([
    'scale-out (2 API + 2 workers on PostgreSQL and Redis)',
    'npx',
    [
      'vitest',
      'run',
      '-c',
      'apps/server/vitest.scale-out.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${scaleOutReport}`,
    ],
  ]);
} else {
  console.log('\n=== scale-out ===\nnot run: set TEST_DATABASE_URL (PostgreSQL) to run it');
}
for (const [name, command, args, env] of lastSteps) step(name, command, args, env);

let passed = 0;
let failed = 0;
let skipped = 0;
/** 'file › test' of every failed test, repeated at the end where a long log is cut. */
const failures = [];
for (const file of [vitestReport, scaleOutReport]) {
  if (!fs.existsSync(file)) continue;
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  for (const suite of report.testResults) {
    const where = path.relative(process.cwd(), suite.name);
    for (const test of suite.assertionResults) {
      if (test.status === 'failed') failures.push(`${where} › ${test.fullName}`);
    }
    if (suite.status === 'failed' && suite.assertionResults.length === 0) {
      failures.push(`${where} (${suite.message.split('\n')[0]})`);
    }
  }
}
/** Playwright's report nests suites (file, describe) around specs. */
function failedSpecs(suite, trail) {
  const here = [...trail, suite.title].filter(Boolean);
  const own = (suite.specs ?? [])
    .filter((spec) => !spec.ok)
    .map((spec) => [...here, spec.title].join(' › '));
  return [...own, ...(suite.suites ?? []).flatMap((child) => failedSpecs(child, here))];
}
for (const file of [e2eReport, timingReport]) {
  if (!fs.existsSync(file)) continue;
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  passed += report.stats.expected + report.stats.flaky;
  failed += report.stats.unexpected;
  skipped += report.stats.skipped;
  failures.push(...report.suites.flatMap((suite) => failedSpecs(suite, [])));
}
fs.rmSync(reports, { recursive: true, force: true });

console.log('\n=== summary ===');
for (const { name, ok, seconds } of steps) {
  console.log(`${ok ? 'ok  ' : 'FAIL'}  ${name} (${seconds.toFixed(1)} s)`);
}
console.log(`npm test took ${((Date.now() - suiteStarted) / 60_000).toFixed(1)} minutes`);
for (const failure of failures) console.log(`failed: ${failure}`);
const failedSteps = steps.filter((s) => !s.ok).length;
// A failing lint or typecheck step counts as a failure even when every test passed.
console.log(
  `tests: ${passed} passed, ${failed + (failed === 0 ? failedSteps : 0)} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
process.exit(failedSteps > 0 || failed > 0 ? 1 : 0);
