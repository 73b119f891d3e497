import { beforeAll, describe, expect, it } from 'vitest';
import {
  MESSAGES,
  registerResponseSchema,
  verifyInviteResponseSchema,
  type Role,
} from '@perch/shared';
import { invitationCodeHash } from '../src/modules/invitations/invitations.repository.js';
import { cookieAttributes, dataOf, expectError, setCookieLine } from './assertions.js';
import { DIALECTS, TEST_PASSWORD, TestClient, inviteCode, registration } from './helpers.js';
import { appForSuite, uniqueName } from './seed.js';

describe.each(DIALECTS)('registration API [%s]', (dialect) => {
  const suite = appForSuite(dialect);

  const invitation = (code: string) =>
    suite.t.db.db
      .selectFrom('invitations')
      .selectAll()
      .where('code_hash', '=', invitationCodeHash(code))
      .executeTakeFirstOrThrow();

  /** A new invitation's code, the invitation then changed to `changes`. */
  async function invitationWith(changes: { uses?: number; expires_at?: string }) {
    const code = await inviteCode(suite.t.db);
    await suite.t.db.db
      .updateTable('invitations')
      .set(changes)
      .where('code_hash', '=', invitationCodeHash(code))
      .execute();
    return code;
  }

  const usersNamed = (...names: string[]) =>
    suite.t.db.db.selectFrom('users').selectAll().where('username', 'in', names).execute();

  describe('POST /auth/verify-invite', () => {
    const verify = (client: TestClient, code: unknown) =>
      client.post('/api/v1/auth/verify-invite', { code });

    it('accepts an unused code', async () => {
      const code = await inviteCode(suite.t.db);
      const response = await verify(new TestClient(suite.t.app), code);
      expect(response.statusCode).toBe(200);
      expect(dataOf(response, verifyInviteResponseSchema)).toEqual({
        valid: true,
        message: MESSAGES.inviteValid,
      });
    });

    it('accepts a code with surrounding spaces', async () => {
      const code = await inviteCode(suite.t.db);
      const response = await verify(new TestClient(suite.t.app), `  ${code} `);
      expect(dataOf(response, verifyInviteResponseSchema).valid).toBe(true);
    });

    it('says when a code does not exist', async () => {
      const response = await verify(new TestClient(suite.t.app), 'PERCH-NOPE-NOPE-NOPE');
      expect(response.statusCode).toBe(200);
      expect(dataOf(response, verifyInviteResponseSchema)).toEqual({
        valid: false,
        message: 'Invitation code not found. Please check your code and try again.',
      });
    });

    it('says when a code has been used', async () => {
      const code = await invitationWith({ uses: 1 });
      const response = await verify(new TestClient(suite.t.app), code);
      expect(dataOf(response, verifyInviteResponseSchema)).toEqual({
        valid: false,
        message: 'This invitation code has already been used.',
      });
    });

    it('says when a code has expired', async () => {
      const code = await invitationWith({
        expires_at: new Date(Date.now() - 60_000).toISOString(),
      });
      const response = await verify(new TestClient(suite.t.app), code);
      expect(dataOf(response, verifyInviteResponseSchema)).toEqual({
        valid: false,
        message: MESSAGES.registerInviteExpired,
      });
    });

    it('refuses a blank or missing code with 400', async () => {
      const client = new TestClient(suite.t.app);
      for (const code of ['', '   ', undefined, 42, null]) {
        expectError(await verify(client, code), 400, {
          message: MESSAGES.invalidInvitation,
          code: 'VALIDATION_ERROR',
        });
      }
    });
  });

  describe('POST /auth/register', () => {
    it('creates the account, signs it in with a browser-session cookie and uses the code', async () => {
      const code = await inviteCode(suite.t.db);
      const username = uniqueName('Reg');
      const client = new TestClient(suite.t.app, '10.1.0.1');
      const response = await client.post('/api/v1/auth/register', registration(username, code));

      expect(response.statusCode, response.body).toBe(201);
      const data = dataOf(response, registerResponseSchema);
      expect(data.user).toMatchObject({
        username,
        email: `${username}@example.com`,
        isAdmin: false,
        isSuperAdmin: false,
        profile: null,
      });
      expect(data.csrfToken).toBe(client.csrf);
      expect(response.body).not.toMatch(/argon2|password_hash|passwordHash/i);

      const line = setCookieLine(response, 'perch_session');
      expect(line).toBeDefined();
      const attributes = cookieAttributes(line ?? '');
      expect(attributes).toHaveProperty('httponly');
      expect(attributes.samesite?.toLowerCase()).toBe('lax');
      expect(attributes.path).toBe('/');
      expect(attributes).not.toHaveProperty('max-age');
      expect(attributes).not.toHaveProperty('expires');
      expect(attributes).not.toHaveProperty('secure');

      const check = await client.get('/api/v1/auth/check');
      expect(check.json()).toMatchObject({ data: { authenticated: true, username } });

      expect(await invitation(code)).toMatchObject({ uses: 1, max_uses: 1 });
      const verify = await client.post('/api/v1/auth/verify-invite', { code });
      expect(dataOf(verify, verifyInviteResponseSchema)).toEqual({
        valid: false,
        message: MESSAGES.registerInviteUsed,
      });
      const [row] = await usersNamed(username);
      expect(row?.password_hash).toMatch(/^\$argon2id\$/);
      expect(row?.last_login_at).not.toBeNull();
    });

    it.each<[Role, boolean, boolean]>([
      ['user', false, false],
      ['admin', true, false],
      ['superadmin', true, true],
    ])('gives the %s role of the invitation', async (role, isAdmin, isSuperAdmin) => {
      const code = await inviteCode(suite.t.db, role);
      const username = uniqueName(role.slice(0, 5));
      const client = new TestClient(suite.t.app);
      const response = await client.post('/api/v1/auth/register', registration(username, code));
      expect(response.statusCode, response.body).toBe(201);
      expect(dataOf(response, registerResponseSchema).user).toMatchObject({
        isAdmin,
        isSuperAdmin,
      });
      const check = await client.get('/api/v1/auth/check');
      expect(check.json()).toMatchObject({ data: { authenticated: true, isAdmin, isSuperAdmin } });
      const [row] = await usersNamed(username);
      expect(Boolean(row?.is_admin)).toBe(isAdmin);
      expect(Boolean(row?.is_super_admin)).toBe(isSuperAdmin);
    });

    it('answers 404 for an unknown code and creates nobody', async () => {
      const username = uniqueName('nocode');
      const response = await new TestClient(suite.t.app).post(
        '/api/v1/auth/register',
        registration(username, 'PERCH-0000-0000-0000'),
      );
      expectError(response, 404, {
        message: 'Invitation code not found. Please check your code and try again.',
        code: 'INVITE_NOT_FOUND',
      });
      expect(setCookieLine(response, 'perch_session')).toBeUndefined();
      expect(await usersNamed(username)).toHaveLength(0);
    });

    it('answers 409 for a taken username, whatever its case, and keeps the code', async () => {
      const username = uniqueName('Taken');
      await new TestClient(suite.t.app).post(
        '/api/v1/auth/register',
        registration(username, await inviteCode(suite.t.db)),
      );
      const code = await inviteCode(suite.t.db);
      for (const variant of [username, username.toLowerCase(), username.toUpperCase()]) {
        const response = await new TestClient(suite.t.app).post(
          '/api/v1/auth/register',
          registration(variant, code, { email: `other_${variant}@example.com` }),
        );
        expectError(response, 409, {
          message: 'This username is already taken. Please choose a different one.',
          code: 'USERNAME_TAKEN',
        });
      }
      expect((await invitation(code)).uses).toBe(0);
    });

    it('answers 409 for a registered email, whatever its case', async () => {
      const first = uniqueName('mail');
      await new TestClient(suite.t.app).post(
        '/api/v1/auth/register',
        registration(first, await inviteCode(suite.t.db)),
      );
      const second = uniqueName('mail');
      const code = await inviteCode(suite.t.db);
      const response = await new TestClient(suite.t.app).post(
        '/api/v1/auth/register',
        registration(second, code, { email: `${first.toUpperCase()}@EXAMPLE.com` }),
      );
      expectError(response, 409, {
        message:
          'This email is already registered. Please use a different email or try logging in.',
        code: 'EMAIL_TAKEN',
      });
      expect(await usersNamed(second)).toHaveLength(0);
      expect((await invitation(code)).uses).toBe(0);
    });

    it('answers 409 for a used code', async () => {
      const code = await inviteCode(suite.t.db);
      const winner = await new TestClient(suite.t.app).post(
        '/api/v1/auth/register',
        registration(uniqueName('first'), code),
      );
      expect(winner.statusCode).toBe(201);
      const loser = uniqueName('second');
      const response = await new TestClient(suite.t.app).post(
        '/api/v1/auth/register',
        registration(loser, code),
      );
      expectError(response, 409, {
        message: 'This invitation code has already been used.',
        code: 'INVITE_USED',
      });
      expect(await usersNamed(loser)).toHaveLength(0);
    });

    it('answers 409 for an expired code', async () => {
      const code = await invitationWith({ expires_at: new Date(Date.now() - 1000).toISOString() });
      const username = uniqueName('late');
      const response = await new TestClient(suite.t.app).post(
        '/api/v1/auth/register',
        registration(username, code),
      );
      expectError(response, 409, {
        message: MESSAGES.registerInviteExpired,
        code: 'INVITE_EXPIRED',
      });
      expect(await usersNamed(username)).toHaveLength(0);
      expect((await invitation(code)).uses).toBe(0);
    });

    it('lets exactly one of two simultaneous registrations take a single-use code', async () => {
      const code = await inviteCode(suite.t.db);
      const names = [uniqueName('raceA'), uniqueName('raceB')];
      const responses = await Promise.all(
        names.map((name) =>
          new TestClient(suite.t.app).post('/api/v1/auth/register', registration(name, code)),
        ),
      );
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([201, 409]);
      const loser = responses.find((response) => response.statusCode === 409);
      expect(loser?.json()).toMatchObject({ message: MESSAGES.registerInviteUsed });
      expect((await invitation(code)).uses).toBe(1);
      expect(await usersNamed(...names)).toHaveLength(1);
    });

    it('lets exactly one of two simultaneous registrations take a username, and gives the other code back', async () => {
      const codes = [await inviteCode(suite.t.db), await inviteCode(suite.t.db)];
      const username = uniqueName('Twin');
      const variants = [username, username.toLowerCase()];
      const responses = await Promise.all(
        codes.map((code, i) =>
          new TestClient(suite.t.app).post(
            '/api/v1/auth/register',
            registration(variants[i] ?? username, code, {
              email: `twin${i}_${username}@example.com`,
            }),
          ),
        ),
      );
      expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 409]);
      const loser = responses.findIndex((response) => response.statusCode === 409);
      expect(responses[loser]?.json()).toMatchObject({
        message: MESSAGES.registerUsernameTaken,
        code: 'USERNAME_TAKEN',
      });
      const uses = await Promise.all(codes.map(async (code) => (await invitation(code)).uses));
      expect(uses[loser]).toBe(0);
      expect(uses[1 - loser]).toBe(1);
      expect(await usersNamed(...variants)).toHaveLength(1);
    });

    it('lets a three-use code register three people, then answers 409', async () => {
      const code = await inviteCode(suite.t.db, 'user', 3);
      for (let i = 0; i < 3; i++) {
        const response = await new TestClient(suite.t.app).post(
          '/api/v1/auth/register',
          registration(uniqueName('multi'), code),
        );
        expect(response.statusCode, response.body).toBe(201);
        expect((await invitation(code)).uses).toBe(i + 1);
      }
      const fourth = uniqueName('multi');
      expectError(
        await new TestClient(suite.t.app).post('/api/v1/auth/register', registration(fourth, code)),
        409,
        { message: MESSAGES.registerInviteUsed },
      );
      expect((await invitation(code)).uses).toBe(3);
      expect(await usersNamed(fourth)).toHaveLength(0);
    });

    describe('invalid data: 400 with the spec text and field details', () => {
      let code: string;
      beforeAll(async () => {
        code = await inviteCode(suite.t.db);
      });

      const cases: [string, (username: string) => Record<string, unknown>, string][] = [
        ['no username', () => ({ username: undefined }), MESSAGES.registerFillAll],
        ['a blank username', () => ({ username: '   ' }), MESSAGES.registerFillAll],
        ['no email', () => ({ email: undefined }), MESSAGES.registerFillAll],
        ['no password', () => ({ password: undefined }), MESSAGES.registerFillAll],
        ['an empty password', () => ({ password: '' }), MESSAGES.registerFillAll],
        ['no confirmation', () => ({ confirmPassword: undefined }), MESSAGES.registerFillAll],
        ['no invitation code', () => ({ invitationCode: undefined }), MESSAGES.registerFillAll],
        ['a blank invitation code', () => ({ invitationCode: ' ' }), MESSAGES.registerFillAll],
        [
          'passwords that differ',
          () => ({ confirmPassword: `${TEST_PASSWORD}x` }),
          MESSAGES.passwordsDoNotMatch,
        ],
        [
          'a 7-character password',
          () => ({ password: 'Abc12!x', confirmPassword: 'Abc12!x' }),
          'Password must be at least 8 characters long.',
        ],
        [
          'a 2-character username',
          () => ({ username: 'ab' }),
          'Username must be 3-32 characters of letters, digits, underscores, dots or hyphens.',
        ],
        [
          'a 33-character username',
          () => ({ username: 'a'.repeat(33) }),
          'Username must be 3-32 characters of letters, digits, underscores, dots or hyphens.',
        ],
        [
          'a username with spaces',
          () => ({ username: 'john smith' }),
          'Username must be 3-32 characters of letters, digits, underscores, dots or hyphens.',
        ],
        [
          'a username with other characters',
          () => ({ username: 'jo<script>' }),
          'Username must be 3-32 characters of letters, digits, underscores, dots or hyphens.',
        ],
        [
          'an invalid email',
          () => ({ email: 'not-an-email' }),
          'Please enter a valid email address.',
        ],
        ['an email without domain', () => ({ email: 'x@' }), 'Please enter a valid email address.'],
      ];

      it.each(cases)('refuses %s', async (_name, change, detail) => {
        const username = uniqueName('bad');
        const response = await new TestClient(suite.t.app).post(
          '/api/v1/auth/register',
          registration(username, code, change(username)),
        );
        const envelope = expectError(response, 400, {
          message: 'Invalid registration data. Please check your information.',
          code: 'VALIDATION_ERROR',
        });
        expect(envelope.details).toContain(detail);
        expect(await usersNamed(username)).toHaveLength(0);
      });

      it('refuses an empty body with "Please fill in all fields"', async () => {
        const envelope = expectError(
          await new TestClient(suite.t.app).post('/api/v1/auth/register', {}),
          400,
          { message: MESSAGES.registerInvalidData },
        );
        expect(envelope.details).toBe(MESSAGES.registerFillAll);
      });

      it('leaves the code unused', async () => {
        expect((await invitation(code)).uses).toBe(0);
      });
    });
  });
});
