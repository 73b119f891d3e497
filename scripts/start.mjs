// `npm start`: install when needed, build when sources changed, then run Perch (embedded mode).
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { ROOT, ensureBuilt, ensureInstalled } from './lib.mjs';

ensureInstalled();
ensureBuilt();
await import(pathToFileURL(path.join(ROOT, 'apps/server/dist/main.js')).href);
