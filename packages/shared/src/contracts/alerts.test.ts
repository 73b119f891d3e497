import { describe, expect, it } from 'vitest';
import { ALERT_RULES_PER_USER } from '../constants.js';
import {
  ALERT_MESSAGES,
  alertKindSchema,
  alertRuleSchema,
  createAlertRuleRequestSchema,
  updateAlertRuleRequestSchema,
} from './alerts.js';
import { FILTER_MESSAGES } from './filters.js';

const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues.map((issue) => issue.message) ?? [];
const kindMessages = (kind: unknown) => messages(alertKindSchema.safeParse(kind));

const metric = (fields: Record<string, unknown>) => ({
  type: 'metric_threshold',
  metric: 'likes',
  threshold: 100,
  within_hours: 24,
  ...fields,
});

describe('alert rule contracts', () => {
  it('accepts one rule of each kind', () => {
    const kinds = [
      metric({ metric: 'views', threshold: 1, within_hours: 168 }),
      { type: 'engagement_multiple', multiple: 1.5, period: 'month' },
      { type: 'follower_change', percent: 0.5, direction: 'down' },
      { type: 'follower_change', accounts: 1, direction: 'either' },
      { type: 'silence', days: 90 },
      { type: 'words', include: ['launch'], exclude: ['delay'] },
    ];
    for (const kind of kinds) expect(kindMessages(kind)).toEqual([]);
  });

  it('explains a bad threshold or window of a metric rule', () => {
    for (const threshold of [0, -1, 1.5, '10', null, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(kindMessages(metric({ threshold }))).toEqual([ALERT_MESSAGES.thresholdInvalid]);
    }
    expect(ALERT_MESSAGES.thresholdInvalid).toBe('Threshold must be a whole number of at least 1.');
    for (const within_hours of [0, 169, 2.5, undefined]) {
      expect(kindMessages(metric({ within_hours }))).toEqual([ALERT_MESSAGES.withinHoursInvalid]);
    }
    expect(kindMessages(metric({ metric: 'bookmarks' }))).toEqual([ALERT_MESSAGES.metricUnknown]);
  });

  it('explains a bad multiple, period, percentage, account count or silence', () => {
    const multiple = (value: unknown) =>
      kindMessages({ type: 'engagement_multiple', multiple: value, period: 'week' });
    for (const value of [1, 0.5, 1000.5, 'x']) {
      expect(multiple(value)).toEqual([ALERT_MESSAGES.multipleInvalid]);
    }
    expect(multiple(1000)).toEqual([]);
    expect(kindMessages({ type: 'engagement_multiple', multiple: 2, period: 'year' })).toEqual([
      ALERT_MESSAGES.periodUnknown,
    ]);
    const followers = (fields: Record<string, unknown>) =>
      kindMessages({ type: 'follower_change', direction: 'up', ...fields });
    expect(followers({ percent: 0 })).toEqual([ALERT_MESSAGES.percentInvalid]);
    expect(followers({ percent: 1001 })).toEqual([ALERT_MESSAGES.percentInvalid]);
    expect(followers({ accounts: 0 })).toEqual([ALERT_MESSAGES.accountsInvalid]);
    expect(followers({ accounts: 2.5 })).toEqual([ALERT_MESSAGES.accountsInvalid]);
    expect(followers({})).toEqual(['Choose at least a percentage or a number of accounts.']);
    expect(followers({ accounts: 5, direction: 'sideways' })).toEqual([
      ALERT_MESSAGES.directionUnknown,
    ]);
    for (const days of [0, 91, 1.5]) {
      expect(kindMessages({ type: 'silence', days })).toEqual([ALERT_MESSAGES.silenceDaysInvalid]);
    }
    expect(kindMessages({ type: 'weather' })).toEqual([ALERT_MESSAGES.kindUnknown]);
  });

  it('takes words with the notification filter’s rules, and wants one to watch for', () => {
    expect(
      alertKindSchema.parse({ type: 'words', include: [' "Free  Gift" ', 'free gift'] }),
    ).toEqual({
      type: 'words',
      include: ['Free Gift'],
      exclude: [],
    });
    expect(kindMessages({ type: 'words', include: [] })).toEqual([
      ALERT_MESSAGES.wordsIncludeEmpty,
    ]);
    expect(kindMessages({ type: 'words', include: ['a'], exclude: ['A'] })).toEqual([
      FILTER_MESSAGES.termInBoth('a'),
    ]);
    expect(kindMessages({ type: 'words', include: ['line\nbreak'] })).toEqual([
      FILTER_MESSAGES.termInvalid,
    ]);
  });

  it('trims the name, switches a new rule on, and keeps the handle as X spells it', () => {
    const request = createAlertRuleRequestSchema.parse({
      handle: '@NASA',
      name: '  Big posts ',
      kind: metric({}),
    });
    expect(request).toMatchObject({ handle: 'NASA', name: 'Big posts', enabled: true });
    const create = (fields: Record<string, unknown>) =>
      messages(
        createAlertRuleRequestSchema.safeParse({
          handle: 'nasa',
          name: 'x',
          kind: metric({}),
          ...fields,
        }),
      );
    expect(create({ name: '   ' })).toEqual([ALERT_MESSAGES.nameEmpty]);
    expect(create({ name: 'x'.repeat(81) })).toEqual([ALERT_MESSAGES.nameTooLong]);
    expect(create({ name: ` ${'x'.repeat(80)} ` })).toEqual([]);
    expect(create({ enabled: 'yes' })).toEqual([ALERT_MESSAGES.enabledNotBoolean]);
  });

  it('updates any of name, switch and kind, but not nothing', () => {
    expect(updateAlertRuleRequestSchema.parse({ enabled: false })).toEqual({ enabled: false });
    expect(messages(updateAlertRuleRequestSchema.safeParse({}))).toEqual([
      ALERT_MESSAGES.updateEmpty,
    ]);
    expect(
      messages(updateAlertRuleRequestSchema.safeParse({ kind: metric({ threshold: 0 }) })),
    ).toEqual([ALERT_MESSAGES.thresholdInvalid]);
  });

  it('describes a stored rule and states the limit with its number', () => {
    const rule = {
      id: 1,
      handle: 'NASA',
      name: 'Quiet',
      enabled: true,
      kind: { type: 'silence', days: 7 },
      created_at: '2026-03-01T00:00:00.000Z',
      updated_at: '2026-03-01T00:00:00.000Z',
    };
    expect(alertRuleSchema.parse(rule)).toEqual(rule);
    expect(ALERT_RULES_PER_USER).toBe(50);
    expect(ALERT_MESSAGES.limitReached).toBe('Alert limit reached (50).');
  });
});
