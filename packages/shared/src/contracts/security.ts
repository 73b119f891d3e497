import { z } from 'zod';
import { MESSAGES } from '../messages.js';
import { emailSchema } from './auth.js';

/**
 * The security area: events, stats, sessions, login history, suspicious activity, two-factor
 * sign-in, settings, incidents and export (docs/spec-notes.md,
 * Security and Error texts).
 */

export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const RISK_LEVELS = SEVERITIES;
export type RiskLevel = Severity;

export const SECURITY_TIME_RANGES = ['24h', '7d', '30d'] as const;
export type SecurityTimeRange = (typeof SECURITY_TIME_RANGES)[number];
export const DEFAULT_SECURITY_TIME_RANGE: SecurityTimeRange = '24h';

/** Failed sign-ins above 10 are a threat (high), above 5 a medium risk. */
export const FAILED_LOGINS_THREAT = 10;
export const FAILED_LOGINS_MEDIUM = 5;
/** The security panel and alerts refresh every 60 s. */
export const SECURITY_REFRESH_MS = 60_000;
/** Login history default page. */
export const LOGIN_HISTORY_DEFAULT_LIMIT = 20;
export const SECURITY_EVENTS_DEFAULT_LIMIT = 50;
export const SECURITY_EVENTS_MAX_LIMIT = 200;
/** Suspicious activity: this many failed sign-ins within the window raise an alert. */
export const SUSPICIOUS_FAILED_LOGINS = 5;
export const SUSPICIOUS_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Suspicious activity: this many distinct IPs with live sessions at once raise an alert. */
export const SUSPICIOUS_DISTINCT_IPS = 3;

/** Two-factor sign-in (RFC 6238 TOTP, 30 s steps, 6 digits, SHA-1: what authenticator apps do). */
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
/** The second sign-in step must follow the password within this long. */
export const TWO_FACTOR_LOGIN_TTL_MS = 5 * 60 * 1000;
/** Cookie carrying the pending second step between the two sign-in calls. */
export const TWO_FACTOR_COOKIE = 'perch_2fa';

/** Event types the server records. */
export const SECURITY_EVENT_TYPES = [
  'login_success',
  'login_failed',
  'login_locked',
  'logout',
  'registration',
  'password_changed',
  'email_changed',
  'session_revoked',
  'sessions_revoked_others',
  'two_factor_enabled',
  'two_factor_disabled',
  'two_factor_failed',
  'recovery_code_used',
  'role_changed',
  'admin_handle_removed_from_user',
  'admin_handle_deleted',
  'admin_handle_data_cleared',
  'collector_stopped',
  'collector_started',
  'challenge_code_submitted',
  'invitation_created',
  'invitation_revoked',
  'csrf_refused',
  'rate_limited',
  'incident_reported',
  'security_settings_changed',
] as const;
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/**
 * Every human text of the security area (ours unless marked spec). Server and web show the
 * same words.
 */
