import type { z } from 'zod';
import { countUnusedRecoveryCodes } from '../auth/two-factor.repository.js';
import {
  FAILED_LOGINS_MEDIUM,
  FAILED_LOGINS_THREAT,
  SECURITY_MESSAGES,
  riskLevelOf,
  type LoginHistoryEntry,
  type SecurityEvent,
  type SecuritySettings,
  type SecurityStats,
  type SecurityTimeRange,
  type incidentRequestSchema,
  type securityEventsQuerySchema,
  type securityExportSchema,
  type updateSecuritySettingsSchema,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { forbidden } from '../../lib/errors.js';
import type { UserRow } from '../users/users.repository.js';
import { deviceLabel } from './device-label.js';
import {
  countEventsOfTypes,
  countSecurityEvents,
  findSecurityEvents,
  recordSecurityEvent,
  type SecurityEventFilter,
  type SecurityEventWithActorRow,
} from '../auth/security-events.repository.js';
import { countLiveSessions } from './security-sessions.repository.js';
import {
  countLoginAttempts,
  findSecurityAccount,
  listLoginAttempts,
  saveSecuritySettings,
} from './security.repository.js';

/** Who made a request, for the events it causes. */
export interface Client {
  ip: string;
  userAgent: string | null;
}

/** How this request reached the server, for the risk level and the transport alert. */
export interface Transport {
  /** HTTPS, directly or through a trusted proxy (TRUST_PROXY). */
  secureTransport: boolean;
  /** Addressed to this machine itself (localhost), where plain HTTP is not exposed. */
  loopback: boolean;
}

/** Refused requests, counted as blocked in the stats. */
export const BLOCKED_REQUEST_EVENTS = ['csrf_refused', 'rate_limited'] as const;

const HOUR_MS = 60 * 60 * 1000;
const TIME_RANGE_MS: Record<SecurityTimeRange, number> = {
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
  '30d': 30 * 24 * HOUR_MS,
};

/** An export holds at most this many events, the newest (a download, not an archive). */
export const SECURITY_EXPORT_MAX_EVENTS = 10_000;

/**
 * Whose records a request reads: the caller's own, or with `userId` another account's, which
 * only a super admin may read.
 */
export function recordOwnerId(user: UserRow, userId: number | undefined): number {
  if (userId === undefined || userId === user.id) return user.id;
  if (!user.is_super_admin) throw forbidden(SECURITY_MESSAGES.otherUsersForbidden);
  return userId;
}

// ---------------------------------------------------------------- events

/** The API's event: `actor` names the admin who acted on the account, when somebody else did. */
export function toSecurityEvent(row: SecurityEventWithActorRow): SecurityEvent {
  const acted = row.actor_id !== null && row.actor_id !== row.user_id;
  return {
    id: row.id,
    eventType: row.event_type,
    severity: row.severity,
    description: row.description,
    timestamp: row.created_at,
    ip: row.ip,
    userAgent: row.user_agent,
    userId: row.user_id,
    actor: acted ? (row.actor_username ?? actorFromMetadata(row.metadata)) : null,
  };
}

/** The username the event was written with, for an admin account deleted since. */
function actorFromMetadata(metadata: string): string | null {
  const actor = parseObject(metadata).actor;
  return typeof actor === 'string' ? actor : null;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * HOUR_MS;
/** Stored times are four-digit years; bounds are kept in that range so they compare as text. */
const EARLIEST_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');
const boundIso = (ms: number) =>
  new Date(Math.min(Math.max(ms, EARLIEST_MS), LATEST_MS)).toISOString();

/**
 * The time bounds of an events query. A date-only `endDate` includes that whole day (UTC); a
 * full timestamp includes that instant.
 */
function timeBounds(
  startDate?: string,
  endDate?: string,
): Pick<SecurityEventFilter, 'from' | 'before'> {
  const bounds: Pick<SecurityEventFilter, 'from' | 'before'> = {};
  if (startDate !== undefined) bounds.from = boundIso(Date.parse(startDate));
  if (endDate !== undefined) {
    const end = Date.parse(endDate);
    bounds.before = boundIso(end + (DATE_ONLY.test(endDate.trim()) ? DAY_MS : 1));
  }
  return bounds;
}

/** One page of an account's security record, newest first, with the total that match. */
export async function listEvents(
  db: Db,
  ownerId: number,
  query: Omit<z.output<typeof securityEventsQuerySchema>, 'userId'>,
): Promise<{ events: SecurityEvent[]; total: number; limit: number; offset: number }> {
  const filter: SecurityEventFilter = {
    userId: ownerId,
    eventType: query.eventType,
    severity: query.severity,
    ...timeBounds(query.startDate, query.endDate),
  };
  const [rows, total] = await Promise.all([
    findSecurityEvents(db.db, filter, { limit: query.limit, offset: query.offset }),
    countSecurityEvents(db.db, filter),
  ]);
  return { events: rows.map(toSecurityEvent), total, limit: query.limit, offset: query.offset };
}

// ---------------------------------------------------------------- stats and risk

/** The risk level's reasons, in words (the rules of `riskLevelOf`). */
export function riskReasons(failedLogins: number, transport: Transport): string[] {
  const reasons: string[] = [];
  if (!transport.secureTransport) {
    reasons.push(
      transport.loopback
        ? SECURITY_MESSAGES.riskLocalHttp
        : SECURITY_MESSAGES.alertInsecureTransport,
    );
  }
  if (failedLogins > FAILED_LOGINS_THREAT) {
    reasons.push(SECURITY_MESSAGES.riskFailedLoginsThreat(failedLogins));
  } else if (failedLogins > FAILED_LOGINS_MEDIUM) {
    reasons.push(SECURITY_MESSAGES.riskFailedLoginsMedium(failedLogins));
  }
  return reasons.length > 0 ? reasons : [SECURITY_MESSAGES.riskNoneFound];
}

/** Sign-ins, live sessions and refused requests of one account over a period, and the risk. */
export async function securityStats(
  db: Db,
  ownerId: number,
  timeRange: SecurityTimeRange,
  transport: Transport,
  now = Date.now(),
): Promise<SecurityStats> {
  const since = new Date(now - TIME_RANGE_MS[timeRange]).toISOString();
  const [logins, activeSessions, blockedRequests] = await Promise.all([
    countLoginAttempts(db.db, ownerId, since),
    countLiveSessions(db.db, ownerId, new Date(now).toISOString()),
    countEventsOfTypes(db.db, ownerId, BLOCKED_REQUEST_EVENTS, since),
  ]);
  return {
    timeRange,
    failedLogins: logins.failed,
    successfulLogins: logins.succeeded,
    activeSessions,
    blockedRequests,
    riskLevel: riskLevelOf({ failedLogins: logins.failed, ...transport }),
    riskReasons: riskReasons(logins.failed, transport),
    secureTransport: transport.secureTransport,
  };
}

// ---------------------------------------------------------------- settings

type AlertSettings = Pick<SecuritySettings, 'alertOnNewDevice' | 'alertOnFailedLogins'>;

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The stored alert switches; each is on unless the user turned it off. */
export function parseAlertSettings(text: string | undefined): AlertSettings {
  const stored = parseObject(text ?? '{}');
  return {
    alertOnNewDevice: stored.alertOnNewDevice !== false,
    alertOnFailedLogins: stored.alertOnFailedLogins !== false,
  };
}

export async function getSecuritySettings(db: Db, userId: number): Promise<SecuritySettings> {
  const [account, recoveryCodesRemaining] = await Promise.all([
    findSecurityAccount(db.db, userId),
    countUnusedRecoveryCodes(db.db, userId),
  ]);
  return {
    twoFactorEnabled: (account?.totp_enabled_at ?? null) !== null,
    recoveryCodesRemaining,
    ...parseAlertSettings(account?.security_settings),
  };
}

const onOff = (value: boolean) => (value ? 'on' : 'off');

/** Changes the alert switches given, keeps the others, and records the change. */
export async function updateSecuritySettings(
  db: Db,
  userId: number,
  changes: z.output<typeof updateSecuritySettingsSchema>,
  client: Client,
): Promise<SecuritySettings> {
  const account = await findSecurityAccount(db.db, userId);
  const stored = parseObject(account?.security_settings ?? '{}');
  const alerts = { ...parseAlertSettings(account?.security_settings), ...definedOnly(changes) };
  await saveSecuritySettings(db.db, userId, JSON.stringify({ ...stored, ...alerts }));
  await recordSecurityEvent(db.db, {
    userId,
    type: 'security_settings_changed',
    severity: 'low',
    description: `Security alerts: new device ${onOff(alerts.alertOnNewDevice)}, repeated failed sign-ins ${onOff(alerts.alertOnFailedLogins)}`,
    ip: client.ip,
    userAgent: client.userAgent,
    metadata: alerts,
    at: new Date().toISOString(),
  });
  return getSecuritySettings(db, userId);
}

function definedOnly(changes: Partial<AlertSettings>): Partial<AlertSettings> {
  return Object.fromEntries(
    Object.entries(changes).filter(([, value]) => typeof value === 'boolean'),
  ) as Partial<AlertSettings>;
}

// ---------------------------------------------------------------- incidents and history

/** Records an incident a user reports; answers the event's id. */
export function reportIncident(
  db: Db,
  userId: number,
  incident: z.output<typeof incidentRequestSchema>,
  client: Client,
): Promise<number> {
  return recordSecurityEvent(db.db, {
    userId,
    type: 'incident_reported',
    severity: incident.severity,
    description: incident.description,
    ip: client.ip,
    userAgent: client.userAgent,
    metadata: { incidentType: incident.type },
    at: new Date().toISOString(),
  });
}

/** An account's sign-in attempts, newest first. */
export async function loginHistory(
  db: Db,
  ownerId: number,
  limit: number,
): Promise<LoginHistoryEntry[]> {
  const rows = await listLoginAttempts(db.db, ownerId, limit);
  return rows.map((row) => ({
    id: row.id,
    timestamp: row.created_at,
    success: Boolean(row.success),
    ip: row.ip,
    userAgent: row.user_agent,
    device: deviceLabel(row.user_agent),
  }));
}

// ---------------------------------------------------------------- export

export type SecurityExport = z.infer<typeof securityExportSchema>;

/** An account's security record for download, newest first. */
export async function exportEvents(
  db: Db,
  ownerId: number,
  now = new Date(),
): Promise<SecurityExport> {
  const rows = await findSecurityEvents(
    db.db,
    { userId: ownerId },
    { limit: SECURITY_EXPORT_MAX_EVENTS, offset: 0 },
  );
  return { exportedAt: now.toISOString(), userId: ownerId, events: rows.map(toSecurityEvent) };
}
