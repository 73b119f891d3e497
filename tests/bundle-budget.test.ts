// Web bundle budget: the login page loads at most 200 kB of gzipped JavaScript, and the
// analytics view (with the charts library) is a separate chunk loaded on demand.
//
// Reads the built SPA (apps/web/dist) and Vite's manifest (build.manifest in
// apps/web/vite.config.ts): a page loads the entry chunk, its route's chunk and everything they
// import statically; dynamic imports load later. Chunk names are found through the manifest, so
// renamed or re-hashed chunks need no change here. `npm test` builds apps/web first.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'apps/web/dist');
const MANIFEST = path.join(DIST, '.vite/manifest.json');
/** The budget: 200 kB (1 kB = 1,000 bytes) of gzipped JS for the login page. */
const LOGIN_BUDGET_BYTES = 200_000;
/** Class names recharts (under @mantine/charts) writes into the DOM; in no other code. */
const CHARTS_MARKER = /recharts-(?:wrapper|surface|cartesian|tooltip)/;
/** What the web build reads (as scripts/lib.mjs ensureBuilt): newer than dist means stale. */
const WEB_INPUTS = [
  'packages/shared/src',
  'packages/shared/package.json',
  'tsconfig.base.json',
  'apps/web/src',
  'apps/web/public',
  'apps/web/index.html',
  'apps/web/vite.config.ts',
  'apps/web/package.json',
];

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

function newestMtime(entry: string): number {
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

/** The manifest keys `start` loads before running: themselves and their static imports. */
function staticClosure(manifest: Manifest, start: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`the manifest names ${key} but has no entry for it`);
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  start.forEach(visit);
  return seen;
}

/** Every manifest key `start` can lead to, statically or dynamically, not passing `excluded`. */
function reachableWithout(
  manifest: Manifest,
  start: string,
  excluded: readonly string[],
): string[] {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (seen.has(key) || excluded.includes(key)) continue;
    seen.add(key);
    stack.push(...(manifest[key]?.imports ?? []), ...(manifest[key]?.dynamicImports ?? []));
  }
  return [...seen];
}

/** The JS files of manifest keys, relative to dist. */
function jsFiles(manifest: Manifest, keys: Iterable<string>): Set<string> {
  return new Set(
    [...keys].map((key) => manifest[key]!.file).filter((file) => file.endsWith('.js')),
  );
}

const sizes = new Map<string, { raw: number; gzip: number }>();
function sizeOf(file: string): { raw: number; gzip: number } {
  let size = sizes.get(file);
  if (!size) {
    const content = fs.readFileSync(path.join(DIST, file));
    size = { raw: content.length, gzip: zlib.gzipSync(content, { level: 9 }).length };
    sizes.set(file, size);
  }
  return size;
}

const text = (file: string) => fs.readFileSync(path.join(DIST, file), 'utf8');
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** The one manifest key of a source module, by the end of its path. */
function keyOf(manifest: Manifest, sourceSuffix: string): string {
  const keys = Object.keys(manifest).filter((key) => key.endsWith(sourceSuffix));
  if (keys.length !== 1) {
    throw new Error(`expected one manifest entry for ${sourceSuffix}, found ${keys.length}`);
  }
  return keys[0]!;
}

let manifest: Manifest;
let entryKey: string;

/**
 * What the login page loads: the entry, the login route's chunk (none when the route is
 * bundled into the entry) and their static imports.
 */
function loginLoads(): Set<string> {
  const route = Object.keys(manifest).filter((key) => key.endsWith('src/app/routes/login.tsx'));
  return staticClosure(manifest, [entryKey, ...route]);
}

beforeAll(() => {
  if (!fs.existsSync(path.join(DIST, 'index.html')) || !fs.existsSync(MANIFEST)) {
    throw new Error(
      `${path.relative(ROOT, MANIFEST)} is missing: build the web app first ` +
        '(`npm run build -w @perch/web`; `npm test` does it), with build.manifest on in ' +
        'apps/web/vite.config.ts.',
    );
  }
  const builtAt = fs.statSync(MANIFEST).mtimeMs;
  const stale = WEB_INPUTS.filter((input) => newestMtime(path.join(ROOT, input)) > builtAt);
  if (stale.length > 0) {
    throw new Error(
      `apps/web/dist is older than ${stale.join(', ')}: rebuild it ` +
        '(`npm run build -w @perch/web`) so the sizes measured are those of the current code.',
    );
  }
  manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as Manifest;
  const entries = Object.keys(manifest).filter((key) => manifest[key]!.isEntry);
  expect(entries, 'the SPA has one entry').toHaveLength(1);
  entryKey = entries[0]!;
});

