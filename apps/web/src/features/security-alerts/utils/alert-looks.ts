import type { Severity, SuspiciousAlert } from '@perch/shared';

/** Route of the Security Dashboard, where every alert leads. */
export const SECURITY_PAGE_PATH = '/security';

/** Colours and words of a severity, as on the Security Dashboard. */
export const SEVERITY_LOOK: Record<Severity, { label: string; color: string }> = {
  critical: { label: 'Critical', color: 'red' },
  high: { label: 'High', color: 'orange' },
  medium: { label: 'Medium', color: 'yellow' },
  low: { label: 'Low', color: 'green' },
};

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/** What each kind of alert is about, as a title. */
export const ALERT_TITLES: Record<SuspiciousAlert['type'], string> = {
  repeated_failed_logins: 'Repeated failed sign-ins',
  new_device: 'Sign-in from a new device',
  many_ips: 'Signed in from many places',
  insecure_transport: 'Unencrypted connection',
};

/** Most severe first, then newest first. */
export function byUrgency(a: SuspiciousAlert, b: SuspiciousAlert): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    (Date.parse(b.timestamp) || 0) - (Date.parse(a.timestamp) || 0)
  );
}

/** The most severe level among `alerts` (which must not be empty). */
export function topSeverity(alerts: readonly SuspiciousAlert[]): Severity {
  return [...alerts].sort(byUrgency)[0]?.severity ?? 'low';
}

/** '1 security alert', '3 security alerts'. */
export function alertCountLabel(count: number): string {
  return count === 1 ? '1 security alert' : `${count} security alerts`;
}
