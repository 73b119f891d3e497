import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** What `npm start` runs: the bundle of the built server. */
const MAIN = path.join(ROOT, 'apps/server/dist/bundle/main.js');

export interface PerchServer {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  /** The invitation code the first start printed. */
  firstStartCode: string;
  /** Everything the server printed so far. */
  output(): string;
  /** Makes another invitation with the operator CLI and returns its code. */
  invite(role?: 'user' | 'admin' | 'superadmin'): Promise<string>;
  stop(): Promise<void>;
}

export interface PerchServerOptions {
  /**
   * PostgreSQL when TEST_DATABASE_URL is set (CI sets it): a fresh schema of that database,
   * dropped at stop. Without the variable the server keeps SQLite in its data folder.
   */
  postgres?: boolean;
}

/** A new schema in TEST_DATABASE_URL and the DATABASE_URL that pins it; null when unset. */
async function freshPostgresSchema(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return null;
  // The server's own driver (a dependency of apps/server, as the server tests use it).
  const { Client } = createRequire(path.join(ROOT, 'apps/server/package.json'))('pg') as typeof pg;
  const run = async (sql: string) => {
    const client = new Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const schema = `e2e_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await run(`create schema ${schema}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => run(`drop schema if exists ${schema} cascade`) };
}

/**
 * Starts the built server (as `npm start` does) on a free port with an empty data folder (and
 * with `postgres`, an empty schema) and waits until it prints its URL and the first-start
 * invitation.
 */
export async function startPerchServer(
  env: Record<string, string> = {},
  options: PerchServerOptions = {},
): Promise<PerchServer> {
  if (!fs.existsSync(MAIN))
    throw new Error('apps/server/dist is missing: run `npm run build` first');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-e2e-'));
  const postgres = options.postgres ? await freshPostgresSchema() : null;
  const database = postgres ? { DATABASE_URL: postgres.url } : {};
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...database,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const deadline = Date.now() + 20_000;
  let origin: string | undefined;
  let code: string | undefined;
  while (Date.now() < deadline && !(origin && code)) {
    if (child.exitCode !== null) {
      await postgres?.drop();
      throw new Error(`server exited early:\n${output}`);
    }
    origin = /Perch is running at (http:\/\/[^/\s]+)/.exec(output)?.[1];
    code = /invitation code: (PERCH-[A-Z0-9-]+)/.exec(output)?.[1];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!origin || !code) {
    child.kill('SIGKILL');
    await postgres?.drop();
    throw new Error(`server did not start in time:\n${output}`);
  }
  return {
    origin,
    firstStartCode: code,
    output: () => output,
    async invite(role = 'user') {
      const { stdout } = await execFileAsync(
        process.execPath,
        [
          '--conditions=@perch/source',
          '--import',
          'tsx',
          'apps/server/src/cli.ts',
          'invite',
          'create',
          '--role',
          role,
        ],
        { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...database } },
      );
      return stdout.trim().split('\n').at(-1) ?? '';
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
      await postgres?.drop();
    },
  };
}
