import type { SecurityEventType } from '@perch/shared';

/** An event type as words: 'login_failed' reads 'Login failed', 'csrf_refused' 'CSRF refused'. */
export function formatEventType(type: SecurityEventType | string): string {
  const words = type
    .split('_')
    .filter(Boolean)
    .map((word) => (word === 'csrf' ? 'CSRF' : word === 'ip' ? 'IP' : word));
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}

/** The start of a local calendar day ('2025-03-01') as an ISO instant; null when unreadable. */
export function startOfDayIso(day: string): string | null {
  const [year, month, date] = day.split('-').map(Number);
  if (!year || !month || !date) return null;
  return new Date(year, month - 1, date).toISOString();
}

/** The last millisecond of a local calendar day, so an end date includes that whole day. */
export function endOfDayIso(day: string): string | null {
  const [year, month, date] = day.split('-').map(Number);
  if (!year || !month || !date) return null;
  return new Date(new Date(year, month - 1, date + 1).getTime() - 1).toISOString();
}
