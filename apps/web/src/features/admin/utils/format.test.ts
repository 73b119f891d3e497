import { describe, expect, it } from 'vitest';
import { formatStatus } from './format';

describe('admin formatting', () => {
  it('writes backfill statuses as words', () => {
    expect(formatStatus('in_progress')).toBe('in progress');
    expect(formatStatus('completed')).toBe('completed');
  });
});
