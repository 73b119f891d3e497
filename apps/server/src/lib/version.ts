import fs from 'node:fs';

/** The server's version (its package.json), found the same way from src/ (tests) and dist/. */
export const VERSION: string = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
