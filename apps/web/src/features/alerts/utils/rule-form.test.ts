import { ALERT_MESSAGES, FILTER_MESSAGES } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { KIND_LABELS, KIND_ORDER } from './alert-texts';
import { checkCreate, checkUpdate, initialValues, type RuleFormValues } from './rule-form';
import { makeRule } from '../test/alert-fixtures';

const form = (changes: Partial<RuleFormValues>): RuleFormValues => ({
  ...initialValues(null, 'nasa'),
  name: 'Watch',
  ...changes,
});

describe('the alert form', () => {
  it('lists every kind once with its label', () => {
    expect([...KIND_ORDER].sort()).toEqual(Object.keys(KIND_LABELS).sort());
  });

  it('sends only the chosen kind’s fields, as the request schema leaves them', () => {
    expect(checkCreate(form({ type: 'silence', days: 5, name: ' Quiet ' }))).toEqual({
      ok: true,
      body: { handle: 'nasa', name: 'Quiet', enabled: true, kind: { type: 'silence', days: 5 } },
    });
    expect(
      checkCreate(form({ type: 'follower_change', percent: '', accounts: 250, direction: 'up' })),
    ).toMatchObject({
      ok: true,
      body: { kind: { type: 'follower_change', accounts: 250, direction: 'up' } },
    });
  });

  it.each<[Partial<RuleFormValues>, keyof RuleFormValues, string]>([
    [{ name: '  ' }, 'name', ALERT_MESSAGES.nameEmpty],
    [{ name: 'x'.repeat(81) }, 'name', ALERT_MESSAGES.nameTooLong],
    [{ threshold: '' }, 'threshold', ALERT_MESSAGES.thresholdInvalid],
    [{ threshold: 0 }, 'threshold', ALERT_MESSAGES.thresholdInvalid],
    [{ withinHours: 169 }, 'withinHours', ALERT_MESSAGES.withinHoursInvalid],
    [{ type: 'engagement_multiple', multiple: 1 }, 'multiple', ALERT_MESSAGES.multipleInvalid],
    [{ type: 'words' }, 'include', ALERT_MESSAGES.wordsIncludeEmpty],
    [
      { type: 'words', include: ['launch'], exclude: ['Launch'] },
      'exclude',
      FILTER_MESSAGES.termInBoth('launch'),
    ],
    [
      { type: 'follower_change', percent: '', accounts: '' },
      'percent',
      ALERT_MESSAGES.followerChangeEmpty,
    ],
    [{ type: 'follower_change', percent: 1001 }, 'percent', ALERT_MESSAGES.percentInvalid],
    [{ type: 'silence', days: 91 }, 'days', ALERT_MESSAGES.silenceDaysInvalid],
  ])('puts the message of %j at its field', (changes, field, message) => {
    const checked = checkCreate(form(changes));
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.errors[field]).toBe(message);
  });

  it('starts an edit from the stored rule and sends its name and kind', () => {
    const rule = makeRule({
      id: 4,
      name: 'Followers',
      kind: { type: 'follower_change', accounts: 50, direction: 'down' },
    });
    const values = initialValues(rule);
    expect(values).toMatchObject({ handle: 'nasa', percent: '', accounts: 50, direction: 'down' });
    expect(checkUpdate(values)).toEqual({
      ok: true,
      body: {
        name: 'Followers',
        kind: { type: 'follower_change', accounts: 50, direction: 'down' },
      },
    });
  });
});
