import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN_MESSAGES,
  MESSAGES,
  adminHandlesResponseSchema,
  adminCreatedInvitationResponseSchema,
  adminInvitationResponseSchema,
  adminInvitationsResponseSchema,
  adminUserHandlesResponseSchema,
  adminUserResponseSchema,
  adminUsersResponseSchema,
  authCheckResponseSchema,
  handleListResponseSchema,
  handleResponseSchema,
  verifyInviteResponseSchema,
  type AdminInvitation,
  type Role,
} from '@perch/shared';
import { insertUser } from '../src/modules/users/users.repository.js';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { signedInAs } from './seed.js';

const API = '/api/v1';

/** Ids a path segment may carry that are not a user, handle or invitation id. */
const BAD_IDS = ['abc', '0', '-1', '1.5', '1e3x', '99999999999', '%20'];

describe.each(DIALECTS)('admin API [%s]', (dialect) => {
  let t: TestApp;
  let root: TestClient;
  let admin: TestClient;
  let alice: TestClient;
  let bob: TestClient;
  let rootId: number;
  let adminId: number;
  let aliceId: number;
  let bobId: number;

  beforeEach(async () => {
    t = await buildTestApp(dialect);
    // Nothing here needs tweets; without collection the handle rows stay as the tests set them.
    await t.collector.stop();
    root = new TestClient(t.app);
    rootId = (await root.register(t.db, 'root', 'superadmin')).data.user.id;
    admin = new TestClient(t.app);
    adminId = (await admin.register(t.db, 'keeper', 'admin')).data.user.id;
    alice = new TestClient(t.app);
    aliceId = (await alice.register(t.db, 'alice')).data.user.id;
    bob = new TestClient(t.app);
    bobId = (await bob.register(t.db, 'bob')).data.user.id;
  });

  afterEach(async () => {
    await t.close();
  });

  const put = (client: TestClient, url: string, payload: unknown) =>
    client.request({ method: 'PUT', url, payload: payload as Record<string, unknown> });
  const setRole = (client: TestClient, userId: number | string, role: unknown) =>
    put(client, `${API}/admin/users/${userId}/role`, { role });

  async function follow(client: TestClient, username: string): Promise<number> {
    const response = await client.post(`${API}/handles`, { username, backfill_days: 7 });
    return dataOf(response, handleResponseSchema).handle.id;
  }

  async function handleNamesOf(client: TestClient): Promise<string[]> {
    const { handles } = dataOf(await client.get(`${API}/handles`), handleListResponseSchema);
    return handles.map((handle) => handle.handle);
  }

  function eventsOf(type: string) {
    return t.db.db
      .selectFrom('security_events')
      .selectAll()
      .where('event_type', '=', type)
      .orderBy('id')
      .execute();
  }

  async function authCheckOf(client: TestClient) {
    return dataOf(await client.get(`${API}/auth/check`), authCheckResponseSchema);
  }

  /** A privilege change ends the user's sessions: the same browser signs in again. */
  async function signInAgain(client: TestClient, username: string) {
    expect(await authCheckOf(client)).toMatchObject({ authenticated: false });
    await signedInAs(client, username);
  }

  describe('users', () => {
    it('lists every user by id with role flags, handles followed and last activity', async () => {
      await follow(alice, 'typical_ua');
      await follow(alice, 'typical_ub');
      await follow(bob, 'typical_ua');
      // A second session for alice; the newest last-seen of the two counts.
      const aliceAgain = new TestClient(t.app);
      await aliceAgain.post(`${API}/auth/login`, { username: 'alice', password: 'Sup3r-secret!' });
      const sessions = await t.db.db
        .selectFrom('sessions')
        .select(['id', 'created_at'])
        .where('user_id', '=', aliceId)
        .orderBy('created_at')
        .execute();
      expect(sessions).toHaveLength(2);
      await t.db.db
        .updateTable('sessions')
        .set({ last_seen_at: '2024-01-01T00:00:00.000Z' })
        .where('user_id', '=', aliceId)
        .execute();
      await t.db.db
        .updateTable('sessions')
        .set({ last_seen_at: '2024-06-01T12:00:00.000Z' })
        .where('id', '=', sessions[0]!.id)
        .execute();
      const quiet = await insertUser(t.db.db, {
        username: 'quiet',
        email: 'quiet@example.com',
        passwordHash: 'x',
        isAdmin: false,
        isSuperAdmin: false,
        createdAt: '2024-02-02T00:00:00.000Z',
      });

      const response = await admin.get(`${API}/admin/users`);
      expect(response.statusCode, response.body).toBe(200);
      const { users } = dataOf(response, adminUsersResponseSchema);
      expect(users.map((user) => user.id)).toEqual([rootId, adminId, aliceId, bobId, quiet.id]);
      expect(
        users.map((user) => [user.username, user.role, user.isAdmin, user.isSuperAdmin]),
      ).toEqual([
        ['root', 'superadmin', true, true],
        ['keeper', 'admin', true, false],
        ['alice', 'user', false, false],
        ['bob', 'user', false, false],
        ['quiet', 'user', false, false],
      ]);
      const byName = Object.fromEntries(users.map((user) => [user.username, user]));
      expect(byName.alice).toMatchObject({
        email: 'alice@example.com',
        handles_count: 2,
        last_active_at: '2024-06-01T12:00:00.000Z',
      });
      expect(byName.alice!.last_login_at).not.toBeNull();
      expect(byName.bob).toMatchObject({ handles_count: 1 });
      expect(byName.bob!.last_active_at).not.toBeNull();
      expect(byName.quiet).toMatchObject({
        created_at: '2024-02-02T00:00:00.000Z',
        handles_count: 0,
        last_login_at: null,
        last_active_at: null,
      });
      expect(JSON.stringify(users)).not.toContain('password');
    });

    it('lists the handles one user follows, oldest first', async () => {
      const first = await follow(alice, 'typical_ha');
      const second = await follow(alice, 'typical_hb');
      await follow(bob, 'typical_hc');

      const response = await admin.get(`${API}/admin/users/${aliceId}/handles`);
      expect(response.statusCode, response.body).toBe(200);
      const data = dataOf(response, adminUserHandlesResponseSchema);
      expect(data.user_id).toBe(aliceId);
      expect(data.handles.map((handle) => [handle.id, handle.handle])).toEqual([
        [first, 'typical_ha'],
        [second, 'typical_hb'],
      ]);
      expect(data.handles[0]).toMatchObject({ backfill_days: 7, backfill_status: 'pending' });

      const none = dataOf(
        await admin.get(`${API}/admin/users/${rootId}/handles`),
        adminUserHandlesResponseSchema,
      );
      expect(none).toEqual({ user_id: rootId, handles: [] });
    });

    it('answers 404 for an unknown user and the spec text for a bad or missing id', async () => {
      expectError(await admin.get(`${API}/admin/users/999999/handles`), 404, {
        message: ADMIN_MESSAGES.userNotFound,
      });
      for (const id of [...BAD_IDS, '']) {
        expectError(await admin.get(`${API}/admin/users/${id}/handles`), 400, {
          message: 'User ID is required to fetch handles.',
          code: 'VALIDATION_ERROR',
        });
      }
    });
  });

  describe('removing a handle from a user', () => {
    it('removes only that link: another follower keeps the handle', async () => {
      const handleId = await follow(alice, 'typical_sh');
      await follow(bob, 'typical_sh');
      const keep = await follow(alice, 'typical_kp');

      const response = await admin.delete(`${API}/admin/users/${aliceId}/handles/${handleId}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        message: 'Successfully removed handle @typical_sh from user.',
      });
      expect(ADMIN_MESSAGES.handleRemovedFromUser('typical_sh')).toBe(
        'Successfully removed handle @typical_sh from user.',
      );
      expect(dataOf(response, adminUserHandlesResponseSchema)).toMatchObject({
        user_id: aliceId,
        handles: [{ id: keep, handle: 'typical_kp' }],
      });

      const links = await t.db.db
        .selectFrom('user_handles')
        .select('user_id')
        .where('handle_id', '=', handleId)
        .execute();
      expect(links.map((link) => link.user_id)).toEqual([bobId]);
      expect(await handleNamesOf(alice)).toEqual(['typical_kp']);
      expect(await handleNamesOf(bob)).toEqual(['typical_sh']);

      const { handles } = dataOf(
        await admin.get(`${API}/admin/handles`),
        adminHandlesResponseSchema,
      );
      expect(handles.find((handle) => handle.id === handleId)).toMatchObject({ users_count: 1 });

      const events = await eventsOf('admin_handle_removed_from_user');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ user_id: aliceId, actor_id: adminId, severity: 'medium' });
      expect(JSON.parse(events[0]!.metadata)).toMatchObject({
        actor: 'keeper',
        handle_id: handleId,
        handle: 'typical_sh',
      });
    });

    it('behaves like the user removing it when the last follower goes: the data stays', async () => {
      const handleId = await follow(alice, 'typical_lf');
      await t.db.db
        .updateTable('handles')
        .set({ total_tweets_collected: 12 })
        .where('id', '=', handleId)
        .execute();

      const response = await root.delete(`${API}/admin/users/${aliceId}/handles/${handleId}`);
      expect(response.statusCode, response.body).toBe(200);

      expect(await handleNamesOf(alice)).toEqual([]);
      const { handles } = dataOf(
        await root.get(`${API}/admin/handles`),
        adminHandlesResponseSchema,
      );
      expect(handles.map((handle) => handle.id)).not.toContain(handleId);
      const row = await t.db.db
        .selectFrom('handles')
        .selectAll()
        .where('id', '=', handleId)
        .executeTakeFirst();
      expect(row?.total_tweets_collected).toBe(12);
    });

    it('answers 404 when there is no such link or user, 400 with the spec text for bad ids', async () => {
      const handleId = await follow(bob, 'typical_nl');
      expectError(await admin.delete(`${API}/admin/users/${aliceId}/handles/${handleId}`), 404, {
        message: ADMIN_MESSAGES.userDoesNotFollow,
      });
      expectError(await admin.delete(`${API}/admin/users/${aliceId}/handles/999999`), 404, {
        message: ADMIN_MESSAGES.userDoesNotFollow,
      });
      expectError(await admin.delete(`${API}/admin/users/999999/handles/${handleId}`), 404, {
        message: ADMIN_MESSAGES.userNotFound,
      });
      const urls = BAD_IDS.flatMap((id) => [
        `${API}/admin/users/${id}/handles/${handleId}`,
        `${API}/admin/users/${bobId}/handles/${id}`,
      ]);
      for (const url of [...urls, `${API}/admin/users//handles/${handleId}`]) {
        expectError(await admin.delete(url), 400, {
          message: 'User ID and Handle ID are required.',
          code: 'VALIDATION_ERROR',
        });
      }
      expect(await handleNamesOf(bob)).toEqual(['typical_nl']);
      expect(await eventsOf('admin_handle_removed_from_user')).toEqual([]);
    });
  });

  describe('handles of the system', () => {
    it('lists every followed handle with its followers, tweets and stop flag, on both paths', async () => {
      const shared = await follow(alice, 'typical_gs');
      await follow(bob, 'typical_gs');
      const single = await follow(bob, 'typical_gt');
      const unfollowed = await follow(alice, 'typical_gu');
      await alice.delete(`${API}/handles/${unfollowed}`);
      await t.db.db
        .updateTable('handles')
        .set({
          total_tweets_collected: 321,
          paused: true,
          followers_count: 4567,
          backfill_status: 'failed',
          backfill_progress: 42.5,
          last_error: 'Rate limited',
        })
        .where('id', '=', single)
        .execute();

      const response = await admin.get(`${API}/admin/handles`);
      expect(response.statusCode, response.body).toBe(200);
      const { handles } = dataOf(response, adminHandlesResponseSchema);
      expect(handles.map((handle) => handle.id)).toEqual([shared, single]);
      expect(handles[0]).toMatchObject({
        handle: 'typical_gs',
        users_count: 2,
        tweets: 0,
        stopped: false,
        status: 'pending',
        last_error: null,
      });
      expect(handles[1]).toMatchObject({
        handle: 'typical_gt',
        users_count: 1,
        tweets: 321,
        stopped: true,
        followers_count: 4567,
        status: 'failed',
        backfill_progress: 42.5,
        last_error: 'Rate limited',
      });

      const alias = await admin.get(`${API}/admin/all-handles`);
      expect(alias.statusCode).toBe(200);
      expect(alias.json()).toEqual(response.json());
    });

    it('answers an empty list when nobody follows anything', async () => {
      const { handles } = dataOf(
        await root.get(`${API}/admin/all-handles`),
        adminHandlesResponseSchema,
      );
      expect(handles).toEqual([]);
    });
  });

  describe('roles', () => {
    it('changes a role, says so, logs it, and the user has it once signed in again', async () => {
      expect(await authCheckOf(alice)).toMatchObject({ isAdmin: false, isSuperAdmin: false });

      let response = await setRole(root, aliceId, 'admin');
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: 'alice is now an admin.' });
      expect(dataOf(response, adminUserResponseSchema).user).toMatchObject({
        id: aliceId,
        role: 'admin',
        isAdmin: true,
        isSuperAdmin: false,
      });
      await signInAgain(alice, 'alice');
      expect(await authCheckOf(alice)).toMatchObject({ isAdmin: true, isSuperAdmin: false });
      expect((await alice.get(`${API}/admin/users`)).statusCode).toBe(200);

      response = await setRole(root, aliceId, 'superadmin');
      expect(response.json()).toMatchObject({
        message: ADMIN_MESSAGES.roleChanged('alice', 'superadmin'),
      });
      expect(ADMIN_MESSAGES.roleChanged('alice', 'superadmin')).toBe('alice is now a super admin.');
      await signInAgain(alice, 'alice');
      expect(await authCheckOf(alice)).toMatchObject({ isAdmin: true, isSuperAdmin: true });

      response = await setRole(root, adminId, 'user');
      expect(response.json()).toMatchObject({ message: 'keeper is now a user.' });
      await signInAgain(admin, 'keeper');
      expect(await authCheckOf(admin)).toMatchObject({ isAdmin: false, isSuperAdmin: false });
      expectError(await admin.get(`${API}/admin/users`), 403, {
        message: ADMIN_MESSAGES.adminRequired,
      });

      const events = await eventsOf('role_changed');
      expect(events.map((event) => [event.user_id, event.actor_id, event.severity])).toEqual([
        [aliceId, rootId, 'high'],
        [aliceId, rootId, 'high'],
        [adminId, rootId, 'high'],
      ]);
      expect(events.map((event) => JSON.parse(event.metadata) as unknown)).toEqual([
        { actor: 'root', from: 'user', to: 'admin' },
        { actor: 'root', from: 'admin', to: 'superadmin' },
        { actor: 'root', from: 'admin', to: 'user' },
      ]);
    });

    it('answers the same role again without logging a change', async () => {
      const response = await setRole(root, bobId, 'user');
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: 'bob is now a user.' });
      expect(await eventsOf('role_changed')).toEqual([]);
    });

    it('refuses to leave the system without a super admin', async () => {
      for (const role of ['admin', 'user'] as const) {
        expectError(await setRole(root, rootId, role), 409, {
          message: 'The system must keep at least one super admin.',
          code: 'LAST_SUPER_ADMIN',
        });
      }
      expect(await authCheckOf(root)).toMatchObject({ isSuperAdmin: true });

      // With a second super admin, stepping down is fine; then the other one is the last.
      await setRole(root, aliceId, 'superadmin');
      await signInAgain(alice, 'alice');
      const response = await setRole(root, rootId, 'admin');
      expect(response.statusCode, response.body).toBe(200);
      // Their own change: this browser goes on (under a new session id), with the new role.
      expect(await authCheckOf(root)).toMatchObject({ isAdmin: true, isSuperAdmin: false });
      expectError(await setRole(alice, aliceId, 'user'), 409, {
        message: ADMIN_MESSAGES.lastSuperAdmin,
      });
      expect((await eventsOf('role_changed')).map((event) => event.user_id)).toEqual([
        aliceId,
        rootId,
      ]);
    });

    it('keeps one super admin when every super admin steps down at the same moment', async () => {
      const superAdmins = [root];
      for (const name of ['sa_one', 'sa_two', 'sa_three', 'sa_four', 'sa_five']) {
        const client = new TestClient(t.app);
        await client.register(t.db, name, 'superadmin');
        superAdmins.push(client);
      }
      const ids = await Promise.all(
        superAdmins.map(async (client) => (await authCheckOf(client)).userId!),
      );
      const answers = await Promise.all(
        superAdmins.map((client, index) => setRole(client, ids[index]!, 'admin')),
      );
      const statuses = answers.map((answer) => answer.statusCode).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 200, 409]);
      const remaining = await t.db.db
        .selectFrom('users')
        .select('id')
        .where('is_super_admin', '=', true)
        .execute();
      expect(remaining).toHaveLength(1);
    });

    it('needs a super admin, a known user, a valid id and a valid role', async () => {
      expectError(await setRole(admin, aliceId, 'admin'), 403, {
        message: ADMIN_MESSAGES.superAdminRequired,
      });
      expectError(await setRole(alice, aliceId, 'admin'), 403, {
        message: ADMIN_MESSAGES.adminRequired,
      });
      expectError(await setRole(root, 999999, 'admin'), 404, {
        message: ADMIN_MESSAGES.userNotFound,
      });
      for (const id of BAD_IDS) {
        expectError(await setRole(root, id, 'admin'), 400, {
          message: ADMIN_MESSAGES.userIdRequiredToChangeRole,
        });
      }
      for (const role of ['god', '', 'Admin', 1, null, undefined]) {
        expectError(await setRole(root, aliceId, role), 400, {
          message: 'Role must be user, admin or superadmin.',
        });
      }
      expectError(await put(root, `${API}/admin/users/${aliceId}/role`, []), 400, {
        message: ADMIN_MESSAGES.roleInvalid,
      });
      expect(await authCheckOf(alice)).toMatchObject({ isAdmin: false });
      expect(await eventsOf('role_changed')).toEqual([]);
    });
  });

  describe('invitations', () => {
    const create = (client: TestClient, body: Record<string, unknown>) =>
      client.post(`${API}/admin/invitations`, body);

    async function createdBy(client: TestClient, body: Record<string, unknown>) {
      const response = await create(client, body);
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({ message: 'Invitation created.' });
      return dataOf(response, adminCreatedInvitationResponseSchema).invitation;
    }

    async function listedFor(client: TestClient): Promise<AdminInvitation[]> {
      const response = await client.get(`${API}/admin/invitations`);
      expect(response.statusCode, response.body).toBe(200);
      return dataOf(response, adminInvitationsResponseSchema).invitations;
    }

    function register(code: string, username: string) {
      return new TestClient(t.app).post(`${API}/auth/register`, {
        username,
        email: `${username}@example.com`,
        password: 'Sup3r-secret!',
        confirmPassword: 'Sup3r-secret!',
        invitationCode: code,
        acceptTerms: true,
        acceptPrivacy: true,
      });
    }

    it('creates invitations with defaults, limits and the creator named', async () => {
      const before = Date.now();
      const plain = await createdBy(admin, {});
      expect(plain).toMatchObject({
        role: 'user',
        max_uses: 1,
        uses: 0,
        created_by: 'keeper',
        revoked_at: null,
        state: 'active',
      });
      expect(plain.code).toMatch(/^PERCH-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
      const week = Date.parse(plain.expires_at!) - before;
      expect(week).toBeGreaterThanOrEqual(7 * 86_400_000);
      expect(week).toBeLessThan(7 * 86_400_000 + 60_000);

      const forever = await createdBy(root, { role: 'admin', max_uses: 5, expires_in_days: null });
      expect(forever).toMatchObject({
        role: 'admin',
        max_uses: 5,
        expires_at: null,
        created_by: 'root',
      });
      const boss = await createdBy(root, { role: 'superadmin', expires_in_days: 365 });
      expect(boss.role).toBe('superadmin');

      const events = await eventsOf('invitation_created');
      expect(events.map((event) => [event.actor_id, event.severity, event.user_id])).toEqual([
        [adminId, 'medium', null],
        [rootId, 'high', null],
        [rootId, 'high', null],
      ]);
      expect(JSON.parse(events[1]!.metadata)).toEqual({
        actor: 'root',
        invitation_id: forever.id,
        role: 'admin',
        max_uses: 5,
        expires_at: null,
      });
      // The code is a credential: it never goes into the log.
      for (const event of events) {
        expect(`${event.description} ${event.metadata}`).not.toMatch(/PERCH-/);
      }
    });

    it('lets an admin invite plain users only', async () => {
      for (const role of ['admin', 'superadmin']) {
        expectError(await create(admin, { role }), 403, {
          message: 'Only a super admin can invite admins.',
          code: 'INVITATION_ROLE_FORBIDDEN',
        });
      }
      expect(await eventsOf('invitation_created')).toEqual([]);
    });

    it('refuses bad uses, expiry and role with their texts', async () => {
      for (const max_uses of [0, 101, 1.5, '3', null]) {
        expectError(await create(root, { max_uses }), 400, {
          message: 'Uses must be a whole number from 1 to 100.',
        });
      }
      for (const expires_in_days of [0, 366, 2.5, '7']) {
        expectError(await create(root, { expires_in_days }), 400, {
          message: 'Expiry must be a whole number of days from 1 to 365, or none.',
        });
      }
      for (const role of ['owner', 7, null]) {
        expectError(await create(root, { role }), 400, { message: ADMIN_MESSAGES.roleInvalid });
      }
    });

    it('lists with states; an admin sees only invitations for plain users', async () => {
      const active = await createdBy(admin, { max_uses: 2 });
      const used = await createdBy(admin, {});
      expect((await register(used.code, 'newbie')).statusCode).toBe(201);
      const expired = await createdBy(root, {});
      await t.db.db
        .updateTable('invitations')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', expired.id)
        .execute();
      const revoked = await createdBy(root, {});
      await root.delete(`${API}/admin/invitations/${revoked.id}`);
      const forAdmins = await createdBy(root, { role: 'admin' });

      const all = await listedFor(root);
      // Codes are shown once, at creation: the list carries none (only their hashes are kept).
      const listing = (await root.get(`${API}/admin/invitations`)).body;
      expect(listing).not.toMatch(/PERCH-|"code"/);
      const ids = all.map((invitation) => invitation.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const stateOf = (id: number) => all.find((invitation) => invitation.id === id)?.state;
      expect([active, used, expired, revoked, forAdmins].map((i) => stateOf(i.id))).toEqual([
        'active',
        'used',
        'expired',
        'revoked',
        'active',
      ]);
      // The invitations this suite registered its accounts with came from nobody (like the
      // first-start one): a super admin sees them too.
      const roleOfSystemInvitations = all
        .filter((invitation) => invitation.created_by === null)
        .map((invitation) => invitation.role)
        .sort();
      expect(roleOfSystemInvitations).toEqual(['admin', 'superadmin', 'user', 'user']);

      const seenByAdmin = await listedFor(admin);
      expect(seenByAdmin.every((invitation) => invitation.role === 'user')).toBe(true);
      expect(seenByAdmin.map((invitation) => invitation.id)).toEqual(
        all.filter((invitation) => invitation.role === 'user').map((invitation) => invitation.id),
      );
      expect(seenByAdmin.find((invitation) => invitation.id === used.id)).toMatchObject({
        uses: 1,
        created_by: 'keeper',
      });
    });

    it('revokes once, idempotently, and a revoked code can no longer register', async () => {
      const invitation = await createdBy(admin, { max_uses: 3 });
      const response = await admin.delete(`${API}/admin/invitations/${invitation.id}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ message: 'Invitation revoked.' });
      const revoked = dataOf(response, adminInvitationResponseSchema).invitation;
      expect(revoked).toMatchObject({ id: invitation.id, state: 'revoked' });
      expect(revoked.revoked_at).not.toBeNull();

      const again = await admin.delete(`${API}/admin/invitations/${invitation.id}`);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ message: ADMIN_MESSAGES.invitationRevoked });
      expect(dataOf(again, adminInvitationResponseSchema).invitation.revoked_at).toBe(
        revoked.revoked_at,
      );
      const events = await eventsOf('invitation_revoked');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ actor_id: adminId, severity: 'medium' });
      expect(JSON.parse(events[0]!.metadata)).toEqual({
        actor: 'keeper',
        invitation_id: invitation.id,
        role: 'user',
      });

      const check = await new TestClient(t.app).post(`${API}/auth/verify-invite`, {
        code: invitation.code,
      });
      expect(dataOf(check, verifyInviteResponseSchema)).toEqual({
        valid: false,
        message: MESSAGES.registerInviteExpired,
      });
      expectError(await register(invitation.code, 'too_late'), 409, {
        message: MESSAGES.registerInviteExpired,
        code: 'INVITE_REVOKED',
      });
      const users = await t.db.db
        .selectFrom('users')
        .select('id')
        .where('username', '=', 'too_late')
        .execute();
      expect(users).toEqual([]);
      const row = await t.db.db
        .selectFrom('invitations')
        .select('uses')
        .where('id', '=', invitation.id)
        .executeTakeFirstOrThrow();
      expect(row.uses).toBe(0);
    });

    it('lets an admin revoke only invitations for plain users; 404 and 400 otherwise', async () => {
      const forAdmins = await createdBy(root, { role: 'admin' as Role });
      expectError(await admin.delete(`${API}/admin/invitations/${forAdmins.id}`), 403, {
        message: ADMIN_MESSAGES.invitationRoleForbidden,
      });
      expectError(await admin.delete(`${API}/admin/invitations/999999`), 404, {
        message: 'Invitation not found.',
      });
      for (const id of BAD_IDS) {
        expectError(await admin.delete(`${API}/admin/invitations/${id}`), 400, {
          message: 'Invitation ID is required to revoke an invitation.',
        });
      }
      expect((await root.delete(`${API}/admin/invitations/${forAdmins.id}`)).statusCode).toBe(200);
      const events = await eventsOf('invitation_revoked');
      expect(events.map((event) => [event.actor_id, event.severity])).toEqual([[rootId, 'high']]);
      expect((await register(forAdmins.code, 'would_be')).statusCode).toBe(409);
    });
  });
});
