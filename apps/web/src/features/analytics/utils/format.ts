/** What a missing value reads as everywhere on the dashboard. */
export const MISSING = '—';

type Numeric = number | null | undefined;

const compactFormatter = new Intl.NumberFormat('en-US', {
  notation: 'compact',
  maximumFractionDigits: 1,
});
const integerFormatter = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const dayFormatter = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const dateTimeFormatter = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

function isNumber(value: Numeric): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Counts for people: 950, 1.2K, 3.4M (null -> '—'). */
export function formatCompact(value: Numeric): string {
  return isNumber(value) ? compactFormatter.format(value) : MISSING;
}

/** A count in full with thousands separators: 12,345 (null -> '—'). */
export function formatInteger(value: Numeric): string {
  return isNumber(value) ? integerFormatter.format(value) : MISSING;
}

/**
 * An average or ratio: one decimal under 1,000 (12.3), two under 1 (0.45), compact above
 * (1.2K). Null -> '—'.
 */
export function formatDecimal(value: Numeric): string {
  if (!isNumber(value)) return MISSING;
  const size = Math.abs(value);
  if (size >= 1_000) return compactFormatter.format(value);
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: size < 1 ? 2 : 1 }).format(value);
}

/**
 * A value that is already in percent (analytics.md rates are x 100): 3.4 -> '3.4%',
 * 0.034 -> '0.03%'. Null -> '—'.
 */
export function formatPercent(value: Numeric): string {
  if (!isNumber(value)) return MISSING;
  const digits = Math.abs(value) < 1 ? 2 : 1;
  return new Intl.NumberFormat('en-US', {
    style: 'percent',
    maximumFractionDigits: digits,
  }).format(value / 100);
}

/** A change in percent with its sign: +2.1%, -0.4%, 0% (null -> '—'). */
export function formatSignedPercent(value: Numeric): string {
  if (!isNumber(value)) return MISSING;
  const text = formatPercent(value);
  return value > 0 ? `+${text}` : text;
}

/** A count change with its sign: +1.2K, -30, 0 (null -> '—'). */
export function formatSignedCompact(value: Numeric): string {
  if (!isNumber(value)) return MISSING;
  const text = formatCompact(value);
  return value > 0 ? `+${text}` : text;
}

/** An hour of the day on a 24-hour clock: 9 -> '09:00' (null -> '—'). */
export function formatHour(hour: Numeric): string {
  if (!isNumber(hour)) return MISSING;
  return `${String(hour).padStart(2, '0')}:00`;
}

/** Engagement per hour: '12.3/h' (null -> '—'). */
export function formatPerHour(value: Numeric): string {
  return isNumber(value) ? `${formatDecimal(value)}/h` : MISSING;
}

/** A calendar day of the API (YYYY-MM-DD, already in the requested zone): 'Mar 4'. */
export function formatDay(date: string): string {
  const time = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(time) ? date : dayFormatter.format(time);
}

/** An instant in the browser's zone: 'Mar 4, 2025, 02:15 PM' (invalid -> '—'). */
export function formatDateTime(iso: string): string {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? MISSING : dateTimeFormatter.format(time);
}

/**
 * Roughly how long until an instant: 'about 20 s left', 'about 3 min left', 'about 2 h left',
 * 'about 3 days left'. Null without a valid instant, or once it has passed (an estimate that
 * ran out says nothing).
 */
export function formatTimeLeft(iso: string | null | undefined, now = Date.now()): string | null {
  if (!iso) return null;
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return null;
  const seconds = (time - now) / 1_000;
  if (seconds <= 0) return null;
  if (seconds < 55) return `about ${Math.max(5, Math.ceil(seconds / 5) * 5)} s left`;
  if (seconds < 3_570) return `about ${Math.max(1, Math.round(seconds / 60))} min left`;
  const hours = Math.round(seconds / 3_600);
  if (hours < 48) return `about ${hours} h left`;
  return `about ${Math.round(hours / 24)} days left`;
}

/** English singular or plural: '1 post', '3 posts'. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatInteger(count)} ${count === 1 ? singular : pluralForm}`;
}

/** The short English name of a weekday: 'Monday' -> 'Mon'. */
export function shortWeekday(day: string): string {
  return day.slice(0, 3);
}

const SPECIAL_LANGUAGES: Record<string, string> = {
  und: 'Undetermined',
  zxx: 'No text',
  qme: 'Media only',
  qht: 'Hashtags only',
  qam: 'Mentions only',
  qst: 'Very short text',
  art: 'Artificial',
};

let languageNames: Intl.DisplayNames | null | undefined;

/** A language code as a name: 'en' -> 'English'; X's special codes get their meaning. */
export function languageName(code: string): string {
  const special = SPECIAL_LANGUAGES[code.toLowerCase()];
  if (special) return special;
  try {
    languageNames ??= new Intl.DisplayNames(['en'], { type: 'language' });
    return languageNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** An instant as a short date in a time zone: 'Mar 4' (invalid -> '—'). */
export function formatDayInZone(iso: string, timeZone: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return MISSING;
  try {
    return new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone }).format(
      time,
    );
  } catch {
    return dayFormatter.format(time);
  }
}
