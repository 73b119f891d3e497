import type { SecurityEventType } from '@perch/shared';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function span(ms: number): string {
  if (ms < MINUTE) return `${Math.floor(ms / SECOND)} s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)} h`;
  return `${Math.floor(ms / DAY)} d`;
}

/** '12 s ago', '3 min ago', '2 d ago'; 'just now' within 5 s of `now`; empty when unreadable. */
export function formatRelative(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const delta = at - now;
  if (Math.abs(delta) < 5 * SECOND) return 'just now';
  return delta > 0 ? `in ${span(delta)}` : `${span(-delta)} ago`;
}

/** A count with thousands separators. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

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
