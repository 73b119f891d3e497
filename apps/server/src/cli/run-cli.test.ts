import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import {
  DIALECTS,
  TEST_PASSWORD,
  TestClient,
  createTestDb,
  registration,
  type TestDb,
} from '../../test/helpers.js';
import { createRedisCluster } from '../cluster/redis-cluster.js';
import { createSessionCache } from '../modules/auth/session-cache.js';
import { runCliOn } from './test-factories.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const exec = promisify(execFile);

/** Runs the CLI in-process against the test database and returns what it printed. */
async function cli(db: TestDb, ...args: string[]) {
  return cliWith(db, {}, ...args);
}

async function cliWith(db: TestDb, extraEnv: Record<string, string>, ...args: string[]) {
  return runCliOn(db, extraEnv, args);
}

describe.each(DIALECTS)('operator CLI [%s]', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb(dialect);
  });
  afterAll(() => db.dispose());

  it('creates an invitation whose code, alone on the last line, registers an admin', async () => {
    const created = await cli(
      db,
      'invite',
      'create',
      '--role',
      'admin',
      '--uses',
      '2',
      '--expires-days',
      '3',
    );
    expect(created.code).toBe(0);
    expect(created.lastLine).toMatch(/^PERCH-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);

    const app = await buildApp({ config: db.config, db, logger: false });
    const client = new TestClient(app);
    const response = await client.post(
      '/api/v1/auth/register',
      registration('carol', created.lastLine),
    );
    expect(response.statusCode).toBe(201);
    expect(response.json().data.user).toMatchObject({ isAdmin: true, isSuperAdmin: false });
    await app.close();

    // The list never shows a code: only `invite create` does, once.
    const listed = await cli(db, 'invite', 'list');
    expect(listed.stdout).not.toContain(created.lastLine);
    expect(listed.stdout).toMatch(/^id\s+role\s+uses\s+expires\s+created\s+revoked$/m);
    expect(listed.stdout).toMatch(/admin\s+1\/2/);
  });

  it('lists users, changes roles and keeps one super admin', async () => {
    const users = await cli(db, 'user', 'list');
    expect(users.stdout).toMatch(/carol\s+carol@example\.com\s+admin/);

    expect((await cli(db, 'user', 'set-role', 'CAROL', 'superadmin')).code).toBe(0);
    expect((await cli(db, 'user', 'list')).stdout).toMatch(
      /carol\s+carol@example\.com\s+superadmin/,
    );

    const demote = await cli(db, 'user', 'set-role', 'carol', 'user');
    expect(demote.code).toBe(1);
    expect(demote.stderr).toContain('only super admin');

    const unknown = await cli(db, 'user', 'set-role', 'nobody', 'user');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no user named nobody');

    const badRole = await cli(db, 'user', 'set-role', 'carol', 'king');
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('role must be one of: user, admin, superadmin');
  });

  it('resets a password: the old one stops working, the printed one works', async () => {
    const reset = await cli(db, 'user', 'reset-password', 'carol');
    expect(reset.code).toBe(0);
    const app = await buildApp({ config: db.config, db, logger: false });
    const client = new TestClient(app);
    const old = await client.post('/api/v1/auth/login', {
      username: 'carol',
      password: 'Sup3r-secret!',
    });
    expect(old.statusCode).toBe(401);
    const fresh = await client.post('/api/v1/auth/login', {
      username: 'carol',
      password: reset.lastLine,
    });
    expect(fresh.statusCode).toBe(200);
    await app.close();

    const events = await db.db
      .selectFrom('security_events')
      .selectAll()
      .where('event_type', '=', 'password_changed')
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ severity: 'high', ip: null });
    expect(JSON.stringify(events)).not.toContain(reset.lastLine);
  });

  it('turns two-factor sign-in off for a user who lost it', async () => {
    const carol = await db.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'carol')
      .executeTakeFirstOrThrow();
    const notOn = await cli(db, 'user', 'disable-2fa', 'carol');
    expect(notOn.code).toBe(1);
    expect(notOn.stderr).toContain('carol has no two-factor sign-in');

    await db.db
      .updateTable('users')
      .set({ totp_secret: 'sealed', totp_enabled_at: new Date().toISOString(), totp_last_step: 1 })
      .where('id', '=', carol.id)
      .execute();
    await db.db
      .insertInto('recovery_codes')
      .values({ user_id: carol.id, code_hash: 'hash', created_at: new Date().toISOString() })
      .execute();
    const off = await cli(db, 'user', 'disable-2fa', 'Carol');
    expect(off.code).toBe(0);
    expect(off.stdout).toContain('Two-factor sign-in is off for carol');
    const row = await db.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', carol.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ totp_secret: null, totp_enabled_at: null, totp_last_step: null });
    const codes = await db.db
      .selectFrom('recovery_codes')
      .select('id')
      .where('user_id', '=', carol.id)
      .execute();
    expect(codes).toHaveLength(0);
    const events = await db.db
      .selectFrom('security_events')
      .selectAll()
      .where('event_type', '=', 'two_factor_disabled')
      .where('user_id', '=', carol.id)
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ severity: 'high' });

    expect((await cli(db, 'user', 'disable-2fa')).code).toBe(2);
    expect((await cli(db, 'user', 'disable-2fa', 'nobody')).stderr).toContain('no user named');
  });

  it('tells running nodes at once (scale-out): their session caches drop the changed user', async () => {
    const prefix = `perch-test-cli-${process.pid}-${dialect}`;
    const cluster = await createRedisCluster({ url: REDIS_URL, prefix });
    const sessionCache = await createSessionCache({ cluster });
    const app = await buildApp({ config: db.config, db, logger: false, sessionCache });
    try {
      const invite = await cli(db, 'invite', 'create', '--role', 'admin');
      const client = new TestClient(app);
      const password = TEST_PASSWORD;
      const registered = await client.post(
        '/api/v1/auth/register',
        registration('dave', invite.lastLine),
      );
      expect(registered.statusCode).toBe(201);
      const login = await client.post('/api/v1/auth/login', { username: 'dave', password });
      expect(login.statusCode).toBe(200);
      const check = () => client.get('/api/v1/auth/check');
      expect((await check()).json().data).toMatchObject({ isAdmin: true });
      // Cached now: only an invalidation makes this node read the user again within 5 s.
      expect((await check()).json().data).toMatchObject({ isAdmin: true });
      const env = { REDIS_URL, REDIS_PREFIX: prefix };
      expect((await cliWith(db, env, 'user', 'set-role', 'dave', 'user')).code).toBe(0);
      // A privilege change ends the user's sessions; signed in again, the new role applies.
      expect((await check()).json().data).toMatchObject({ authenticated: false });
      expect(
        (await client.post('/api/v1/auth/login', { username: 'dave', password })).statusCode,
      ).toBe(200);
      expect((await check()).json().data).toMatchObject({ isAdmin: false });
      // Cached again: the password reset must reach this node at once too.
      expect((await check()).json().data).toMatchObject({ isAdmin: false });
      expect((await cliWith(db, env, 'user', 'reset-password', 'dave')).code).toBe(0);
      expect((await check()).json().data).toMatchObject({ authenticated: false });
    } finally {
      await app.close();
      await sessionCache.close();
      await cluster.close();
    }
  });

  it('rejects bad arguments with usage and exit code 2', async () => {
    const result = await cli(db, 'invite', 'create', '--uses', '0');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--uses must be a whole number of at least 1');
    expect(result.stderr).toContain('Usage: npm run cli');
    expect((await cli(db, 'frobnicate')).code).toBe(2);
  });
});

describe('operator CLI entry point', () => {
  it('prints the new code on its last line when run as a program', async () => {
    const db = await createTestDb('sqlite');
    try {
      const { stdout } = await exec(
        process.execPath,
        ['--conditions=@perch/source', '--import', 'tsx', 'src/cli.ts', 'invite', 'create'],
        {
          cwd: fileURLToPath(new URL('../..', import.meta.url)),
          env: { ...process.env, DATA_DIR: db.config.DATA_DIR, DATABASE_URL: '' },
        },
      );
      const lines = stdout.trim().split('\n');
      expect(lines.at(-1)).toMatch(/^PERCH-/);
    } finally {
      await db.dispose();
    }
  });
});
