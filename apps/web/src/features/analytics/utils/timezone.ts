import { DEFAULT_TIMEZONE, isKnownTimeZone } from '@perch/shared';

/**
 * The browser's IANA time zone, sent with every analytics call so that days and hours are the
 * viewer's own; UTC when the browser does not say or names one the rules do not know.
 */
export function browserTimeZone(): string {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return zone && isKnownTimeZone(zone) ? zone : DEFAULT_TIMEZONE;
  } catch {
    return DEFAULT_TIMEZONE;
  }
}
