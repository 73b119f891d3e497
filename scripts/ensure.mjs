// Installs and builds only what is missing or stale (used before the CLI and benchmarks).
import { ensureBuilt, ensureInstalled } from './lib.mjs';

const quiet = process.argv.includes('--quiet');
ensureInstalled({ quiet });
if (!process.argv.includes('--install-only')) ensureBuilt({ quiet });
