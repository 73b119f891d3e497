import { Readable } from 'node:stream';
import { vi } from 'vitest';
import type { TestDb } from '../../test/helpers.js';
import { runCli } from './run-cli.js';

/**
 * Runs the operator CLI in-process against the test database, with `env` over the database's
 * settings and `stdin` as its standard input (delivered in small pieces as a pipe would), and
 * returns what it printed.
 */
export async function runCliOn(
  db: TestDb,
  env: Record<string, string>,
  args: string[],
  stdin = '',
) {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...p) => void out.push(p.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...p) => void err.push(p.join(' ')));
  try {
    const code = await runCli(
      args,
      {
        DATA_DIR: db.config.DATA_DIR,
        LOG_LEVEL: 'silent',
        DATABASE_URL: db.config.DATABASE_URL,
        ...env,
      },
      Readable.from(stdin.match(/[\s\S]{1,7}/g) ?? []),
    );
    const lines = out.join('\n').split('\n');
    return {
      code,
      stdout: out.join('\n'),
      stderr: err.join('\n'),
      lastLine: lines[lines.length - 1] ?? '',
    };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}
