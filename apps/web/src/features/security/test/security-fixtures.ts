import {
  MESSAGES,
  RECOVERY_CODE_COUNT,
  SECURITY_MESSAGES,
  changeEmailRequestSchema,
  changePasswordRequestSchema,
  incidentRequestSchema,
  loginHistoryQuerySchema,
  securityEventsQuerySchema,
  securityStatsQuerySchema,
  twoFactorRequestSchema,
  updateSecuritySettingsSchema,
  type LoginHistoryEntry,
  type SecurityEvent,
  type SecuritySession,
  type SecuritySettings,
  type SecurityStats,
  type SecurityTimeRange,
} from '@perch/shared';
import { fail, jsonResponse, ok, type StubHandler, type StubRequest } from '@/test/fetch-stub';

/** The API's success envelope with a message next to the data, as the security routes answer. */
export function okWithMessage(data: unknown, message: string, status = 200): Response {
  return jsonResponse(status, { success: true, data, message });
}

const MINUTE = 60_000;
/** An instant `minutes` before now, as the API writes times. */
export const minutesAgo = (minutes: number) =>
  new Date(Date.now() - minutes * MINUTE).toISOString();

export function makeStats(overrides: Partial<SecurityStats> = {}): SecurityStats {
  return {
    timeRange: '24h',
    failedLogins: 0,
    successfulLogins: 3,
    activeSessions: 1,
    blockedRequests: 0,
    riskLevel: 'low',
    riskReasons: [],
    secureTransport: true,
    ...overrides,
  };
}

export function makeSecurityEvent(
  overrides: Partial<SecurityEvent> & { id: number },
): SecurityEvent {
  return {
    eventType: 'login_success',
    severity: 'low',
    description: 'Signed in.',
    timestamp: '2025-03-10T12:00:00.000Z',
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0',
    userId: 3,
    actor: null,
    ...overrides,
  };
}

export function makeSession(overrides: Partial<SecuritySession> & { id: string }): SecuritySession {
  return {
    createdAt: minutesAgo(3 * 24 * 60),
    lastSeenAt: minutesAgo(2),
    expiresAt: new Date(Date.now() + 12 * 60 * MINUTE).toISOString(),
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0',
    device: 'Chrome on Linux',
    rememberMe: false,
    current: false,
    ...overrides,
  };
}

export function makeLoginEntry(
  overrides: Partial<LoginHistoryEntry> & { id: number },
): LoginHistoryEntry {
  return {
    timestamp: '2025-03-10T12:00:00.000Z',
    success: true,
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0',
    device: 'Chrome on Linux',
    ...overrides,
  };
}

export function makeSecuritySettings(overrides: Partial<SecuritySettings> = {}): SecuritySettings {
  return {
    twoFactorEnabled: false,
    recoveryCodesRemaining: 0,
    alertOnNewDevice: true,
    alertOnFailedLogins: true,
    ...overrides,
  };
}

/** What the fake authenticator app shows right now, and the secret the fake server issues. */
export const VALID_TOTP_CODE = '246810';
export const ISSUED_SECRET = 'JBSWY3DPEHPK3PXP';
export const QR_CODE_DATA_URL = 'data:image/png;base64,iVBORw0KGgo=';
export const CURRENT_PASSWORD = 'old-password-1';
/** An address another account has: a new email of it is refused. */
export const TAKEN_EMAIL = 'taken@example.com';
export const RECOVERY_CODES = Array.from(
  { length: RECOVERY_CODE_COUNT },
  (_, index) => `RC${String(index + 1).padStart(2, '0')}-ABCD`,
);

export interface SecurityServerState {
  stats: Record<SecurityTimeRange, SecurityStats>;
  /** Newest first, as the server keeps them. */
  events: SecurityEvent[];
  sessions: SecuritySession[];
  loginHistory: LoginHistoryEntry[];
  settings: SecuritySettings;
  /** The secret of a set-up in progress. */
  pendingSecret: string | null;
  /** Recovery codes not used yet. */
  recoveryCodes: string[];
  incidents: { id: number; type: string; severity: string; description: string }[];
}

const invalid = (message: string) => fail(400, message, 'VALIDATION_ERROR');

/** The first message of a failed parse, as the server's validation answers it. */
function firstIssue(error: { issues: readonly { message: string }[] }): string {
  return error.issues[0]?.message ?? 'Invalid request.';
}

const queryOf = (request: StubRequest) => Object.fromEntries(request.query.entries());

/**
 * A little security API over in-memory records, answering as the contract says: stats per time
 * range, filtered and paged events, sessions and their revocation, login history, settings,
 * two-factor set-up (the secret it issued and one valid code), password change and incidents.
 * Every change answers with the message the server sends for it.
 */
