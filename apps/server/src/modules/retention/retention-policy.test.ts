import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.js';
import { retentionCutoffs, retentionPolicy } from './retention-policy.js';

describe('retention policy', () => {
  it('defaults to 90 days of security log and sign-ins, 30 of deliveries, 70 of billed reads', () => {
    expect(retentionPolicy(loadConfig({}))).toEqual({
      security_events: 90,
      login_attempts: 90,
      sessions: 90,
      notification_outbox: 30,
      x_billed_reads: 70,
    });
  });

  it.each([
    ['RETENTION_DELIVERY_LOG_DAYS', '', 30],
    ['RETENTION_DELIVERY_LOG_DAYS', '0', 0],
    ['RETENTION_SECURITY_EVENTS_DAYS', '365', 365],
    ['RETENTION_X_BILLED_READS_DAYS', '400', 400],
  ])('reads %s=%j as %d days', (name, value, days) => {
    expect(loadConfig({ [name]: value })[name as 'RETENTION_DELIVERY_LOG_DAYS']).toBe(days);
  });

  it.each([
    ['RETENTION_LOGIN_HISTORY_DAYS', '-1'],
    ['RETENTION_LOGIN_HISTORY_DAYS', '1.5'],
    ['RETENTION_SECURITY_EVENTS_DAYS', 'forever'],
    // The usage card shows this month and the last.
    ['RETENTION_X_BILLED_READS_DAYS', '30'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });

  it('cuts each table at its own age and skips the ones kept for ever', () => {
    const now = new Date('2026-06-15T12:00:00.000Z');
    const policy = retentionPolicy(
      loadConfig({ RETENTION_SECURITY_EVENTS_DAYS: '0', RETENTION_DELIVERY_LOG_DAYS: '1' }),
    );
    expect(retentionCutoffs(policy, now)).toEqual([
      { table: 'login_attempts', before: '2026-03-17T12:00:00.000Z' },
      { table: 'sessions', before: '2026-03-17T12:00:00.000Z' },
      { table: 'notification_outbox', before: '2026-06-14T12:00:00.000Z' },
      { table: 'x_billed_reads', before: '2026-04-06T12:00:00.000Z' },
    ]);
  });
});