export const SECURITY_MESSAGES = {
  loadEventsFailed: 'Failed to load security events', // spec
  sessionRevoked: 'Session revoked.',
  sessionNotFound: 'Session not found.',
  otherSessionsRevoked: (count: number) =>
    count === 1 ? 'Signed out 1 other session.' : `Signed out ${count} other sessions.`,
  twoFactorSetupStarted: 'Scan the QR code with your authenticator app, then enter the code.',
  twoFactorEnabled: 'Two-factor sign-in is on. Keep your recovery codes somewhere safe.',
  twoFactorDisabled: 'Two-factor sign-in is off.',
  twoFactorAlreadyEnabled: 'Two-factor sign-in is already on.',
  twoFactorNotEnabled: 'Two-factor sign-in is not on.',
  twoFactorCodeRequired: 'Enter the 6-digit code from your authenticator app.',
  twoFactorCodeInvalid: 'That code is not valid. Check your authenticator app and try again.',
  twoFactorSecretMismatch: 'Start the set-up again: this secret was not issued to you.',
  twoFactorRequired: 'Enter the code from your authenticator app to finish signing in.',
  twoFactorLoginExpired: 'Your sign-in took too long. Please enter your password again.',
  passwordChanged: 'Password changed. Other sessions were signed out.',
  currentPasswordWrong: 'Your current password is not correct.',
  emailChanged: 'Email address changed.',
  emailUnchanged: 'This is already your email address.',
  tooManyAttempts: 'Too many wrong attempts. Please wait a few minutes and try again.',
  settingsSaved: 'Security settings saved.',
  incidentReported: 'Thank you. The incident was recorded.',
  incidentDescriptionRequired: 'Describe what happened (up to 2,000 characters).',
  invalidTimeRange: 'timeRange must be 24h, 7d or 30d.',
  invalidFormat: 'format must be json or csv.',
  invalidSeverity: 'severity must be critical, high, medium or low.',
  invalidDate: 'Dates must be ISO-8601 (e.g. 2026-11-01 or 2026-11-01T12:00:00Z).',
  invalidLimit: `limit must be a whole number from 1 to ${SECURITY_EVENTS_MAX_LIMIT}.`,
  invalidOffset: 'offset must be a whole number, 0 or more.',
  otherUsersForbidden: 'Only a super admin can read the security records of other users.',
  alertRepeatedFailures: (count: number) =>
    `${count} failed sign-in attempts on your account in the last 24 hours.`,
  alertNewDevice: (device: string, ip: string) => `New sign-in from ${device} at ${ip}.`,
  alertManyIps: (count: number) => `Your account is signed in from ${count} IP addresses at once.`,
  alertInsecureTransport: 'This server is reached over plain HTTP: sign-ins can be intercepted.',
  riskFailedLoginsThreat: (count: number) =>
    `${count} failed sign-in attempts in this period: more than ${FAILED_LOGINS_THREAT} is a threat.`,
  riskFailedLoginsMedium: (count: number) =>
    `${count} failed sign-in attempts in this period: more than ${FAILED_LOGINS_MEDIUM} is a medium risk.`,
  riskLocalHttp: 'Plain HTTP, but only on this machine: fine for a local install.',
  riskNoneFound: 'No risk found: few failed sign-ins and a secure connection.',
} as const;

// ---------------------------------------------------------------- shared pieces

const isoDate = z
  .string({ error: SECURITY_MESSAGES.invalidDate })
  .max(40, SECURITY_MESSAGES.invalidDate)
  .refine((value) => !Number.isNaN(Date.parse(value)), SECURITY_MESSAGES.invalidDate);

/** A super admin may read another user's records with `userId`; others get 403. */
const userIdFilter = z.coerce
  .number({ error: 'userId must be a user id.' })
  .int('userId must be a user id.')
  .positive('userId must be a user id.')
  .max(2_147_483_647, 'userId must be a user id.')
  .optional();