export function securityServer(initial: Partial<SecurityServerState> = {}) {
  const state: SecurityServerState = {
    stats: {
      '24h': makeStats({ timeRange: '24h' }),
      '7d': makeStats({ timeRange: '7d' }),
      '30d': makeStats({ timeRange: '30d' }),
    },
    events: [],
    sessions: [],
    loginHistory: [],
    settings: makeSecuritySettings(),
    pendingSecret: null,
    recoveryCodes: [],
    incidents: [],
    ...initial,
  };

  const handlers: Record<string, StubHandler> = {
    'GET /api/v1/security/stats': (request) => {
      const parsed = securityStatsQuerySchema.safeParse(queryOf(request));
      if (!parsed.success) return invalid(firstIssue(parsed.error));
      return ok(state.stats[parsed.data.timeRange]);
    },
    'GET /api/v1/security/events': (request) => {
      const parsed = securityEventsQuerySchema.safeParse(queryOf(request));
      if (!parsed.success) return invalid(firstIssue(parsed.error));
      const { eventType, severity, startDate, endDate, limit, offset } = parsed.data;
      const matching = state.events.filter(
        (event) =>
          (!eventType || event.eventType === eventType) &&
          (!severity || event.severity === severity) &&
          (!startDate || Date.parse(event.timestamp) >= Date.parse(startDate)) &&
          (!endDate || Date.parse(event.timestamp) <= Date.parse(endDate)),
      );
      return ok({
        events: matching.slice(offset, offset + limit),
        total: matching.length,
        limit,
        offset,
      });
    },
    'GET /api/v1/security/sessions': () => ok({ sessions: state.sessions }),
    'POST /api/v1/security/sessions/revoke-others': () => {
      const revoked = state.sessions.filter((session) => !session.current).length;
      state.sessions = state.sessions.filter((session) => session.current);
      return okWithMessage({ revoked }, SECURITY_MESSAGES.otherSessionsRevoked(revoked));
    },
    'GET /api/v1/security/login-history': (request) => {
      const parsed = loginHistoryQuerySchema.safeParse(queryOf(request));
      if (!parsed.success) return invalid(firstIssue(parsed.error));
      return ok({ entries: state.loginHistory.slice(0, parsed.data.limit) });
    },
    'GET /api/v1/security/settings': () => ok(state.settings),
    'PUT /api/v1/security/settings': (request) => {
      const parsed = updateSecuritySettingsSchema.safeParse(request.body);
      if (!parsed.success) return invalid(firstIssue(parsed.error));
      state.settings = { ...state.settings, ...parsed.data };
      return okWithMessage(state.settings, SECURITY_MESSAGES.settingsSaved);
    },
    'POST /api/v1/security/2fa': (request) => {
      const parsed = twoFactorRequestSchema.safeParse(request.body);
      if (!parsed.success) return invalid(firstIssue(parsed.error));
      const { enabled, totpSecret, code } = parsed.data;
      if (enabled && code === undefined) {
        if (state.settings.twoFactorEnabled) {
          return fail(409, SECURITY_MESSAGES.twoFactorAlreadyEnabled, 'TWO_FACTOR_ENABLED');
        }
        state.pendingSecret = ISSUED_SECRET;
        return okWithMessage(
          {
            status: 'pending',
            totpSecret: ISSUED_SECRET,
            otpauthUrl: `otpauth://totp/Perch:grace?secret=${ISSUED_SECRET}&issuer=Perch`,
            qrCodeDataUrl: QR_CODE_DATA_URL,
          },
          SECURITY_MESSAGES.twoFactorSetupStarted,
        );
      }
      if (enabled) {
        if (totpSecret !== state.pendingSecret) {
          return invalid(SECURITY_MESSAGES.twoFactorSecretMismatch);
        }
        if (code !== VALID_TOTP_CODE) return invalid(SECURITY_MESSAGES.twoFactorCodeInvalid);
        state.pendingSecret = null;
        state.recoveryCodes = [...RECOVERY_CODES];
        state.settings = {
          ...state.settings,
          twoFactorEnabled: true,
          recoveryCodesRemaining: RECOVERY_CODES.length,
        };
        return okWithMessage(
          { status: 'enabled', recoveryCodes: RECOVERY_CODES },
          SECURITY_MESSAGES.twoFactorEnabled,
        );
      }
      if (!state.settings.twoFactorEnabled) {
        return fail(409, SECURITY_MESSAGES.twoFactorNotEnabled, 'TWO_FACTOR_NOT_ENABLED');
      }
      if (!code) return invalid(SECURITY_MESSAGES.twoFactorCodeRequired);
      if (code !== VALID_TOTP_CODE && !state.recoveryCodes.includes(code)) {
        return invalid(SECURITY_MESSAGES.twoFactorCodeInvalid);
      }
      state.recoveryCodes = [];
      state.settings = { ...state.settings, twoFactorEnabled: false, recoveryCodesRemaining: 0 };
      return okWithMessage({ status: 'disabled' }, SECURITY_MESSAGES.twoFactorDisabled);
    },
    'POST /api/v1/auth/change-password': (request) => {
      const parsed = changePasswordRequestSchema.safeParse(request.body);
      if (!parsed.success) return invalid(firstIssue(parsed.error));
      if (parsed.data.currentPassword !== CURRENT_PASSWORD) {
        return fail(401, SECURITY_MESSAGES.currentPasswordWrong, 'CURRENT_PASSWORD_WRONG');
      }
      state.sessions = state.sessions.filter((session) => session.current);
      return okWithMessage({ changed: true }, SECURITY_MESSAGES.passwordChanged);
    },
    'POST /api/v1/auth/change-email': (request) => {
      const parsed = changeEmailRequestSchema.safeParse(request.body);
      if (!parsed.success) return invalid(firstIssue(parsed.error));
      if (parsed.data.currentPassword !== CURRENT_PASSWORD) {
        return fail(400, SECURITY_MESSAGES.currentPasswordWrong, 'CURRENT_PASSWORD_WRONG');
      }
      if (parsed.data.email.toLowerCase() === TAKEN_EMAIL) {
        return fail(409, MESSAGES.registerEmailTaken, 'EMAIL_TAKEN');
      }
      return okWithMessage({ email: parsed.data.email }, SECURITY_MESSAGES.emailChanged);
    },
    'POST /api/v1/security/incidents': (request) => {
      const parsed = incidentRequestSchema.safeParse(request.body);
      if (!parsed.success) return invalid(firstIssue(parsed.error));
      const incident = { id: 40 + state.incidents.length + 1, ...parsed.data };
      state.incidents.push(incident);
      return okWithMessage({ id: incident.id }, SECURITY_MESSAGES.incidentReported, 201);
    },
  };

  for (const session of state.sessions) {
    handlers[`DELETE /api/v1/security/sessions/${session.id}`] = () => {
      if (!state.sessions.some((entry) => entry.id === session.id)) {
        return fail(404, SECURITY_MESSAGES.sessionNotFound, 'SESSION_NOT_FOUND');
      }
      state.sessions = state.sessions.filter((entry) => entry.id !== session.id);
      return okWithMessage({ revoked: true }, SECURITY_MESSAGES.sessionRevoked);
    };
  }

  return { handlers, state };
}

