// The server that `npm start` runs: the tsc build of src/main.ts and the libraries it loads at
// start-up, bundled by esbuild into dist/bundle/. Loading a few files rather than about 400
// modules is most of a built app's start-up (docs/benchmarks.md, "Start-up of an already built
// app"). Tests and benchmarks that import the server's modules keep using the tsc build in dist/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(SERVER, 'dist/bundle');

/** Loaded from node_modules as they are. */
const EXTERNAL = [
  // native addons
  'better-sqlite3',
  '@node-rs/argon2',
  // they find files of their own at run time: pino's transports run in worker threads started
  // from a file, swagger-ui and static serve their folders
  'pino',
  'pino-pretty',
  '@fastify/swagger-ui',
  '@fastify/static',
  // loaded on first use only (scale-out roles, the x-web source, 2FA set-up, password checks):
  // they stay out of start-up
  'bullmq',
  'ioredis',
  'pg',
  'linkedom',
  'x-client-transaction-id',
  'qrcode',
  '@zxcvbn-ts/language-common',
];

fs.rmSync(OUT, { recursive: true, force: true });
await build({
  entryPoints: [path.join(SERVER, 'dist/main.js')],
  outdir: OUT,
  bundle: true,
  // modules imported with import() become chunks of their own, loaded when first used
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // CommonJS libraries in an ES module bundle still call require() for Node's own modules
  banner: {
    js: "import { createRequire as __perchRequire } from 'node:module'; const require = __perchRequire(import.meta.url);",
  },
  // back to the TypeScript sources, through the tsc build's own source maps
  sourcemap: 'linked',
  logLevel: 'warning',
});