export const securityEventSchema = z.object({
  id: z.number().int(),
  eventType: z.string(),
  severity: z.enum(SEVERITIES),
  description: z.string(),
  timestamp: z.string(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  userId: z.number().int().nullable(),
  /** The acting user when somebody else than `userId` did it (an admin). */
  actor: z.string().nullable(),
});
export type SecurityEvent = z.infer<typeof securityEventSchema>;

// ---------------------------------------------------------------- events

/** The `limit` of the security lists' queries: 1 to the most, `fallback` when left out. */
const limitParam = (fallback: number) =>
  z.coerce
    .number({ error: SECURITY_MESSAGES.invalidLimit })
    .int(SECURITY_MESSAGES.invalidLimit)
    .min(1, SECURITY_MESSAGES.invalidLimit)
    .max(SECURITY_EVENTS_MAX_LIMIT, SECURITY_MESSAGES.invalidLimit)
    .default(fallback);

export const securityEventsQuerySchema = z.object({
  eventType: z.string().max(64).optional(),
  severity: z.enum(SEVERITIES, { error: SECURITY_MESSAGES.invalidSeverity }).optional(),
  startDate: isoDate.optional(),
  endDate: isoDate.optional(),
  limit: limitParam(SECURITY_EVENTS_DEFAULT_LIMIT),
  offset: z.coerce
    .number({ error: SECURITY_MESSAGES.invalidOffset })
    .int(SECURITY_MESSAGES.invalidOffset)
    .min(0, SECURITY_MESSAGES.invalidOffset)
    .max(1_000_000_000, SECURITY_MESSAGES.invalidOffset)
    .default(0),
  userId: userIdFilter,
});
export type SecurityEventsQuery = z.input<typeof securityEventsQuerySchema>;

export const securityEventsResponseSchema = z.object({
  events: z.array(securityEventSchema),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

// ---------------------------------------------------------------- stats

export const securityStatsQuerySchema = z.object({
  timeRange: z
    .enum(SECURITY_TIME_RANGES, { error: SECURITY_MESSAGES.invalidTimeRange })
    .default(DEFAULT_SECURITY_TIME_RANGE),
  userId: userIdFilter,
});

export const securityStatsSchema = z.object({
  timeRange: z.enum(SECURITY_TIME_RANGES),
  failedLogins: z.number().int(),
  successfulLogins: z.number().int(),
  activeSessions: z.number().int(),
  /** Requests refused: CSRF refusals and rate-limit hits. */
  blockedRequests: z.number().int(),
  riskLevel: z.enum(RISK_LEVELS),
  /** Why the risk level is what it is, in words. */
  riskReasons: z.array(z.string()),
  /** Whether this request reached the server over HTTPS (directly or via a trusted proxy). */
  secureTransport: z.boolean(),
});
export type SecurityStats = z.infer<typeof securityStatsSchema>;

/**
 * The risk rules (docs/spec-notes.md, Security): plain HTTP is critical (loopback excepted: a
 * local install), failed sign-ins above 10 are a threat (high), above 5 medium; else low.
 */
export function riskLevelOf(input: {
  failedLogins: number;
  secureTransport: boolean;
  loopback: boolean;
}): RiskLevel {
  if (!input.secureTransport && !input.loopback) return 'critical';
  if (input.failedLogins > FAILED_LOGINS_THREAT) return 'high';
  if (input.failedLogins > FAILED_LOGINS_MEDIUM) return 'medium';
  return 'low';
}

// ---------------------------------------------------------------- sessions

export const securitySessionSchema = z.object({
  /** Opaque id for revoking (never the cookie value). */
  id: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  expiresAt: z.string(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  /** e.g. "Chrome on Linux". */
  device: z.string(),
  rememberMe: z.boolean(),
  current: z.boolean(),
});
export type SecuritySession = z.infer<typeof securitySessionSchema>;
export const securitySessionsResponseSchema = z.object({
  sessions: z.array(securitySessionSchema),
});
export const currentSessionResponseSchema = z.object({ session: securitySessionSchema });
export const sessionIdParamSchema = z.object({
  id: z
    .string()
    .min(1, SECURITY_MESSAGES.sessionNotFound)
    .max(128, SECURITY_MESSAGES.sessionNotFound),
});
export const revokeOthersResponseSchema = z.object({ revoked: z.number().int() });

// ---------------------------------------------------------------- two-factor

/**
 * POST /security/2fa (enabled, totpSecret; plus code):
 * - `{enabled: true}` starts the set-up: answers a new secret, its otpauth URL and a QR code;
 * - `{enabled: true, totpSecret, code}` finishes it once the code checks out: answers the
 *   recovery codes, shown once;
 * - `{enabled: false, code}` turns it off with a current code or a recovery code.
 */
export const twoFactorRequestSchema = z.object({
  enabled: z.boolean({ error: 'enabled must be true or false.' }),
  totpSecret: z.string().max(128).optional(),
  code: z.string().max(64).optional(),
});
export type TwoFactorRequest = z.input<typeof twoFactorRequestSchema>;

export const twoFactorResponseSchema = z.object({
  /** pending: set-up started; enabled: on (with the recovery codes); disabled: off. */
  status: z.enum(['pending', 'enabled', 'disabled']),
  totpSecret: z.string().optional(),
  otpauthUrl: z.string().optional(),
  /** data: URL of a PNG QR code of `otpauthUrl`. */
  qrCodeDataUrl: z.string().optional(),
  recoveryCodes: z.array(z.string()).optional(),
});
export type TwoFactorResponse = z.infer<typeof twoFactorResponseSchema>;

/** POST /auth/login/2fa: a TOTP code or a recovery code. */
export const loginTwoFactorRequestSchema = z.object({
  code: z
    .string({ error: SECURITY_MESSAGES.twoFactorCodeRequired })
    .trim()
    .min(1, SECURITY_MESSAGES.twoFactorCodeRequired)
    .max(64, SECURITY_MESSAGES.twoFactorCodeInvalid),
});

// ---------------------------------------------------------------- settings

export const securitySettingsSchema = z.object({
  twoFactorEnabled: z.boolean(),
  recoveryCodesRemaining: z.number().int(),
  /** Raise an alert for a sign-in from a device or IP not seen before. */
  alertOnNewDevice: z.boolean(),
  /** Raise an alert after repeated failed sign-ins. */
  alertOnFailedLogins: z.boolean(),
});
export type SecuritySettings = z.infer<typeof securitySettingsSchema>;
export const updateSecuritySettingsSchema = z
  .object({
    alertOnNewDevice: z.boolean(),
    alertOnFailedLogins: z.boolean(),
  })
  .partial();

/** The proof that account details changes ask for, whatever else they carry. */
const currentPasswordSchema = z.string().min(1, SECURITY_MESSAGES.currentPasswordWrong).max(1024);

/** The new password's rules are checked by the service (registration's, with the common list). */
export const changePasswordRequestSchema = z
  .object({
    currentPassword: currentPasswordSchema,
    newPassword: z.string().max(1024),
    /** Optional: when sent it must repeat the new password, as at registration. */
    confirmPassword: z.string().max(1024).optional(),
  })
  .refine(
    (body) => body.confirmPassword === undefined || body.confirmPassword === body.newPassword,
    { message: MESSAGES.passwordsDoNotMatch, path: ['confirmPassword'] },
  );
/** POST /auth/change-password: how many other sessions were signed out. */
export const changePasswordResponseSchema = z.object({ revokedSessions: z.number().int() });

/** POST /auth/change-email: the new address, with registration's wording for a bad one. */
export const changeEmailRequestSchema = z.object({
  currentPassword: currentPasswordSchema,
  email: emailSchema,
});
export type ChangeEmailRequest = z.input<typeof changeEmailRequestSchema>;
/** The address the account now has (trimmed as stored). */
export const changeEmailResponseSchema = z.object({ email: z.string() });

// ---------------------------------------------------------------- incidents, history, alerts

export const incidentRequestSchema = z.object({
  type: z.string().trim().min(1).max(64).default('user_report'),
  description: z
    .string({ error: SECURITY_MESSAGES.incidentDescriptionRequired })
    .trim()
    .min(1, SECURITY_MESSAGES.incidentDescriptionRequired)
    .max(2000, SECURITY_MESSAGES.incidentDescriptionRequired),
  severity: z.enum(SEVERITIES, { error: SECURITY_MESSAGES.invalidSeverity }).default('medium'),
});
export const incidentResponseSchema = z.object({ id: z.number().int() });

export const loginHistoryQuerySchema = z.object({
  limit: limitParam(LOGIN_HISTORY_DEFAULT_LIMIT),
  userId: userIdFilter,
});
export const loginHistoryEntrySchema = z.object({
  id: z.number().int(),
  timestamp: z.string(),
  success: z.boolean(),
  ip: z.string(),
  userAgent: z.string().nullable(),
  device: z.string(),
});
export type LoginHistoryEntry = z.infer<typeof loginHistoryEntrySchema>;
export const loginHistoryResponseSchema = z.object({
  entries: z.array(loginHistoryEntrySchema),
});

export const SUSPICIOUS_ALERT_TYPES = [
  'repeated_failed_logins',
  'new_device',
  'many_ips',
  'insecure_transport',
] as const;
export const suspiciousAlertSchema = z.object({
  /** Stable per alert, so a dismissal sticks. */
  id: z.string(),
  type: z.enum(SUSPICIOUS_ALERT_TYPES),
  severity: z.enum(SEVERITIES),
  message: z.string(),
  timestamp: z.string(),
});
export type SuspiciousAlert = z.infer<typeof suspiciousAlertSchema>;
export const suspiciousActivityResponseSchema = z.object({
  hasAlerts: z.boolean(),
  alerts: z.array(suspiciousAlertSchema),
});
export type SuspiciousActivity = z.infer<typeof suspiciousActivityResponseSchema>;

// ---------------------------------------------------------------- export

export const securityExportQuerySchema = z.object({
  format: z.enum(['json', 'csv'], { error: SECURITY_MESSAGES.invalidFormat }).default('json'),
  userId: userIdFilter,
});
/** Columns of the CSV export, in order: the fields of a security event. */
export const SECURITY_EXPORT_COLUMNS = [
  'id',
  'timestamp',
  'eventType',
  'severity',
  'description',
  'ip',
  'userAgent',
  'userId',
  'actor',
] as const;
/** The JSON export (a download): the same events the CSV holds, newest first. */
export const securityExportSchema = z.object({
  exportedAt: z.string(),
  userId: z.number().int().nullable(),
  events: z.array(securityEventSchema),
});
