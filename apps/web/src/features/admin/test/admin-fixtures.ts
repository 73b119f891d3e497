import {
  ADMIN_MESSAGES,
  type AdminHandle,
  type AdminInvitation,
  type AdminProcess,
  type AdminProcesses,
  type AdminUser,
  type AdminUserHandle,
  type CreateInvitationRequest,
  type Role,
} from '@perch/shared';
import { fail, jsonResponse, ok, type StubHandler, type StubRequest } from '@/test/fetch-stub';

/** The API's success envelope with a message next to the data, as the admin routes answer. */
export function okWithMessage(data: unknown, message: string, status = 200): Response {
  return jsonResponse(status, { success: true, data, message });
}

/** The reason the server gives a collector an admin stopped. */
const STOPPED_BY_ADMIN = 'Stopped by an admin. Start it to resume where it left off.';

export function makeUser(
  overrides: Partial<AdminUser> & { id: number; username: string },
): AdminUser {
  const role = overrides.role ?? 'user';
  return {
    email: `${overrides.username}@example.com`,
    created_at: '2025-03-01T12:00:00.000Z',
    role,
    isAdmin: role !== 'user',
    isSuperAdmin: role === 'superadmin',
    last_login_at: '2025-03-10T11:00:00.000Z',
    last_active_at: '2025-03-10T11:58:00.000Z',
    handles_count: 0,
    ...overrides,
  };
}

export function makeUserHandle(
  overrides: Partial<AdminUserHandle> & { id: number; handle: string },
): AdminUserHandle {
  return {
    created_at: '2025-03-01T12:00:00.000Z',
    added_at: '2025-03-02T10:00:00.000Z',
    backfill_days: 15,
    backfill_status: 'completed',
    ...overrides,
  };
}

export function makeSystemHandle(
  overrides: Partial<AdminHandle> & { id: number; handle: string },
): AdminHandle {
  return {
    created_at: '2025-03-01T12:00:00.000Z',
    followers_count: 1200,
    status: 'completed',
    backfill_progress: 100,
    tweets: 340,
    users_count: 1,
    stopped: false,
    last_error: null,
    ...overrides,
  };
}

export function makeProcess(
  overrides: Partial<AdminProcess> & { handle_id: number; handle: string },
): AdminProcess {
  return {
    state: 'running',
    state_reason: null,
    job: 'monitor',
    backfill_status: 'completed',
    backfill_progress: 100,
    last_poll_at: '2025-03-10T11:59:00.000Z',
    next_poll_at: '2025-03-10T12:00:30.000Z',
    last_error: null,
    tweets_collected: 340,
    users_count: 1,
    ...overrides,
  };
}

/** The collector account's email challenge, asked at 11:50 UTC, in this state. */
export function makeEmailChallenge(
  status: AdminProcesses['source']['challenge']['status'],
): AdminProcesses['source']['challenge'] {
  return {
    status,
    challenge_type: 'email',
    challenge_details: null,
    last_challenge_at: '2025-03-10T11:50:00.000Z',
  };
}

export function makeSource(
  overrides: Partial<AdminProcesses['source']> = {},
): AdminProcesses['source'] {
  return {
    name: 'demo',
    health: 'ok',
    health_reason: null,
    rate_budget: { limit: null, remaining: null, resetAt: null },
    challenge: {
      status: 'IDLE',
      challenge_type: null,
      challenge_details: null,
      last_challenge_at: null,
    },
    collector_in_process: true,
    ...overrides,
  };
}

export function makeInvitation(
  overrides: Partial<AdminInvitation> & { id: number },
): AdminInvitation {
  return {
    role: 'user',
    max_uses: 1,
    uses: 0,
    expires_at: '2025-03-17T12:00:00.000Z',
    created_at: '2025-03-10T12:00:00.000Z',
    created_by: 'ada',
    revoked_at: null,
    state: 'active',
    ...overrides,
  };
}

