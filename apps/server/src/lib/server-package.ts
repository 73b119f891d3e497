/** What the server's package.json says: where the package is, and its version. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The server package's folder (apps/server), found by walking up from this module to its
 * package.json: the same from src/ (tests), dist/ (the tsc build) and dist/bundle/ (the bundle
 * `npm start` runs).
 */
function findServerRoot(): { root: string; version: string } {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version: string };
      if (pkg.name === '@perch/server') return { root: dir, version: pkg.version };
    }
    if (path.dirname(dir) === dir) throw new Error('the @perch/server package.json is missing');
  }
}

const server = findServerRoot();

/** The server package's folder. */
export const SERVER_ROOT: string = server.root;
/** The server's version (its package.json). */
export const VERSION: string = server.version;