describe('web bundle budget', () => {
  it('loads at most 200 kB of gzipped JS for the login page', () => {
    const files = jsFiles(manifest, loginLoads());

    // index.html must agree with the manifest: its script and preloads are all in that set.
    const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
    const referenced = [
      ...html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g),
      ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g),
    ].map((match) => match[1]!.replace(/^.*?(assets\/)/, '$1'));
    expect(referenced).toContain(manifest[entryKey]!.file);
    for (const file of referenced) expect(files, `index.html loads ${file}`).toContain(file);

    let gzip = 0;
    let raw = 0;
    const lines: string[] = [];
    for (const file of [...files].sort((a, b) => sizeOf(b).gzip - sizeOf(a).gzip)) {
      const size = sizeOf(file);
      gzip += size.gzip;
      raw += size.raw;
      lines.push(`  ${kB(size.gzip).padStart(9)}  ${file}`);
    }
    console.log(
      `login page JS: ${files.size} files, ${kB(gzip)} gzipped (${kB(raw)} minified), ` +
        `budget ${kB(LOGIN_BUDGET_BYTES)}\n${lines.join('\n')}`,
    );
    expect(gzip, 'gzipped JS bytes the login page loads').toBeLessThanOrEqual(LOGIN_BUDGET_BYTES);
  });

  it('keeps the analytics view and the charts library out of every other page', () => {
    const dashboardKey = keyOf(manifest, 'src/app/routes/dashboard.tsx');
    const dashboard = manifest[dashboardKey]!;

    // The analytics view: what the dashboard route imports dynamically.
    const analyticsKeys = (dashboard.dynamicImports ?? []).filter((key) => /analytics/i.test(key));
    expect(
      analyticsKeys,
      'the dashboard route loads the analytics view with a dynamic import()',
    ).not.toHaveLength(0);

    // Everything the app can load without the view (lazy chunks included, but not those only
    // the view leads to), with their static imports: the login page and the dashboard shell
    // are part of it.
    const loginKeys = loginLoads();
    const dashboardLoads = staticClosure(manifest, [entryKey, dashboardKey]);
    const otherLoads = staticClosure(manifest, reachableWithout(manifest, entryKey, analyticsKeys));
    const analyticsLoads = staticClosure(manifest, analyticsKeys);
    for (const key of analyticsKeys) {
      expect(manifest[key]!.isDynamicEntry, `${key} is a lazy chunk`).toBe(true);
      expect(loginKeys.has(key), `the login page does not load ${key}`).toBe(false);
      expect(dashboardLoads.has(key), `the dashboard shell does not load ${key}`).toBe(false);
      expect(otherLoads.has(key), `no other chunk imports ${key} statically`).toBe(false);
    }

    // The charts library comes with the analytics view only (or with chunks only it loads).
    const withCharts = (keys: Iterable<string>) =>
      [...jsFiles(manifest, keys)].filter((file) => CHARTS_MARKER.test(text(file)));
    const viewOnly = analyticsKeys
      .flatMap((key) => reachableWithout(manifest, key, []))
      .filter((key) => !otherLoads.has(key));
    expect(
      withCharts(viewOnly),
      'the charts library is found in the analytics view chunks (else CHARTS_MARKER is out of date)',
    ).not.toHaveLength(0);
    expect(withCharts(loginKeys), 'chunks of the login page holding chart code').toEqual([]);
    expect(withCharts(otherLoads), 'chunks outside the analytics view holding chart code').toEqual(
      [],
    );

    const own = jsFiles(
      manifest,
      [...analyticsLoads].filter((key) => !otherLoads.has(key)),
    );
    const gzip = [...own].reduce((sum, file) => sum + sizeOf(file).gzip, 0);
    console.log(
      `analytics view (lazy): ${[...own].join(', ')}: ${kB(gzip)} gzipped that only it loads`,
    );
  });
});
