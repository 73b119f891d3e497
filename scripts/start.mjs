// `npm start`: install when needed, build when sources changed, then run Perch. PERCH_ROLE (or
// `--role=api|worker`, as `npm run start:api` and `npm run start:worker` pass it) says what this
// process does: everything (the default), the HTTP API only, or collection and delivery only.
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { ROOT, SERVER_BUNDLE, ensureBuilt, ensureInstalled } from './lib.mjs';

const role = process.argv.find((arg) => arg.startsWith('--role='))?.slice('--role='.length);
if (role) process.env.PERCH_ROLE = role;

ensureInstalled();
ensureBuilt();
await import(pathToFileURL(path.join(ROOT, SERVER_BUNDLE)).href);
