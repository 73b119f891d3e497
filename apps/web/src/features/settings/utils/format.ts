import { formatDateTime } from '@/lib/format-date-time';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** 'just now', '5 min ago', '3 h ago', then the date and time (the log's time column). */
export function formatWhen(iso: string, now: number = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const age = now - at;
  if (age < MINUTE && age > -MINUTE) return 'just now';
  if (age > 0 && age < HOUR) return `${Math.floor(age / MINUTE)} min ago`;
  if (age > 0 && age < DAY) return `${Math.floor(age / HOUR)} h ago`;
  return formatDateTime(iso);
}

/** The local time of day, e.g. '12:04:30 PM'. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return date.toLocaleTimeString('en-US', {
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
  });
}
