// Helpers shared by `npm start` and `npm test`: install when missing, build when stale.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The server `npm start` runs: the bundle its build writes last (apps/server/scripts/bundle.mjs). */
export const SERVER_BUNDLE = 'apps/server/dist/bundle/main.js';

/** Runs a command in the repo root, inheriting stdio; exits the process if it fails. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    if (!options.allowFailure) process.exit(result.status ?? 1);
  }
  return result.status ?? 1;
}

function newestMtime(entry) {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) {
    if (child === 'node_modules' || child === 'dist') continue;
    newest = Math.max(newest, newestMtime(path.join(entry, child)));
  }
  return newest;
}

/** Installs dependencies when node_modules is missing or older than the lock file. */
export function ensureInstalled({ quiet = false } = {}) {
  const marker = path.join(ROOT, 'node_modules', '.package-lock.json');
  const lock = path.join(ROOT, 'package-lock.json');
  if (fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs)
    return false;
  if (!quiet) console.log('Installing dependencies (first run only)...');
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  return true;
}

const SHARED_INPUTS = ['packages/shared/src', 'packages/shared/package.json', 'tsconfig.base.json'];

/** Each workspace's build: what it reads, and the file its build writes last. */
const BUILDS = [
  {
    workspace: '@perch/shared',
    inputs: [...SHARED_INPUTS, 'packages/shared/tsconfig.build.json'],
    output: 'packages/shared/dist/index.js',
  },
  {
    workspace: '@perch/server',
    inputs: [
      ...SHARED_INPUTS,
      'apps/server/src',
      'apps/server/package.json',
      'apps/server/tsconfig.build.json',
      'apps/server/scripts',
    ],
    output: SERVER_BUNDLE,
  },
  {
    workspace: '@perch/web',
    inputs: [
      ...SHARED_INPUTS,
      'apps/web/src',
      'apps/web/public',
      'apps/web/index.html',
      'apps/web/vite.config.ts',
      'apps/web/package.json',
    ],
    output: 'apps/web/dist/index.html',
  },
];

/** Builds every workspace whose sources are newer than its build output. */
export function ensureBuilt({ quiet = false } = {}) {
  let built = false;
  for (const { workspace, inputs, output } of BUILDS) {
    const target = path.join(ROOT, output);
    const builtAt = fs.existsSync(target) ? fs.statSync(target).mtimeMs : 0;
    const sourcesAt = Math.max(...inputs.map((input) => newestMtime(path.join(ROOT, input))));
    if (builtAt >= sourcesAt) continue;
    if (!quiet) console.log(`Building ${workspace}...`);
    run(
      'npm',
      ['run', 'build', '--silent', '-w', workspace],
      quiet ? { stdio: ['inherit', 'ignore', 'inherit'] } : {},
    );
    built = true;
  }
  return built;
}
