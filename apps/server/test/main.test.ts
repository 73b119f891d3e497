import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

interface Running {
  child: ChildProcess;
  origin: string;
  output: () => string;
  dataDir: string;
}

const started: Running[] = [];

/** Starts src/main.ts as `npm start` would run the build, on a free port and empty DATA_DIR. */
async function startMain(env: Record<string, string> = {}, dataDir?: string): Promise<Running> {
  const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'perch-main-'));
  const child = spawn(
    process.execPath,
    ['--conditions=@perch/source', '--import', 'tsx', 'src/main.ts'],
    {
      cwd: SERVER_DIR,
      env: {
        ...process.env,
        DATA_DIR: dir,
        PORT: '0',
        LOG_LEVEL: 'info',
        DATABASE_URL: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const running: Running = { child, origin: '', output: () => output, dataDir: dir };
  started.push(running);
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const origin = /Perch is running at (http:\/\/[^/\s]+)/.exec(output)?.[1];
    if (origin) return { ...running, origin };
    if (child.exitCode !== null) return running;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`did not start:\n${output}`);
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

afterEach(async () => {
  for (const { child, dataDir } of started.splice(0)) {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exitOf(child);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('main entry point', () => {
  it('prints the first-start invitation once, and never again after someone registered', async () => {
    const first = await startMain();
    const code = /invitation code: (PERCH-[A-Z0-9-]+)/.exec(first.output())?.[1];
    expect(code).toBeDefined();
    expect(first.output()).toContain(`${first.origin}/dashboard/register`);

    // A restart before anyone registered shows the same code (no new invitation per restart).
    first.child.kill('SIGTERM');
    expect(await exitOf(first.child)).toBe(0);
    const second = await startMain({}, first.dataDir);
    expect(second.output()).toContain(`invitation code: ${code}`);

    const check = await fetch(`${second.origin}/api/v1/auth/check`);
    const csrf = /perch_csrf=([^;]+)/.exec(check.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const register = await fetch(`${second.origin}/api/v1/auth/register`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: `perch_csrf=${csrf}`,
        'x-csrf-token': csrf,
      },
      body: JSON.stringify({
        username: 'first',
        email: 'first@example.com',
        password: 'Sup3r-secret!',
        confirmPassword: 'Sup3r-secret!',
        invitationCode: code,
      }),
    });
    expect(register.status).toBe(201);
    expect(
      ((await register.json()) as { data: { user: { isSuperAdmin: boolean } } }).data.user
        .isSuperAdmin,
    ).toBe(true);

    second.child.kill('SIGTERM');
    await exitOf(second.child);
    const third = await startMain({}, first.dataDir);
    expect(third.output()).not.toContain('invitation code');
    expect(third.output()).toContain('Sign in at');
  });

  it('finishes a request in flight on SIGTERM, then stops accepting and exits 0', async () => {
    const server = await startMain();
    const check = await fetch(`${server.origin}/api/v1/auth/check`);
    const csrf = /perch_csrf=([^;]+)/.exec(check.headers.get('set-cookie') ?? '')?.[1] ?? '';
    // A sign-in runs argon2 (tens of ms): signal while it is being worked on.
    const inFlight = fetch(`${server.origin}/api/v1/auth/login`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: `perch_csrf=${csrf}`,
        'x-csrf-token': csrf,
      },
      body: JSON.stringify({ username: 'nobody', password: 'whatever-it-is' }),
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    server.child.kill('SIGTERM');
    const response = await inFlight;
    expect(response.status).toBe(401);
    expect(await exitOf(server.child)).toBe(0);
    await expect(fetch(`${server.origin}/api/v1/health`)).rejects.toThrow();
    expect(server.output()).toContain('shutting down');
  });

  it('refuses to start on bad configuration, listing every problem', async () => {
    const server = await startMain({ PORT: 'abc', LOG_LEVEL: 'loud' });
    expect(await exitOf(server.child)).toBe(1);
    expect(server.output()).toContain('PORT');
    expect(server.output()).toContain('LOG_LEVEL');
  });
});
