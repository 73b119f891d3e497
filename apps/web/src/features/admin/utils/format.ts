const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A local date, e.g. 'Mar 10, 2025'; empty for an unreadable value. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

function span(ms: number): string {
  if (ms < MINUTE) return `${Math.floor(ms / SECOND)} s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)} h`;
  return `${Math.floor(ms / DAY)} d`;
}

/** '12 s ago', '3 min ago', 'in 40 s', 'in 2 h'; 'just now' or 'now' within 5 s of `now`. */
export function formatRelative(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const delta = at - now;
  if (Math.abs(delta) < 5 * SECOND) return delta > 0 ? 'now' : 'just now';
  return delta > 0 ? `in ${span(delta)}` : `${span(-delta)} ago`;
}

/** A count with thousands separators. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** A backfill status as words: 'in_progress' reads 'in progress'. */
export function formatStatus(status: string): string {
  return status.replaceAll('_', ' ');
}