export interface AdminServerState {
  users: AdminUser[];
  /** The handles each user monitors, by user id. */
  userHandles: Record<number, AdminUserHandle[]>;
  handles: AdminHandle[];
  processes: AdminProcess[];
  source: AdminProcesses['source'];
  invitations: AdminInvitation[];
}

const idOf = (request: StubRequest, index: number) => Number(request.path.split('/')[index]);

/**
 * A little admin API over in-memory records, answering as the contract says: lists, the user-
 * handle link removal, global delete, data clean-up, stop/start, roles and invitations. Every
 * change answers with the message the server sends for it; a stop of a stopped collector and a
 * start of a running one are refused with 409, as the server does.
 */
export function adminServer(initial: Partial<AdminServerState> = {}) {
  const state: AdminServerState = {
    users: [],
    userHandles: {},
    handles: [],
    processes: [],
    source: makeSource(),
    invitations: [],
    ...initial,
  };
  let nextInvitationId = 100;

  const handlers: Record<string, StubHandler> = {
    'GET /api/v1/admin/users': () => ok({ users: state.users }),
    'GET /api/v1/admin/all-handles': () => ok({ handles: state.handles }),
    'GET /api/v1/admin/processes': () => ok({ source: state.source, processes: state.processes }),
    'GET /api/v1/admin/invitations': () => ok({ invitations: state.invitations }),
    'POST /api/v1/admin/invitations': (request) => {
      const body = request.body as CreateInvitationRequest;
      const invitation = makeInvitation({
        id: nextInvitationId,
        role: body.role ?? 'user',
        max_uses: body.max_uses ?? 1,
        expires_at: body.expires_in_days === null ? null : '2025-03-17T12:00:00.000Z',
      });
      // As the server does: the code is in this answer only, never in the list.
      const code = `PERCH-NEW${nextInvitationId}`;
      nextInvitationId += 1;
      state.invitations = [invitation, ...state.invitations];
      return okWithMessage(
        { invitation: { ...invitation, code } },
        ADMIN_MESSAGES.invitationCreated,
        201,
      );
    },
    'POST /api/v1/admin/processes/stop': (request) => {
      const { handle_id: handleId } = request.body as { handle_id: number };
      return setProcess(handleId, 'stopped');
    },
    'POST /api/v1/admin/processes/start': (request) => {
      const { handle_id: handleId } = request.body as { handle_id: number };
      return setProcess(handleId, 'running');
    },
  };

  function setProcess(handleId: number, next: AdminProcess['state']): Response {
    const current = state.processes.find((entry) => entry.handle_id === handleId);
    if (!current) return fail(404, ADMIN_MESSAGES.handleNotFound, 'HANDLE_NOT_FOUND');
    if (next === 'stopped' && current.state === 'stopped') {
      return fail(
        409,
        ADMIN_MESSAGES.processAlreadyStopped(current.handle),
        'PROCESS_ALREADY_STOPPED',
      );
    }
    if (next === 'running' && current.state !== 'stopped' && current.backfill_status !== 'failed') {
      return fail(
        409,
        ADMIN_MESSAGES.processAlreadyRunning(current.handle),
        'PROCESS_ALREADY_RUNNING',
      );
    }
    const process: AdminProcess = {
      ...current,
      state: next,
      state_reason: next === 'stopped' ? STOPPED_BY_ADMIN : null,
    };
    state.processes = state.processes.map((entry) =>
      entry.handle_id === handleId ? process : entry,
    );
    return okWithMessage(
      { process },
      next === 'stopped'
        ? ADMIN_MESSAGES.processStopped(process.handle)
        : ADMIN_MESSAGES.processStarted(process.handle),
    );
  }

  for (const user of state.users) {
    handlers[`GET /api/v1/admin/users/${user.id}/handles`] = () =>
      ok({ user_id: user.id, handles: state.userHandles[user.id] ?? [] });
    handlers[`PUT /api/v1/admin/users/${user.id}/role`] = (request) => {
      const { role } = request.body as { role: Role };
      const updated = makeUser({ ...user, role });
      state.users = state.users.map((entry) => (entry.id === user.id ? updated : entry));
      return okWithMessage({ user: updated }, ADMIN_MESSAGES.roleChanged(updated.username, role));
    };
    for (const handle of state.userHandles[user.id] ?? []) {
      handlers[`DELETE /api/v1/admin/users/${user.id}/handles/${handle.id}`] = (request) => {
        const userId = idOf(request, 5);
        state.userHandles[userId] = (state.userHandles[userId] ?? []).filter(
          (entry) => entry.id !== handle.id,
        );
        return okWithMessage(
          { user_id: userId, handles: state.userHandles[userId] },
          ADMIN_MESSAGES.handleRemovedFromUser(handle.handle),
        );
      };
    }
  }
  for (const handle of state.handles) {
    handlers[`DELETE /api/v1/admin/handles/${handle.id}`] = () => {
      state.handles = state.handles.filter((entry) => entry.id !== handle.id);
      state.processes = state.processes.filter((entry) => entry.handle_id !== handle.id);
      return okWithMessage(
        { id: handle.id, handle: handle.handle },
        ADMIN_MESSAGES.handleDeleted(handle.handle),
      );
    };
    handlers[`DELETE /api/v1/admin/handles/${handle.id}/data`] = () => {
      state.handles = state.handles.map((entry) =>
        entry.id === handle.id
          ? { ...entry, tweets: 0, status: 'pending', backfill_progress: 0 }
          : entry,
      );
      const process = makeProcess({
        ...state.processes.find((entry) => entry.handle_id === handle.id),
        handle_id: handle.id,
        handle: handle.handle,
        job: 'backfill',
        backfill_status: 'pending',
        backfill_progress: 0,
        tweets_collected: 0,
      });
      state.processes = state.processes.map((entry) =>
        entry.handle_id === handle.id ? process : entry,
      );
      return okWithMessage({ process }, ADMIN_MESSAGES.handleDataCleared(handle.handle));
    };
  }
  for (const invitation of state.invitations) {
    handlers[`DELETE /api/v1/admin/invitations/${invitation.id}`] = () => {
      state.invitations = state.invitations.map((entry) =>
        entry.id === invitation.id
          ? { ...entry, state: 'revoked', revoked_at: '2025-03-10T12:05:00.000Z' }
          : entry,
      );
      return okWithMessage(
        { invitation: state.invitations.find((entry) => entry.id === invitation.id) },
        ADMIN_MESSAGES.invitationRevoked,
      );
    };
  }

  return { handlers, state };
}

/** A typical system: a super admin, an admin and a user with two handles. */
export function sampleAdminServer(overrides: Partial<AdminServerState> = {}) {
  return adminServer({
    users: [
      makeUser({ id: 1, username: 'ada', role: 'superadmin', handles_count: 0 }),
      makeUser({ id: 2, username: 'linus', role: 'admin', handles_count: 0 }),
      makeUser({ id: 3, username: 'grace', handles_count: 2, last_active_at: null }),
    ],
    userHandles: {
      3: [makeUserHandle({ id: 11, handle: 'nasa' }), makeUserHandle({ id: 12, handle: 'spacex' })],
    },
    handles: [
      makeSystemHandle({ id: 11, handle: 'nasa', users_count: 1 }),
      makeSystemHandle({
        id: 12,
        handle: 'spacex',
        users_count: 2,
        status: 'in_progress',
        backfill_progress: 40,
      }),
    ],
    processes: [
      makeProcess({ handle_id: 11, handle: 'nasa' }),
      makeProcess({
        handle_id: 12,
        handle: 'spacex',
        job: 'backfill',
        backfill_status: 'in_progress',
        backfill_progress: 40,
      }),
    ],
    invitations: [makeInvitation({ id: 7 })],
    ...overrides,
  });
}
