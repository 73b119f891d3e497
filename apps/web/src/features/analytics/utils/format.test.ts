import { describe, expect, it } from 'vitest';
import {
  MISSING,
  formatCompact,
  formatDay,
  formatDayInZone,
  formatDecimal,
  formatHour,
  formatInteger,
  formatPercent,
  formatPerHour,
  formatSignedCompact,
  formatSignedPercent,
  formatTimeLeft,
  languageName,
  plural,
  shortWeekday,
} from './format';

describe('number formats', () => {
  it('shortens counts: 950, 1.2K, 3.4M, 1.5B', () => {
    expect(formatCompact(0)).toBe('0');
    expect(formatCompact(950)).toBe('950');
    expect(formatCompact(1234)).toBe('1.2K');
    expect(formatCompact(56_789)).toBe('56.8K');
    expect(formatCompact(3_400_000)).toBe('3.4M');
    expect(formatCompact(1_500_000_000)).toBe('1.5B');
    expect(formatCompact(-1234)).toBe('-1.2K');
  });

  it("shows '—' for missing values everywhere", () => {
    for (const format of [
      formatCompact,
      formatInteger,
      formatDecimal,
      formatPercent,
      formatSignedPercent,
      formatSignedCompact,
      formatHour,
      formatPerHour,
    ]) {
      expect(format(null)).toBe(MISSING);
      expect(format(undefined)).toBe(MISSING);
      expect(format(Number.NaN)).toBe(MISSING);
    }
    expect(MISSING).toBe('—');
  });

  it('writes full counts with separators', () => {
    expect(formatInteger(1_234_567)).toBe('1,234,567');
    expect(formatInteger(12.6)).toBe('13');
  });

  it('gives averages one decimal, two below 1, compact from 1,000', () => {
    expect(formatDecimal(54.16)).toBe('54.2');
    expect(formatDecimal(2)).toBe('2');
    expect(formatDecimal(0.456)).toBe('0.46');
    expect(formatDecimal(1930.87)).toBe('1.9K');
  });

  it('reads rates that are already in percent: 3.4 -> 3.4%', () => {
    expect(formatPercent(3.4)).toBe('3.4%');
    expect(formatPercent(12.25)).toBe('12.3%');
    expect(formatPercent(0.034)).toBe('0.03%');
    expect(formatPercent(0)).toBe('0%');
    expect(formatPercent(100)).toBe('100%');
  });

  it('signs changes', () => {
    expect(formatSignedPercent(2.1)).toBe('+2.1%');
    expect(formatSignedPercent(-0.4)).toBe('-0.4%');
    expect(formatSignedPercent(0)).toBe('0%');
    expect(formatSignedCompact(1200)).toBe('+1.2K');
    expect(formatSignedCompact(-30)).toBe('-30');
  });

  it('formats hours, per-hour rates and plurals', () => {
    expect(formatHour(9)).toBe('09:00');
    expect(formatHour(23)).toBe('23:00');
    expect(formatPerHour(12.34)).toBe('12.3/h');
    expect(plural(1, 'post')).toBe('1 post');
    expect(plural(1200, 'post')).toBe('1,200 posts');
    expect(plural(0, 'reply', 'replies')).toBe('0 replies');
  });
});

describe('date and name formats', () => {
  it('shows API days (already in the chosen zone) as they are', () => {
    expect(formatDay('2025-03-04')).toBe('Mar 4');
    expect(formatDay('not a day')).toBe('not a day');
  });

  it('shows instants in the given zone', () => {
    expect(formatDayInZone('2025-03-04T02:00:00Z', 'UTC')).toBe('Mar 4');
    expect(formatDayInZone('2025-03-04T02:00:00Z', 'America/New_York')).toBe('Mar 3');
    expect(formatDayInZone('nope', 'UTC')).toBe(MISSING);
  });

  it('names weekdays and languages', () => {
    expect(shortWeekday('Wednesday')).toBe('Wed');
    expect(languageName('en')).toBe('English');
    expect(languageName('und')).toBe('Undetermined');
    expect(languageName('qme')).toBe('Media only');
  });
});

describe('formatTimeLeft', () => {
  const now = Date.parse('2025-03-10T12:00:00.000Z');
  const inSeconds = (seconds: number) => new Date(now + seconds * 1_000).toISOString();

  it('rounds the time left for people: seconds, minutes, hours, days', () => {
    expect(formatTimeLeft(inSeconds(2), now)).toBe('about 5 s left');
    expect(formatTimeLeft(inSeconds(18), now)).toBe('about 20 s left');
    expect(formatTimeLeft(inSeconds(20), now)).toBe('about 20 s left');
    expect(formatTimeLeft(inSeconds(70), now)).toBe('about 1 min left');
    expect(formatTimeLeft(inSeconds(14 * 60), now)).toBe('about 14 min left');
    expect(formatTimeLeft(inSeconds(59 * 60 + 50), now)).toBe('about 1 h left');
    expect(formatTimeLeft(inSeconds(5 * 3_600), now)).toBe('about 5 h left');
    expect(formatTimeLeft(inSeconds(3 * 86_400), now)).toBe('about 3 days left');
  });

  it('says nothing without an estimate, or once it has passed', () => {
    expect(formatTimeLeft(null, now)).toBeNull();
    expect(formatTimeLeft(undefined, now)).toBeNull();
    expect(formatTimeLeft('later', now)).toBeNull();
    expect(formatTimeLeft(inSeconds(0), now)).toBeNull();
    expect(formatTimeLeft(inSeconds(-30), now)).toBeNull();
  });
});
