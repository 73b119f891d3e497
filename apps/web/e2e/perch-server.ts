import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const MAIN = path.join(ROOT, 'apps/server/dist/main.js');

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

/**
 * Starts the built server (as `npm start` does) on a free port with an empty data folder and
 * waits until it prints its URL and the first-start invitation.
 */
export async function startPerchServer(env: Record<string, string> = {}): Promise<PerchServer> {
  if (!fs.existsSync(MAIN))
    throw new Error('apps/server/dist is missing: run `npm run build` first');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-e2e-'));
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
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
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    origin = /Perch is running at (http:\/\/[^/\s]+)/.exec(output)?.[1];
    code = /invitation code: (PERCH-[A-Z0-9-]+)/.exec(output)?.[1];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!origin || !code) {
    child.kill('SIGKILL');
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
        { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' } },
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
    },
  };
}
