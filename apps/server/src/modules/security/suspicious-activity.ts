import {
  FAILED_LOGINS_THREAT,
  SECURITY_MESSAGES,
  SEVERITIES,
  SUSPICIOUS_DISTINCT_IPS,
  SUSPICIOUS_FAILED_LOGINS,
  SUSPICIOUS_WINDOW_MS,
  type SuspiciousActivity,
  type SuspiciousAlert,
} from '@perch/shared';
import type { Db, Executor } from '../../db/index.js';
import { deviceLabel } from './device-label.js';
import { listLiveSessions } from './security-sessions.repository.js';
import { publicSessionId } from './security-sessions.service.js';
import {
  findSecurityAccount,
  newestSuccessfulLogin,
  recentFailedLogins,
  successfulLoginsBefore,
} from './security.repository.js';
import { parseAlertSettings, type Transport } from './security.service.js';

/** How many earlier sign-ins from the same IP are compared with a new one. */
const NEW_DEVICE_LOOKBACK = 500;

/**
 * Repeated failed sign-ins: SUSPICIOUS_FAILED_LOGINS or more in the window. The id carries the
 * newest failure, so a dismissed alert comes back only when somebody fails again.
 */
async function repeatedFailuresAlert(
  db: Executor,
  userId: number,
  now: number,
): Promise<SuspiciousAlert | null> {
  const since = new Date(now - SUSPICIOUS_WINDOW_MS).toISOString();
  const { count, newest } = await recentFailedLogins(db, userId, since);
  if (count < SUSPICIOUS_FAILED_LOGINS || !newest) return null;
  return {
    id: `repeated_failed_logins-${newest.id}`,
    type: 'repeated_failed_logins',
    severity: count > FAILED_LOGINS_THREAT ? 'high' : 'medium',
    message: SECURITY_MESSAGES.alertRepeatedFailures(count),
    timestamp: newest.created_at,
  };
}

/**
 * A new device or IP: the newest successful sign-in, within the window, came from a device and
 * IP pair that no earlier successful sign-in came from. Devices are compared by their label
 * ("Chrome on Linux"), so a browser update is not a new device. The first sign-in an account
 * ever makes has nothing to compare with and raises nothing.
 */
async function newDeviceAlert(
  db: Executor,
  userId: number,
  now: number,
): Promise<SuspiciousAlert | null> {
  const newest = await newestSuccessfulLogin(db, userId);
  if (!newest || Date.parse(newest.created_at) < now - SUSPICIOUS_WINDOW_MS) return null;
  const [anyEarlier] = await successfulLoginsBefore(db, userId, newest, { limit: 1 });
  if (!anyEarlier) return null;
  const device = deviceLabel(newest.user_agent);
  const sameIp = await successfulLoginsBefore(db, userId, newest, {
    ip: newest.ip,
    limit: NEW_DEVICE_LOOKBACK,
  });
  if (sameIp.some((earlier) => deviceLabel(earlier.user_agent) === device)) return null;
  return {
    id: `new_device-${newest.id}`,
    type: 'new_device',
    severity: 'medium',
    message: SECURITY_MESSAGES.alertNewDevice(device, newest.ip),
    timestamp: newest.created_at,
  };
}

/**
 * Many IPs at once: live sessions from SUSPICIOUS_DISTINCT_IPS or more addresses. The id
 * carries the newest of those sessions, so a dismissal holds until another one starts.
 */
async function manyIpsAlert(
  db: Executor,
  userId: number,
  now: number,
): Promise<SuspiciousAlert | null> {
  const sessions = await listLiveSessions(db, userId, new Date(now).toISOString());
  const withIp = sessions.filter((session) => session.ip !== null);
  const ips = new Set(withIp.map((session) => session.ip));
  if (ips.size < SUSPICIOUS_DISTINCT_IPS) return null;
  const newest = withIp.reduce((a, b) => (b.created_at > a.created_at ? b : a));
  return {
    id: `many_ips-${publicSessionId(newest.id)}`,
    type: 'many_ips',
    severity: 'medium',
    message: SECURITY_MESSAGES.alertManyIps(ips.size),
    timestamp: newest.created_at,
  };
}

/** Plain HTTP from another machine: sign-ins and session cookies travel readable. */
function insecureTransportAlert(transport: Transport, now: number): SuspiciousAlert | null {
  if (transport.secureTransport || transport.loopback) return null;
  return {
    id: 'insecure_transport',
    type: 'insecure_transport',
    severity: 'critical',
    message: SECURITY_MESSAGES.alertInsecureTransport,
    timestamp: new Date(now).toISOString(),
  };
}

const severityRank = (alert: SuspiciousAlert) => SEVERITIES.indexOf(alert.severity);

/**
 * What looks suspicious on the signed-in user's account now, most severe first, then newest.
 * The repeated-failure and new-device alerts follow the user's alert settings.
 */
export async function suspiciousActivity(
  db: Db,
  userId: number,
  transport: Transport,
  now = Date.now(),
): Promise<SuspiciousActivity> {
  const settings = parseAlertSettings(
    (await findSecurityAccount(db.db, userId))?.security_settings,
  );
  const found = await Promise.all([
    insecureTransportAlert(transport, now),
    settings.alertOnFailedLogins ? repeatedFailuresAlert(db.db, userId, now) : null,
    settings.alertOnNewDevice ? newDeviceAlert(db.db, userId, now) : null,
    manyIpsAlert(db.db, userId, now),
  ]);
  const alerts = found
    .filter((alert): alert is SuspiciousAlert => alert !== null)
    .sort((a, b) => severityRank(a) - severityRank(b) || b.timestamp.localeCompare(a.timestamp));
  return { hasAlerts: alerts.length > 0, alerts };
}
