/** The operator CLI's x-web commands: the collector pool without the web app. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, createTestDb, type TestDb } from '../../test/helpers.js';
import { runCliOn } from './test-factories.js';
import { COOKIES_NOT_IN_ARGUMENTS, parseCookies } from './x-web-cookies.js';

const AUTH_TOKEN = 'a'.repeat(40);
const CT0 = 'b'.repeat(40);

async function cli(db: TestDb, env: Record<string, string>, ...args: string[]) {
  return cliWithInput(db, env, '', ...args);
}

/** The CLI with `stdin` as its standard input. */
async function cliWithInput(
  db: TestDb,
  env: Record<string, string>,
  stdin: string,
  ...args: string[]
) {
  return runCliOn(db, { TWEET_SOURCE: 'x-web', ...env }, args, stdin);
}

/** `x-web add-cookies <name>`, the cookies taken from `env`, then from `stdin`. */
function addCookies(db: TestDb, env: Record<string, string>, name: string, stdin = '') {
  return cliWithInput(db, env, stdin, 'x-web', 'add-cookies', name);
}

/** What `x-web add-cookies` answers once it put `username` in the pool. */
const addedByCookies = (username: string) => ({
  code: 0,
  stdout: `Added @${username} (cookies): collects now.`,
});

describe.each(DIALECTS)('operator CLI: x-web accounts [%s]', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb(dialect, { TWEET_SOURCE: 'x-web' });
  });
  afterAll(() => db.dispose());

  it('adds by cookies and by credentials, lists, resets and removes', async () => {
    const cookies = await addCookies(
      db,
      { X_WEB_AUTH_TOKEN: AUTH_TOKEN, X_WEB_CT0: CT0 },
      '@Cookie_Acct',
    );
    expect(cookies).toMatchObject(addedByCookies('cookie_acct'));
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
    const bad = await addCookies(
      db,
      { X_WEB_AUTH_TOKEN: 'xyz', X_WEB_CT0: 'c'.repeat(40) },
      'someone',
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
    const env = { X_WEB_AUTH_TOKEN: AUTH_TOKEN, X_WEB_CT0: CT0 };
    const duplicate = await addCookies(db, env, 'dup');
    expect(duplicate.code).toBe(0);
    expect(await addCookies(db, env, 'DUP')).toMatchObject({
      code: 1,
      stderr: 'Error: @dup is already in the pool.',
    });
  });

  it('refuses cookies given as arguments, saying how to give them, and stores nothing', async () => {
    const attempts = [
      ['--auth-token', AUTH_TOKEN, '--ct0', CT0],
      [`--auth-token=${AUTH_TOKEN}`, `--ct0=${CT0}`],
      ['--ct0', CT0],
      [`auth_token=${AUTH_TOKEN};`, `ct0=${CT0}`],
    ];
    for (const extra of attempts) {
      const refused = await cli(db, {}, 'x-web', 'add-cookies', 'argv_acct', ...extra);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`Error: ${COOKIES_NOT_IN_ARGUMENTS}`);
      expect(refused.stderr).toContain('X_WEB_AUTH_TOKEN');
      // The refusal never repeats the secret it was handed.
      expect(refused.stderr).not.toContain(AUTH_TOKEN);
      expect(refused.stderr).not.toContain(CT0);
    }
    expect((await cli(db, {}, 'x-web', 'list')).stdout).not.toContain('argv_acct');
    expect((await cli(db, {}, '--help')).stdout).toContain('X_WEB_AUTH_TOKEN and X_WEB_CT0');
  });

  it('takes the cookies from standard input, as a Cookie header or one a line', async () => {
    const header = await addCookies(
      db,
      {},
      'stdin_header',
      `Cookie: guest_id=v1%3A1; auth_token=${AUTH_TOKEN}; lang=en; ct0=${CT0}\n`,
    );
    expect(header).toMatchObject(addedByCookies('stdin_header'));
    // No newline at the end (a file without one): the last value is read whole at the end.
    const lines = await addCookies(db, {}, 'stdin_lines', `ct0=${CT0}\nauth_token=${AUTH_TOKEN}`);
    expect(lines).toMatchObject(addedByCookies('stdin_lines'));
    // The environment first, standard input for what it lacks.
    const mixed = await addCookies(
      db,
      { X_WEB_CT0: CT0 },
      'stdin_mixed',
      `auth_token=${AUTH_TOKEN}\n`,
    );
    expect(mixed.code).toBe(0);
    const nothing = await addCookies(db, {}, 'stdin_none');
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/^Error: Enter the auth_token cookie/);
  });
});

describe('operator CLI as a program: x-web cookies', () => {
  const program = (args: string[], env: Record<string, string>, stdin: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--conditions=@perch/source', '--import', 'tsx', 'src/cli.ts', ...args],
        {
          cwd: fileURLToPath(new URL('../..', import.meta.url)),
          env: { ...process.env, ...env, DATABASE_URL: '', TWEET_SOURCE: 'x-web' },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(stdin);
    });

  it('reads the cookies piped to it and refuses them on its command line', async () => {
    const db = await createTestDb('sqlite');
    try {
      const env = { DATA_DIR: db.config.DATA_DIR };
      const piped = await program(
        ['x-web', 'add-cookies', 'piped'],
        env,
        `auth_token=${AUTH_TOKEN}; ct0=${CT0}\n`,
      );
      expect(piped.stdout).toContain('Added @piped (cookies): collects now.');
      expect(piped.code).toBe(0);
      const argv = await program(
        ['x-web', 'add-cookies', 'argv', '--auth-token', AUTH_TOKEN, '--ct0', CT0],
        env,
        '',
      );
      expect(argv.code).toBe(2);
      expect(argv.stderr).toContain(COOKIES_NOT_IN_ARGUMENTS);
    } finally {
      await db.dispose();
    }
  });
});

describe('parseCookies', () => {
  it.each([
    ['auth_token=abc; ct0=def', { auth_token: 'abc', ct0: 'def' }],
    ['Cookie: a=1; CT0="def"; auth_token=abc', { auth_token: 'abc', ct0: 'def' }],
    ['auth_token=abc\r\nct0=def\r\n', { auth_token: 'abc', ct0: 'def' }],
    ['auth_token=; ct0', {}],
    ['nothing here', {}],
  ])('%j', (text, expected) => {
    expect(parseCookies(text)).toEqual(expected);
  });
});
