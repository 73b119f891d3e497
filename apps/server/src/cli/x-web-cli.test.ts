/** The operator CLI's x-web commands: the collector pool without the web app. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DIALECTS, createTestDb, type TestDb } from '../../test/helpers.js';
import { runCli } from './run-cli.js';

async function cli(db: TestDb, env: Record<string, string>, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...p) => void out.push(p.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...p) => void err.push(p.join(' ')));
  try {
    const code = await runCli(args, {
      DATA_DIR: db.config.DATA_DIR,
      LOG_LEVEL: 'silent',
      DATABASE_URL: db.config.DATABASE_URL,
      TWEET_SOURCE: 'x-web',
      ...env,
    });
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe.each(DIALECTS)('operator CLI: x-web accounts [%s]', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb(dialect, { TWEET_SOURCE: 'x-web' });
  });
  afterAll(() => db.dispose());

  it('adds by cookies and by credentials, lists, resets and removes', async () => {
    const cookies = await cli(
      db,
      {},
      'x-web',
      'add-cookies',
      '@Cookie_Acct',
      '--auth-token',
      'a'.repeat(40),
      '--ct0',
      'b'.repeat(40),
    );
    expect(cookies).toMatchObject({
      code: 0,
      stdout: 'Added @cookie_acct (cookies): collects now.',
    });
    const creds = await cli(
      db,
      { X_WEB_PASSWORD: 'hunter2!' },
      'x-web',
      'add',
      'cred_acct',
      '--email',
      'cred@example.com',
      '--totp-secret',
      'JBSW Y3DP EHPK 3PXP',
    );
    expect(creds).toMatchObject({
      code: 0,
      stdout: 'Added @cred_acct (credentials): signs in when first needed.',
    });
    const row = await db.db
      .selectFrom('x_web_accounts')
      .select('secrets')
      .where('username', '=', 'cred_acct')
      .executeTakeFirstOrThrow();
    expect(row.secrets).not.toMatch(/hunter2|cred@example/);

    const listed = await cli(db, {}, 'x-web', 'list');
    expect(listed.stdout).toMatch(/cookie_acct\s+cookies\s+ACTIVE/);
    expect(listed.stdout).toMatch(/cred_acct\s+credentials\s+NEEDS_LOGIN/);
    expect(listed.stdout).not.toContain('hunter2');

    expect(await cli(db, {}, 'x-web', 'reset', 'cookie_acct')).toMatchObject({
      code: 1,
      stderr: 'Error: @cookie_acct is not out of the pool.',
    });
    await db.db
      .updateTable('x_web_accounts')
      .set({ status: 'LOCKED', status_reason: 'X locked the account (326)' })
      .where('username', '=', 'cookie_acct')
      .execute();
    expect(await cli(db, {}, 'x-web', 'reset', 'cookie_acct')).toMatchObject({
      code: 0,
      stdout: '@cookie_acct is back in the pool (with its cookies).',
    });
    expect(await cli(db, {}, 'x-web', 'remove', 'cred_acct')).toMatchObject({
      code: 0,
      stdout: 'Removed @cred_acct from the X web collector pool.',
    });
    expect((await cli(db, {}, 'x-web', 'list')).stdout).not.toContain('cred_acct');
  });

  it('refuses bad input with the reason and the usage', async () => {
    const bad = await cli(
      db,
      {},
      'x-web',
      'add-cookies',
      'someone',
      '--auth-token',
      'xyz',
      '--ct0',
      'c'.repeat(40),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^Error: Enter the auth_token cookie \(40 hexadecimal characters\)\./,
    );
    const noEmail = await cli(db, { X_WEB_PASSWORD: 'pw' }, 'x-web', 'add', 'someone');
    expect(noEmail.code).toBe(2);
    expect(noEmail.stderr).toMatch(/^Error: Enter the email address of the account/);
    expect(await cli(db, {}, 'x-web', 'remove', 'nobody')).toMatchObject({
      code: 1,
      stderr: 'Error: no X web account named nobody',
    });
    const duplicate = await cli(
      db,
      {},
      'x-web',
      'add-cookies',
      'dup',
      '--auth-token',
      'a'.repeat(40),
      '--ct0',
      'b'.repeat(40),
    );
    expect(duplicate.code).toBe(0);
    expect(
      await cli(
        db,
        {},
        'x-web',
        'add-cookies',
        'DUP',
        '--auth-token',
        'a'.repeat(40),
        '--ct0',
        'b'.repeat(40),
      ),
    ).toMatchObject({ code: 1, stderr: 'Error: @dup is already in the pool.' });
  });
});
