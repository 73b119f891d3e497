import { describe, expect, it } from 'vitest';
import { formatCount, formatDate, formatDateTime, formatRelative, formatTime } from './format';

const NOW = Date.parse('2025-03-10T12:00:00.000Z');

describe('formatting', () => {
  it('says how long ago or how soon', () => {
    expect(formatRelative('2025-03-10T11:59:58.000Z', NOW)).toBe('just now');
    expect(formatRelative('2025-03-10T12:00:02.000Z', NOW)).toBe('now');
    expect(formatRelative('2025-03-10T11:59:15.000Z', NOW)).toBe('45 s ago');
    expect(formatRelative('2025-03-10T12:00:40.000Z', NOW)).toBe('in 40 s');
    expect(formatRelative('2025-03-10T11:57:00.000Z', NOW)).toBe('3 min ago');
    expect(formatRelative('2025-03-10T14:30:00.000Z', NOW)).toBe('in 2 h');
    expect(formatRelative('2025-03-07T12:00:00.000Z', NOW)).toBe('3 d ago');
    expect(formatRelative('not a date', NOW)).toBe('');
  });

  it('formats dates, times and counts, and leaves an unreadable value empty', () => {
    expect(formatDate('2025-03-01T12:00:00.000Z')).toBe('Mar 1, 2025');
    expect(formatDate('nope')).toBe('');
    const local = new Date(2025, 2, 10, 12, 4, 30).toISOString();
    expect(formatDateTime(local)).toBe('Mar 10, 2025, 12:04 PM');
    expect(formatTime(local)).toBe('12:04:30 PM');
    expect(formatDateTime('nope')).toBe('');
    expect(formatTime('nope')).toBe('');
    expect(formatCount(1234567)).toBe('1,234,567');
  });
});
