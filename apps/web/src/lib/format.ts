/** `iso` as `format` writes it, or empty when `iso` is no readable date. */
function formatReadable(iso: string, format: (date: Date) => string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : format(date);
}

/** A local date and time, e.g. 'Mar 10, 2025, 12:04 PM'; empty for an unreadable value. */
export function formatDateTime(iso: string): string {
  return formatReadable(iso, (date) =>
    date.toLocaleString('en-US', {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
    }),
  );
}

/** A local date, e.g. 'Mar 10, 2025'; empty for an unreadable value. */
export function formatDate(iso: string): string {
  return formatReadable(iso, (date) =>
    date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' }),
  );
}

/** The local time of day, e.g. '12:04:30 PM'; empty for an unreadable value. */
export function formatTime(iso: string): string {
  return formatReadable(iso, (date) =>
    date.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', second: '2-digit' }),
  );
}

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

/**
 * '12 s ago', '3 min ago', '2 d ago', 'in 40 s', 'in 2 h'; 'just now' (or 'now' ahead of it)
 * within 5 s of `now`; empty for an unreadable value.
 */
export function formatRelative(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const delta = at - now;
  if (Math.abs(delta) < 5 * SECOND) return delta > 0 ? 'now' : 'just now';
  return delta > 0 ? `in ${span(delta)}` : `${span(-delta)} ago`;
}

/** A count with thousands separators, e.g. '12,400'. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}
