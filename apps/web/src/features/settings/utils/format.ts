import { formatDateTime } from '@/lib/format';

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
