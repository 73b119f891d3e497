/**
 * The x-web source end to end, on a real database and over real HTTP against the loopback fake
 * of X's web API and sign-in flow: the admin API of the collector pool, sign-in (plain, TOTP,
 * emailed code through the super admin's verification panel, wrong codes), accounts taken out
 * (locked, suspended, ended session), and rotation across accounts on rate limits.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  X_WEB_MESSAGES,
  adminProcessesResponseSchema,
  challengeStatusResponseSchema,
  xWebAccountResponseSchema,
  xUsageSummarySchema,
  xWebAccountsResponseSchema,
  type XWebAccount,
} from '@perch/shared';
import { type TweetSource } from '../src/domain/tweet-source.js';
import { createXWebSource } from '../src/sources/x-web/x-web-source.js';
import { createTokenCipher } from '../src/lib/token-cipher.js';
import { dataOf, expectError, sourceFailure as failure } from './assertions.js';
import { startFakeXWebServer, type FakeXWebServer } from './fakes/fake-x-web-server.js';
import { addXWebAccountByCookies } from './x-web-accounts.js';
import { DIALECTS, buildTestApp, waitFor, type TestApp, type TestClient } from './helpers.js';
import { registeredClients } from './seed.js';

const TOTP_SECRET = 'JBSWY3DPEHPK3PXP';
const ACCOUNTS = '/api/v1/admin/x-web-accounts';
const CHALLENGE = '/api/v1/admin/twitter-challenge-status';
const SUBMIT = '/api/v1/admin/submit-twitter-challenge-code';

describe.each(DIALECTS)('x-web source and collector pool (%s)', (dialect) => {
  let fake: FakeXWebServer;
  let t: TestApp;
  let root: TestClient;
  let admin: TestClient;
  let source: TweetSource;

  beforeEach(async () => {
    fake = await startFakeXWebServer();
    t = await buildTestApp(
      dialect,
      { TWEET_SOURCE: 'x-web', X_WEB_BASE_URL: fake.baseUrl, X_WEB_API_BASE_URL: fake.baseUrl },
      {
        source: (db) =>
          createXWebSource({
            db: db.db,
            cipher: createTokenCipher({ dataDir: db.config.DATA_DIR }),
            baseUrl: fake.baseUrl,
            apiBaseUrl: fake.baseUrl,
            retryBaseMs: 1,
          }),
      },
    );
    ({ root, adam: admin } = await registeredClients(t, { root: 'superadmin', adam: 'admin' }));
    source = t.collector.source;
    fake.addUser({ username: 'nasa', id: '11348282', followersCount: 90_000_000 });
  });
  afterEach(async () => {
    await t.close();
    await fake.close();
  });

  const list = async () => dataOf(await admin.get(ACCOUNTS), xWebAccountsResponseSchema);
  const accountNamed = async (username: string): Promise<XWebAccount> =>
    (await list()).accounts.find((a) => a.username === username)!;
  const guestActivations = () =>
    fake.requests.filter((r) => r.path === '/1.1/guest/activate.json').length;

  const addByCookies = (username: string) => addXWebAccountByCookies(fake, root, username);

  async function addByCredentials(
    username: string,
    extra: { totpSecret?: string; emailCode?: boolean; locked?: boolean } = {},
  ) {
    fake.addAccount({ username, password: 'hunter2!', email: `${username}@example.com`, ...extra });
    const response = await root.post(ACCOUNTS, {
      method: 'credentials',
      username: `@${username.toUpperCase()}`,
      password: 'hunter2!',
      email: `${username}@example.com`,
      totp_secret: extra.totpSecret ? extra.totpSecret.toLowerCase() : '',
    });
    expect(response.statusCode, response.body).toBe(201);
    return dataOf(response, xWebAccountResponseSchema).account;
  }

  it('adds accounts by cookies and by credentials, keeps the secrets encrypted, and checks input', async () => {
    const cookies = await addByCookies('cookie_acct');
    expect(cookies).toMatchObject({
      username: 'cookie_acct',
      auth_method: 'cookies',
      status: 'ACTIVE',
    });
    const creds = await addByCredentials('cred_acct', { totpSecret: TOTP_SECRET });
    expect(creds).toMatchObject({ username: 'cred_acct', status: 'NEEDS_LOGIN', has_totp: true });

    const rows = await t.db.db.selectFrom('x_web_accounts').selectAll().execute();
    for (const row of rows) {
      expect(row.secrets).not.toMatch(/hunter2|example\.com|JBSWY/i);
      expect(JSON.stringify(row)).not.toContain('hunter2');
    }
    const listed = JSON.stringify(await list());
    expect(listed).not.toMatch(/hunter2|auth_token|ct0|example\.com/);

    expectError(
      await root.post(ACCOUNTS, {
        method: 'cookies',
        username: 'cookie_acct',
        auth_token: 'a'.repeat(40),
        ct0: 'b'.repeat(32),
      }),
      409,
      {
        message: X_WEB_MESSAGES.accountExists('cookie_acct'),
      },
    );
    expectError(
      await root.post(ACCOUNTS, {
        method: 'cookies',
        username: 'x',
        auth_token: 'nothex',
        ct0: 'b'.repeat(32),
      }),
      400,
      {
        message: X_WEB_MESSAGES.authTokenRequired,
      },
    );
    expectError(
      await root.post(ACCOUNTS, {
        method: 'credentials',
        username: 'bad name!',
        password: 'p',
        email: 'a@b.co',
      }),
      400,
      {
        message: X_WEB_MESSAGES.usernameRequired,
      },
    );
    expectError(
      await root.post(ACCOUNTS, {
        method: 'credentials',
        username: 'ok',
        password: 'p',
        email: 'nope',
      }),
      400,
      {
        message: X_WEB_MESSAGES.emailRequired,
      },
    );
    expectError(
      await root.post(ACCOUNTS, {
        method: 'credentials',
        username: 'ok',
        password: 'p',
        email: 'a@b.co',
        totp_secret: '123',
      }),
      400,
      {
        message: X_WEB_MESSAGES.totpInvalid,
      },
    );
    expectError(await root.post(ACCOUNTS, { method: 'magic', username: 'ok' }), 400);
    // Admins see the pool; only a super admin changes it.
    expectError(
      await admin.post(ACCOUNTS, {
        method: 'cookies',
        username: 'other',
        auth_token: 'a'.repeat(40),
        ct0: 'b'.repeat(32),
      }),
      403,
    );
    expectError(await admin.request({ method: 'DELETE', url: `${ACCOUNTS}/${cookies.id}` }), 403);

    // Reset is for accounts that are out; remove takes it away.
    expectError(await root.post(`${ACCOUNTS}/${cookies.id}/reset`), 409, {
      message: X_WEB_MESSAGES.accountResetNotNeeded('cookie_acct'),
    });
    const removed = await root.request({ method: 'DELETE', url: `${ACCOUNTS}/${cookies.id}` });
    expect(removed.statusCode).toBe(200);
    expect((await list()).accounts.map((a) => a.username)).toEqual(['cred_acct']);
    expectError(await root.request({ method: 'DELETE', url: `${ACCOUNTS}/${cookies.id}` }), 404);
    expectError(await root.request({ method: 'DELETE', url: `${ACCOUNTS}/zero` }), 400);
  });

  it('collects with cookies: the web client headers, features, mapping and limits per operation', async () => {
    await addByCookies('cookie_acct');
    const profile = await source.lookupUser('NASA');
    expect(profile).toMatchObject({
      xUserId: '11348282',
      username: 'nasa',
      followersCount: 90_000_000,
    });
    const sent = fake.requests.find((r) => r.operation === 'UserByScreenName')!;
    expect(sent.account).toBe('cookie_acct');
    expect(sent.headers['x-csrf-token']).toBeTruthy();
    expect(sent.headers['x-twitter-auth-type']).toBe('OAuth2Session');
    expect(sent.variables).toMatchObject({ screen_name: 'NASA' });
    const account = await accountNamed('cookie_acct');
    expect(account.limits).toEqual([
      { operation: 'UserByScreenName', limit: 95, remaining: 94, reset_at: expect.any(String) },
    ]);
    expect(account.last_used_at).not.toBeNull();
  });

  it('signs in with credentials once, with the TOTP step, and never again after a failure', async () => {
    await addByCredentials('totp_acct', { totpSecret: TOTP_SECRET });
    await source.lookupUser('nasa');
    expect(await accountNamed('totp_acct')).toMatchObject({ status: 'ACTIVE' });
    const steps = fake.requests
      .filter((r) => r.path === '/1.1/onboarding/task.json')
      .map((r) => r.status);
    expect(steps.every((status) => status === 200)).toBe(true);
    expect(guestActivations()).toBe(1);
    await source.lookupUser('nasa');
    expect(guestActivations()).toBe(1);

    // A wrong TOTP secret: the sign-in fails and waits for an admin (no loop).
    fake.addAccount({
      username: 'bad_totp',
      password: 'pw',
      email: 'b@example.com',
      totpSecret: TOTP_SECRET,
    });
    await root.request({
      method: 'DELETE',
      url: `${ACCOUNTS}/${(await accountNamed('totp_acct')).id}`,
    });
    const bad = dataOf(
      await root.post(ACCOUNTS, {
        method: 'credentials',
        username: 'bad_totp',
        password: 'pw',
        email: 'b@example.com',
        totp_secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY',
      }),
      xWebAccountResponseSchema,
    ).account;
    expect((await failure(source.lookupUser('nasa'))).kind).toBe('auth');
    const failed = await accountNamed('bad_totp');
    expect(failed.status).toBe('FAILED');
    expect(failed.status_reason).toMatch(/LoginTwoFactorAuthChallenge.*incorrect/i);
    const before = guestActivations();
    expect((await failure(source.lookupUser('nasa'))).kind).toBe('auth');
    expect(guestActivations()).toBe(before);
    // Reset: it signs in again when next needed (and fails again, as X says).
    const reset = dataOf(await root.post(`${ACCOUNTS}/${bad.id}/reset`), xWebAccountResponseSchema);
    expect(reset.account.status).toBe('NEEDS_LOGIN');
    await failure(source.lookupUser('nasa'));
    expect(guestActivations()).toBe(before + 1);
  });

  it('asks the super admin for the emailed code: wrong code, then the right one continues the same flow', async () => {
    await addByCredentials('mail_acct', { emailCode: true });
    const paused = await failure(source.lookupUser('nasa'));
    expect(paused.kind).toBe('auth');
    expect(paused.message).toMatch(/@mail_acct waits for a verification code/);
    expect(fake.mailbox('mail_acct')).toHaveLength(1);
    // A handle followed meanwhile waits for the account.
    const followed = await root.post('/api/v1/handles', { username: 'nasa', backfill_days: 7 });
    expect(followed.statusCode, followed.body).toBe(201);
    await waitFor(
      () => t.db.db.selectFrom('handles').select('last_error').executeTakeFirstOrThrow(),
      (row) => row.last_error !== null,
    );
    // The Admin banner says why: no account can collect.
    const blocked = dataOf(await admin.get('/api/v1/admin/x-usage'), xUsageSummarySchema);
    expect(blocked.credentials).toMatchObject({
      state: 'auth',
      detail: 'The X web account @mail_acct waits for a verification code (Admin page)',
    });

    const status = dataOf(await root.get(CHALLENGE), challengeStatusResponseSchema);
    expect(status).toMatchObject({
      status: 'AWAITING_INPUT',
      challenge_type: 'email_code',
      account: 'mail_acct',
      step: 'LoginAcid',
      challenge_details: X_WEB_MESSAGES.emailCodeDetails('mail_acct', 'Check your email'),
    });
    expect(Date.parse(status.last_challenge_at!)).not.toBeNaN();
    const account = await accountNamed('mail_acct');
    expect(account).toMatchObject({ status: 'AWAITING_INPUT', challenge_step: 'LoginAcid' });
    // Collection that needs the account pauses: the only account waits.
    const processes = dataOf(
      await admin.get('/api/v1/admin/processes'),
      adminProcessesResponseSchema,
    );
    expect(processes.source).toMatchObject({ name: 'x-web', health: 'paused' });
    // Only a super admin may answer.
    expectError(await admin.post(SUBMIT, { verification_code: '000000' }), 403);

    const wrong = expectError(await root.post(SUBMIT, { verification_code: '000000' }), 422);
    expect(wrong.message).toBe(
      X_WEB_MESSAGES.codeRejected(
        'mail_acct',
        'X refused the step LoginAcid (399): Incorrect. Please try again.',
      ),
    );
    expect(dataOf(await root.get(CHALLENGE), challengeStatusResponseSchema).status).toBe(
      'AWAITING_INPUT',
    );

    const code = fake.mailbox('mail_acct')[0]!;
    const accepted = await root.post(SUBMIT, { verification_code: ` ${code} ` });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().message).toBe(X_WEB_MESSAGES.codeAccepted('mail_acct'));
    expect(dataOf(accepted, challengeStatusResponseSchema).status).toBe('IDLE');
    // The same flow went on: one guest token, one flow, no new email.
    expect(guestActivations()).toBe(1);
    expect(fake.mailbox('mail_acct')).toHaveLength(1);
    expect(await accountNamed('mail_acct')).toMatchObject({
      status: 'ACTIVE',
      challenge_step: null,
    });
    expect((await source.lookupUser('nasa')).xUserId).toBe('11348282');
    // Collection resumes at the collector's next tick, not after the 5-minute probe wait.
    const resumed = await waitFor(
      () =>
        t.db.db
          .selectFrom('handles')
          .select(['backfill_status', 'last_error', 'x_user_id'])
          .executeTakeFirstOrThrow(),
      (row) => row.backfill_status === 'completed',
      5_000,
    );
    expect(resumed).toMatchObject({ last_error: null, x_user_id: '11348282' });
    const usage = dataOf(await admin.get('/api/v1/admin/x-usage'), xUsageSummarySchema);
    expect(usage.credentials.state).toBe('ok');
    expectError(await root.post(SUBMIT, { verification_code: code }), 409, {
      message: X_WEB_MESSAGES.noAccountAwaiting,
    });
  });

  it('fails the sign-in after the wrong codes X allows, and waits for an admin', async () => {
    await addByCredentials('mail_acct', { emailCode: true });
    await failure(source.lookupUser('nasa'));
    for (let n = 0; n < 2; n++)
      expectError(await root.post(SUBMIT, { verification_code: '1' }), 422);
    const last = expectError(await root.post(SUBMIT, { verification_code: '1' }), 422);
    expect(last.message).toMatch(
      /^The sign-in of @mail_acct failed: X ended the sign-in flow \(366\): Too many attempts/,
    );
    expect(dataOf(await root.get(CHALLENGE), challengeStatusResponseSchema).status).toBe('IDLE');
    expect(await accountNamed('mail_acct')).toMatchObject({ status: 'FAILED' });
    await failure(source.lookupUser('nasa'));
    expect(guestActivations()).toBe(1);
  });

  it('names the browser checks when X refuses the password', async () => {
    fake.addAccount({ username: 'wrong_pw', password: 'the-real-one', email: 'w@example.com' });
    await root.post(ACCOUNTS, {
      method: 'credentials',
      username: 'wrong_pw',
      password: 'not-this-one',
      email: 'w@example.com',
    });
    expect((await failure(source.lookupUser('nasa'))).kind).toBe('auth');
    const failed = await accountNamed('wrong_pw');
    expect(failed.status).toBe('FAILED');
    expect(failed.status_reason).toContain('X refused the step LoginEnterPassword (399)');
    expect(failed.status_reason).toContain(X_WEB_MESSAGES.browserChecks);
  });

  it('takes a locked account out (at sign-in and while collecting) and goes on with another', async () => {
    await addByCredentials('locked_acct', { locked: true });
    expect((await failure(source.lookupUser('nasa'))).kind).toBe('auth');
    expect(await accountNamed('locked_acct')).toMatchObject({
      status: 'LOCKED',
      status_reason: expect.stringMatching(/^X locked the account \(326\)/),
    });

    await addByCookies('first');
    await addByCookies('second');
    await source.lookupUser('nasa');
    fake.lockAccount('first');
    fake.suspendAccount('second');
    await addByCookies('third');
    // 'first' was used; 'second' then 'third' come next: the first two go out on the way.
    for (let n = 0; n < 3; n++) await source.lookupUser('nasa');
    const accounts = (await list()).accounts;
    const byName = Object.fromEntries(accounts.map((a) => [a.username, a]));
    expect(byName.first).toMatchObject({
      status: 'LOCKED',
      last_error: expect.stringMatching(/326/),
    });
    expect(byName.second).toMatchObject({
      status: 'SUSPENDED',
      last_error: expect.stringMatching(/\(64\)/),
    });
    expect(byName.third!.status).toBe('ACTIVE');
    expect(fake.requests.filter((r) => r.account === 'third' && r.status === 200).length).toBe(3);
  });

  it('rotates across two accounts on per-account limits and rests one 2 short of X’s limit until its reset', async () => {
    // Each account serves until X reports 2 left: twice with a window of 4.
    fake.setLimit('UserByScreenName', 4);
    await addByCookies('one');
    await addByCookies('two');
    for (let n = 0; n < 4; n++) await source.lookupUser('nasa');
    const served = fake.requests
      .filter((r) => r.operation === 'UserByScreenName')
      .map((r) => `${r.account}:${r.status}`);
    expect(served.sort()).toEqual(['one:200', 'one:200', 'two:200', 'two:200']);
    const limited = await failure(source.lookupUser('nasa'));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.retryAfterMs).toBeGreaterThan(14 * 60_000);
    // Nothing was sent for the spent window.
    expect(fake.requests.filter((r) => r.operation === 'UserByScreenName')).toHaveLength(4);
    // Other operations are counted apart.
    expect((await source.usersByIds(['11348282'])).profiles).toHaveLength(1);
    const one = await accountNamed('one');
    expect(one.limits.find((l) => l.operation === 'UserByScreenName')).toMatchObject({
      limit: 4,
      remaining: 2,
    });
    expect(one.resting_until).not.toBeNull();
    expect(
      source.rateStatus().endpoints.find((e) => e.endpoint === 'UserByScreenName'),
    ).toMatchObject({
      // X says 2 left on each; the pool keeps them: nothing left to spend.
      limit: 8,
      remaining: 0,
    });
    // The Admin usage card shows the pool's limits, and nothing billed.
    const usage = dataOf(await admin.get('/api/v1/admin/x-usage'), xUsageSummarySchema);
    expect(usage.source).toBe('x-web');
    expect(usage.month.post_reads).toBe(0);
    expect(usage.rate_status?.endpoints.map((e) => e.endpoint).sort()).toEqual([
      'UserByScreenName',
      'UsersByRestIds',
    ]);
  });

  it('takes an account whose session ended out, with the reason, and says so when none is left', async () => {
    await addByCookies('only');
    await source.lookupUser('nasa');
    fake.expireSessions('only');
    const error = await failure(source.lookupUser('nasa'));
    expect(error.kind).toBe('auth');
    expect(error.message).toMatch(/No usable X web account \(@only expired\)/);
    const only = await accountNamed('only');
    expect(only.status).toBe('EXPIRED');
    expect(only.status_reason).toMatch(/\(32\) Could not authenticate you/);
  });

  it('takes out an account whose cookies do not match (353), with the reason', async () => {
    fake.addAccount({ username: 'bad_ct0', password: 'pw', email: 'b@example.com' });
    const session = fake.issueSession('bad_ct0');
    const added = await root.post(ACCOUNTS, {
      method: 'cookies',
      username: 'bad_ct0',
      auth_token: session.authToken,
      ct0: 'f'.repeat(64),
    });
    expect(added.statusCode).toBe(201);
    expect((await failure(source.lookupUser('nasa'))).kind).toBe('auth');
    expect(await accountNamed('bad_ct0')).toMatchObject({
      status: 'EXPIRED',
      status_reason: expect.stringMatching(/\(353\) This request requires a matching csrf/),
    });
  });

  it('signs an account in once when two collectors need it at the same time', async () => {
    await addByCredentials('shared_acct', { emailCode: true });
    const other = createXWebSource({
      db: t.db.db,
      cipher: createTokenCipher({ dataDir: t.config.DATA_DIR }),
      baseUrl: fake.baseUrl,
      apiBaseUrl: fake.baseUrl,
      retryBaseMs: 1,
    });
    const results = await Promise.allSettled([source.lookupUser('nasa'), other.lookupUser('nasa')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(guestActivations()).toBe(1);
    expect(fake.mailbox('shared_acct')).toHaveLength(1);
    expect(await accountNamed('shared_acct')).toMatchObject({ status: 'AWAITING_INPUT' });
  });

  it('goes on collecting with the other accounts while one waits for its code', async () => {
    await addByCredentials('mail_acct', { emailCode: true });
    // No signed-in account yet: the password account signs in and waits for its code.
    await failure(source.lookupUser('nasa'));
    expect(dataOf(await root.get(CHALLENGE), challengeStatusResponseSchema)).toMatchObject({
      status: 'AWAITING_INPUT',
      collection_paused: true,
    });
    await addByCookies('helper');
    expect((await source.lookupUser('nasa')).xUserId).toBe('11348282');
    expect(dataOf(await root.get(CHALLENGE), challengeStatusResponseSchema)).toMatchObject({
      status: 'AWAITING_INPUT',
      account: 'mail_acct',
      collection_paused: false,
    });
    const processes = dataOf(
      await admin.get('/api/v1/admin/processes'),
      adminProcessesResponseSchema,
    );
    expect(processes.source.health).not.toBe('paused');
  });
});
