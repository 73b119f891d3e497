import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoSource } from '../src/sources/index.js';
import { TEST_HASH_COST } from './helpers.js';
import { spawnFromSource } from './processes.js';

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
  const { child, output } = spawnFromSource('src/main.ts', {
    DATA_DIR: dir,
    PORT: '0',
    LOG_LEVEL: 'info',
    DATABASE_URL: '',
    ...env,
  });
  const running: Running = { child, origin: '', output, dataDir: dir };
  started.push(running);
  const deadline = Date.now() + 40_000;
  while (Date.now() < deadline) {
    const origin = /Perch is running at (http:\/\/[^/\s]+)/.exec(output())?.[1];
    if (origin) return { ...running, origin };
    if (child.exitCode !== null) return running;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`did not start:\n${output()}`);
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

afterEach(async () => {
  for (const { child, dataDir } of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
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
    // At the default password hashing cost, no warning about it (the process has ended: its
    // log lines are all written).
    expect(first.output()).not.toContain("OWASP's minimum");
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
    // Password hashes set cheaper than OWASP's minimum: the start says so.
    const third = await startMain(TEST_HASH_COST, first.dataDir);
    expect(third.output()).not.toContain('invitation code');
    expect(third.output()).toContain('Sign in at');
    // Log lines are written asynchronously: the warning may come after the start-up lines.
    await expect
      .poll(() => third.output())
      .toContain("password hashes cost less than OWASP's minimum");
    // Three starts from source: each takes seconds on a busy machine.
  }, 60_000);

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
    // Long enough for the request to reach the server on the kept-alive connection even on a
    // busy machine, shorter than the password check it starts.
    await new Promise((resolve) => setTimeout(resolve, 20));
    server.child.kill('SIGTERM');
    const response = await inFlight;
    expect(response.status).toBe(401);
    expect(await exitOf(server.child)).toBe(0);
    await expect(fetch(`${server.origin}/api/v1/health`)).rejects.toThrow();
    expect(server.output()).toContain('shutting down');
  });

  it('refuses a second process on the same database without Redis, naming the first', async () => {
    const first = await startMain();
    expect(first.origin).not.toBe('');
    const second = await startMain({}, first.dataDir);
    expect(await exitOf(second.child)).toBe(1);
    expect(second.output()).toContain(
      'Perch will not start: Another Perch process works on this database',
    );
    expect(second.output()).toContain(`pid ${first.child.pid}`);
    expect(second.output()).toContain('REDIS_URL');
    // The first one is untouched.
    expect((await fetch(`${first.origin}/api/v1/health`)).status).toBe(200);
  }, 60_000);

  it('refuses to start on bad configuration, listing every problem', async () => {
    const server = await startMain({ PORT: 'abc', LOG_LEVEL: 'loud' });
    expect(await exitOf(server.child)).toBe(1);
    expect(server.output()).toContain('PORT');
    expect(server.output()).toContain('LOG_LEVEL');
  });
});

describe('a crash during a backfill', () => {
  it('SIGKILL mid-backfill, start again: completes with every tweet of the window exactly once', async () => {
    const env = { DEMO_PAGE_DELAY_MS: '100' };
    const first = await startMain(env);
    const code = /invitation code: (PERCH-[A-Z0-9-]+)/.exec(first.output())?.[1] ?? '';
    const check = await fetch(`${first.origin}/api/v1/auth/check`);
    const csrf = /perch_csrf=([^;]+)/.exec(check.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const headers = { 'content-type': 'application/json', 'x-csrf-token': csrf };
    const register = await fetch(`${first.origin}/api/v1/auth/register`, {
      method: 'POST',
      headers: { ...headers, cookie: `perch_csrf=${csrf}` },
      body: JSON.stringify({
        username: 'crash',
        email: 'crash@example.com',
        password: 'Sup3r-secret!',
        confirmPassword: 'Sup3r-secret!',
        invitationCode: code,
      }),
    });
    expect(register.status).toBe(201);
    const session = /perch_session=([^;]+)/.exec(register.headers.get('set-cookie') ?? '')?.[1];
    // The signed-in session comes with its own CSRF token.
    const sessionCsrf = /perch_csrf=([^;]+)/.exec(register.headers.get('set-cookie') ?? '')?.[1];
    const cookie = `perch_csrf=${sessionCsrf}; perch_session=${session}`;
    const added = await fetch(`${first.origin}/api/v1/handles`, {
      method: 'POST',
      headers: { ...headers, 'x-csrf-token': sessionCsrf ?? '', cookie },
      body: JSON.stringify({ username: 'prolific_kil', backfill_days: 15 }),
    });
    expect(added.status).toBe(201);

    type Listed = { data: { handles: { backfill_progress: number; backfill_status: string }[] } };
    const progressOf = async (origin: string) => {
      const response = await fetch(`${origin}/api/v1/handles`, { headers: { cookie } });
      return ((await response.json()) as Listed).data.handles[0];
    };
    // Kill it hard once part of the window is stored.
    for (let i = 0; i < 400; i++) {
      const handle = await progressOf(first.origin);
      if (handle && handle.backfill_progress > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const before = await progressOf(first.origin);
    expect(before?.backfill_progress).toBeGreaterThan(0);
    expect(before?.backfill_progress).toBeLessThan(100);
    first.child.kill('SIGKILL');
    await exitOf(first.child);

    // Start again on the same data: the session is still valid and the backfill resumes.
    const second = await startMain(env, first.dataDir);
    let after = await progressOf(second.origin);
    for (let i = 0; i < 1200 && after?.backfill_status !== 'completed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await progressOf(second.origin);
    }
    expect(after).toMatchObject({ backfill_status: 'completed', backfill_progress: 100 });
    second.child.kill('SIGTERM');
    await exitOf(second.child);

    // Compare the stored window with what the source holds for it: no gap, no duplicate.
    const db = new Database(path.join(first.dataDir, 'perch.db'), { readonly: true });
    const handle = db
      .prepare('select id, backfill_target_start, backfill_window_end from handles')
      .get() as { id: number; backfill_target_start: string; backfill_window_end: string };
    const stored = db
      .prepare(
        'select tweet_id from tweets where handle_id = ? and created_at >= ? and created_at < ?',
      )
      .all(handle.id, handle.backfill_target_start, handle.backfill_window_end) as {
      tweet_id: string;
    }[];
    db.close();
    const source = createDemoSource({ pageDelayMs: 0 });
    const profile = await source.lookupUser('prolific_kil');
    const expected: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await source.timeline({
        xUserId: profile.xUserId,
        startTime: handle.backfill_target_start,
        endTime: handle.backfill_window_end,
        ...(cursor ? { cursor } : {}),
      });
      expected.push(...page.tweets.map((tweet) => tweet.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const ids = stored.map((row) => row.tweet_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...expected].sort());
    expect(ids.length).toBeGreaterThan(500);
  }, 120_000);
});