/** `count` events, newest first, one a minute back from 12:00 on 10 March 2025. */
export function manyEvents(count: number): SecurityEvent[] {
  return Array.from({ length: count }, (_, index) =>
    makeSecurityEvent({
      id: count - index,
      timestamp: new Date(Date.parse('2025-03-10T12:00:00.000Z') - index * MINUTE).toISOString(),
      description: `Event number ${count - index}.`,
    }),
  );
}

/** A typical account: this browser and two others, some history and events, 2FA off. */
export function sampleSecurityServer(overrides: Partial<SecurityServerState> = {}) {
  return securityServer({
    stats: {
      '24h': makeStats({
        timeRange: '24h',
        failedLogins: 2,
        successfulLogins: 4,
        activeSessions: 3,
        blockedRequests: 1,
      }),
      '7d': makeStats({
        timeRange: '7d',
        failedLogins: 7,
        successfulLogins: 19,
        activeSessions: 3,
        blockedRequests: 5,
        riskLevel: 'medium',
        riskReasons: ['7 failed sign-ins in the last 7 days.'],
      }),
      '30d': makeStats({
        timeRange: '30d',
        failedLogins: 23,
        successfulLogins: 61,
        activeSessions: 3,
        blockedRequests: 12,
        riskLevel: 'high',
        riskReasons: ['23 failed sign-ins in the last 30 days.'],
      }),
    },
    sessions: [
      makeSession({
        id: 's-current',
        device: 'Firefox on macOS',
        current: true,
        ip: '198.51.100.4',
      }),
      makeSession({ id: 's-phone', device: 'Safari on iOS', ip: '203.0.113.9' }),
      makeSession({ id: 's-office', device: 'Chrome on Windows', ip: '192.0.2.44' }),
    ],
    loginHistory: [
      makeLoginEntry({ id: 3, device: 'Firefox on macOS', ip: '198.51.100.4' }),
      makeLoginEntry({
        id: 2,
        success: false,
        device: 'Unknown device',
        ip: '192.0.2.200',
        timestamp: '2025-03-10T11:00:00.000Z',
      }),
      makeLoginEntry({ id: 1, timestamp: '2025-03-09T09:00:00.000Z' }),
    ],
    events: [
      makeSecurityEvent({
        id: 3,
        eventType: 'login_failed',
        severity: 'medium',
        description: 'Wrong password.',
        timestamp: '2025-03-10T11:00:00.000Z',
        ip: '192.0.2.200',
      }),
      makeSecurityEvent({
        id: 2,
        eventType: 'role_changed',
        severity: 'high',
        description: 'Role changed to admin.',
        timestamp: '2025-03-09T10:00:00.000Z',
        actor: 'ada',
      }),
      makeSecurityEvent({ id: 1, timestamp: '2025-03-01T08:00:00.000Z' }),
    ],
    ...overrides,
  });
}
