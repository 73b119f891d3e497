import {
  createAlertRuleRequestSchema,
  updateAlertRuleRequestSchema,
  type AlertDirection,
  type AlertKindType,
  type AlertMetric,
  type AlertPeriod,
  type AlertRule,
  type CreateAlertRuleRequest,
  type UpdateAlertRuleRequest,
} from '@perch/shared';
import type { z } from 'zod';

/**
 * The alert form's values and how they become a request. Every kind's fields are kept while the
 * person switches between kinds, and only the chosen kind's go out. The request's own zod schema
 * checks them, so the form says what the server would, word for word (ALERT_MESSAGES).
 */

/** A number field: empty while nothing is typed (as Mantine's NumberInput holds it). */
export type NumberField = number | string;

export interface RuleFormValues {
  handle: string;
  name: string;
  type: AlertKindType;
  metric: AlertMetric;
  threshold: NumberField;
  withinHours: NumberField;
  multiple: NumberField;
  period: AlertPeriod;
  include: string[];
  exclude: string[];
  percent: NumberField;
  accounts: NumberField;
  direction: AlertDirection;
  days: NumberField;
}

export type RuleFormField = keyof RuleFormValues;

/** The first problem of each field, and of the form as a whole under `form`. */
export type RuleFormErrors = Partial<Record<RuleFormField | 'form', string>>;

/** What a new alert starts from: common choices, so most people only pick a handle and a name. */
const DEFAULTS: Omit<RuleFormValues, 'handle'> = {
  name: '',
  type: 'metric_threshold',
  metric: 'likes',
  threshold: 1000,
  withinHours: 24,
  multiple: 3,
  period: 'week',
  include: [],
  exclude: [],
  percent: 5,
  accounts: '',
  direction: 'either',
  days: 3,
};

/** The form of a new alert (for `handle` when given), or of `rule` to edit. */
export function initialValues(rule?: AlertRule | null, handle = ''): RuleFormValues {
  if (!rule) return { ...DEFAULTS, handle };
  const values: RuleFormValues = {
    ...DEFAULTS,
    handle: rule.handle,
    name: rule.name,
    type: rule.kind.type,
  };
  const { kind } = rule;
  switch (kind.type) {
    case 'metric_threshold':
      return {
        ...values,
        metric: kind.metric,
        threshold: kind.threshold,
        withinHours: kind.within_hours,
      };
    case 'engagement_multiple':
      return { ...values, multiple: kind.multiple, period: kind.period };
    case 'words':
      return { ...values, include: kind.include, exclude: kind.exclude };
    case 'follower_change':
      return {
        ...values,
        percent: kind.percent ?? '',
        accounts: kind.accounts ?? '',
        direction: kind.direction,
      };
    case 'silence':
      return { ...values, days: kind.days };
  }
}

/** A typed number, or undefined while the field is empty (the schema then says what is missing). */
function numberOf(field: NumberField): number | undefined {
  if (typeof field === 'number') return field;
  const text = field.trim();
  if (text === '') return undefined;
  const value = Number(text);
  return Number.isNaN(value) ? undefined : value;
}

/** A kind as typed, before the request's check has said whether it is one. */
export interface KindDraft {
  type: AlertKindType;
  [field: string]: unknown;
}

/**
 * The chosen kind with its own fields only: an empty number stays undefined, for the request's
 * check to name.
 */
export function kindOf(values: RuleFormValues): KindDraft {
  switch (values.type) {
    case 'metric_threshold':
      return {
        type: 'metric_threshold',
        metric: values.metric,
        threshold: numberOf(values.threshold),
        within_hours: numberOf(values.withinHours),
      };
    case 'engagement_multiple':
      return {
        type: 'engagement_multiple',
        multiple: numberOf(values.multiple),
        period: values.period,
      };
    case 'words':
      return { type: 'words', include: values.include, exclude: values.exclude };
    case 'follower_change': {
      const percent = numberOf(values.percent);
      const accounts = numberOf(values.accounts);
      return {
        type: 'follower_change',
        direction: values.direction,
        ...(percent !== undefined && { percent }),
        ...(accounts !== undefined && { accounts }),
      };
    }
    case 'silence':
      return { type: 'silence', days: numberOf(values.days) };
  }
}

/** Where an issue of the request belongs on the form. */
const KIND_FIELDS: Record<string, RuleFormField> = {
  type: 'type',
  metric: 'metric',
  threshold: 'threshold',
  within_hours: 'withinHours',
  multiple: 'multiple',
  period: 'period',
  include: 'include',
  exclude: 'exclude',
  percent: 'percent',
  accounts: 'accounts',
  direction: 'direction',
  days: 'days',
};

function fieldOf(path: readonly PropertyKey[]): RuleFormField | 'form' {
  const [first, second] = path;
  if (first === 'handle' || first === 'name') return first;
  if (first === 'kind')
    return typeof second === 'string' ? (KIND_FIELDS[second] ?? 'type') : 'type';
  return 'form';
}

/** The first message of each field. */
export function errorsOf(error: z.ZodError): RuleFormErrors {
  const errors: RuleFormErrors = {};
  for (const issue of error.issues) {
    const field = fieldOf(issue.path);
    errors[field] ??= issue.message;
  }
  return errors;
}

export type Checked<T> = { ok: true; body: T } | { ok: false; errors: RuleFormErrors };

/**
 * The body of POST /alerts as the check leaves it (name trimmed, terms normalised, switched on),
 * or what is wrong with the form.
 */
export function checkCreate(values: RuleFormValues): Checked<CreateAlertRuleRequest> {
  const checked = createAlertRuleRequestSchema.safeParse({
    handle: values.handle,
    name: values.name,
    kind: kindOf(values),
  });
  return checked.success
    ? { ok: true, body: checked.data }
    : { ok: false, errors: errorsOf(checked.error) };
}

/** The body of PATCH /alerts/{id} for an edit (name and kind), or what is wrong with the form. */
export function checkUpdate(values: RuleFormValues): Checked<UpdateAlertRuleRequest> {
  const checked = updateAlertRuleRequestSchema.safeParse({
    name: values.name,
    kind: kindOf(values),
  });
  return checked.success
    ? { ok: true, body: checked.data }
    : { ok: false, errors: errorsOf(checked.error) };
}
