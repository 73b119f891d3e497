import { z } from 'zod';
import { ALERT_RULES_PER_USER } from '../constants.js';
import { FILTER_MESSAGES, notificationFilterRequestSchema, termInBothLists } from './filters.js';
import { handleInputSchema } from './handles.js';

/**
 * Alert rules per user and handle. Post rules look at one post (a metric passes a threshold
 * within some hours of posting, engagement reaches a multiple of the handle's median, the text
 * matches words); handle rules look at the handle (followers change within 24 h, no post for
 * some days). Each rule has a name and an on/off switch; a user keeps at most
 * ALERT_RULES_PER_USER of them. Field names are snake_case like the rest of the API.
 */

export const ALERT_NAME_MAX_LENGTH = 80;
/** Longest time after posting a metric threshold may watch: one week. */
export const ALERT_MAX_WITHIN_HOURS = 168;
/** Largest multiple of the median engagement, and largest follower change in percent. */
export const ALERT_MAX_MULTIPLE = 1000;
export const ALERT_MAX_PERCENT = 1000;
export const ALERT_MAX_SILENCE_DAYS = 90;

export const ALERT_METRICS = ['likes', 'reposts', 'replies', 'quotes', 'views'] as const;
export type AlertMetric = (typeof ALERT_METRICS)[number];
/** The median's period: the handle's posts of the last 7 or 30 days (docs/analytics.md). */
export const ALERT_PERIODS = ['week', 'month'] as const;
export type AlertPeriod = (typeof ALERT_PERIODS)[number];
export const ALERT_DIRECTIONS = ['up', 'down', 'either'] as const;
export type AlertDirection = (typeof ALERT_DIRECTIONS)[number];
export const ALERT_KIND_TYPES = [
  'metric_threshold',
  'engagement_multiple',
  'follower_change',
  'silence',
  'words',
] as const;
export type AlertKindType = (typeof ALERT_KIND_TYPES)[number];

export const ALERT_MESSAGES = {
  nameNotText: 'Send the alert name as text.',
  nameEmpty: 'Give the alert a name.',
  nameTooLong: `An alert name can have at most ${ALERT_NAME_MAX_LENGTH} characters.`,
  enabledNotBoolean: 'enabled must be true or false.',
  kindUnknown: `Choose what the alert watches: ${ALERT_KIND_TYPES.join(', ')}.`,
  metricUnknown: `Choose a metric: ${ALERT_METRICS.join(', ')}.`,
  thresholdInvalid: 'Threshold must be a whole number of at least 1.',
  withinHoursInvalid: `Hours after posting must be a whole number from 1 to ${ALERT_MAX_WITHIN_HOURS}.`,
  multipleInvalid: `The multiple must be a number above 1 and at most ${ALERT_MAX_MULTIPLE}.`,
  periodUnknown: `Choose a period: ${ALERT_PERIODS.join(' or ')}.`,
  percentInvalid: `The percentage must be a number above 0 and at most ${ALERT_MAX_PERCENT}.`,
  accountsInvalid: 'The number of accounts must be a whole number of at least 1.',
  followerChangeEmpty: 'Choose at least a percentage or a number of accounts.',
  directionUnknown: `Choose a direction: ${ALERT_DIRECTIONS.join(', ')}.`,
  silenceDaysInvalid: `Days without a post must be a whole number from 1 to ${ALERT_MAX_SILENCE_DAYS}.`,
  wordsIncludeEmpty: 'Add at least one word or phrase to watch for.',
  updateEmpty: 'Change at least one of name, enabled or kind.',
  limitReached: `Alert limit reached (${ALERT_RULES_PER_USER}).`,
  notFound: 'Alert not found.',
} as const;

/** A whole number in [min, max] with one message for every way it can be wrong. */
const wholeNumber = (message: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.number({ error: message }).int(message).min(min, message).max(max, message);

const choice = <T extends readonly [string, ...string[]]>(values: T, message: string) =>
  z.enum(values, { error: message });

const alertNameSchema = z
  .string({ error: ALERT_MESSAGES.nameNotText })
  .trim()
  .min(1, ALERT_MESSAGES.nameEmpty)
  .max(ALERT_NAME_MAX_LENGTH, ALERT_MESSAGES.nameTooLong);

const enabledSchema = z.boolean({ error: ALERT_MESSAGES.enabledNotBoolean });

/** A post passes `threshold` of `metric` within `within_hours` of being posted. */
const metricThresholdSchema = z.object({
  type: z.literal('metric_threshold'),
  metric: choice(ALERT_METRICS, ALERT_MESSAGES.metricUnknown),
  threshold: wholeNumber(ALERT_MESSAGES.thresholdInvalid, 1),
  within_hours: wholeNumber(ALERT_MESSAGES.withinHoursInvalid, 1, ALERT_MAX_WITHIN_HOURS),
});

/** A post's engagement reaches `multiple` times the handle's median engagement of the period. */
const engagementMultipleSchema = z.object({
  type: z.literal('engagement_multiple'),
  multiple: z
    .number({ error: ALERT_MESSAGES.multipleInvalid })
    .gt(1, ALERT_MESSAGES.multipleInvalid)
    .max(ALERT_MAX_MULTIPLE, ALERT_MESSAGES.multipleInvalid),
  period: choice(ALERT_PERIODS, ALERT_MESSAGES.periodUnknown),
});

/**
 * Followers change within 24 h by at least `percent` of the earlier count or by at least
 * `accounts` (either is enough when both are given), in the chosen direction.
 */
const followerChangeSchema = z
  .object({
    type: z.literal('follower_change'),
    percent: z
      .number({ error: ALERT_MESSAGES.percentInvalid })
      .gt(0, ALERT_MESSAGES.percentInvalid)
      .max(ALERT_MAX_PERCENT, ALERT_MESSAGES.percentInvalid)
      .optional(),
    accounts: wholeNumber(ALERT_MESSAGES.accountsInvalid, 1).optional(),
    direction: choice(ALERT_DIRECTIONS, ALERT_MESSAGES.directionUnknown),
  })
  .refine((kind) => kind.percent !== undefined || kind.accounts !== undefined, {
    message: ALERT_MESSAGES.followerChangeEmpty,
    path: ['percent'],
  });

/** The handle has not posted for `days` days. */
const silenceSchema = z.object({
  type: z.literal('silence'),
  days: wholeNumber(ALERT_MESSAGES.silenceDaysInvalid, 1, ALERT_MAX_SILENCE_DAYS),
});

/**
 * A post contains any of `include` and none of `exclude`: the notification filter's terms and
 * matching (whole words, any script, case-insensitive; exclude wins).
 */
const wordsSchema = z
  .object({
    type: z.literal('words'),
    include: notificationFilterRequestSchema.shape.include,
    exclude: notificationFilterRequestSchema.shape.exclude,
  })
  .superRefine((kind, context) => {
    if (kind.include.length === 0) {
      context.addIssue({
        code: 'custom',
        message: ALERT_MESSAGES.wordsIncludeEmpty,
        path: ['include'],
      });
    }
    const both = termInBothLists(kind);
    if (both !== undefined) {
      context.addIssue({
        code: 'custom',
        message: FILTER_MESSAGES.termInBoth(both),
        path: ['exclude'],
      });
    }
  });

/** What a rule watches, told apart by `type`. */
export const alertKindSchema = z.discriminatedUnion(
  'type',
  [
    metricThresholdSchema,
    engagementMultipleSchema,
    followerChangeSchema,
    silenceSchema,
    wordsSchema,
  ],
  { error: ALERT_MESSAGES.kindUnknown },
);
export type AlertKind = z.output<typeof alertKindSchema>;
export type AlertKindInput = z.input<typeof alertKindSchema>;
export type MetricThresholdKind = Extract<AlertKind, { type: 'metric_threshold' }>;
export type EngagementMultipleKind = Extract<AlertKind, { type: 'engagement_multiple' }>;
export type FollowerChangeKind = Extract<AlertKind, { type: 'follower_change' }>;
export type SilenceKind = Extract<AlertKind, { type: 'silence' }>;
export type WordsKind = Extract<AlertKind, { type: 'words' }>;

/** Kinds judged per post (at most one firing per rule and post). */
export const POST_ALERT_KINDS = ['metric_threshold', 'engagement_multiple', 'words'] as const;
/** Kinds judged per handle (one firing per crossing, then a cooldown). */
export const HANDLE_ALERT_KINDS = ['follower_change', 'silence'] as const;
export type PostAlertKind = Extract<AlertKind, { type: (typeof POST_ALERT_KINDS)[number] }>;
export type HandleAlertKind = Extract<AlertKind, { type: (typeof HANDLE_ALERT_KINDS)[number] }>;

/** POST /alerts: a new rule for one of the user's handles (switched on unless told otherwise). */
export const createAlertRuleRequestSchema = z.object({
  handle: handleInputSchema,
  name: alertNameSchema,
  enabled: enabledSchema.default(true),
  kind: alertKindSchema,
});
export type CreateAlertRuleRequest = z.input<typeof createAlertRuleRequestSchema>;

/** PATCH /alerts/{id}: the fields given replace the stored ones; the handle stays. */
export const updateAlertRuleRequestSchema = z
  .object({
    name: alertNameSchema.optional(),
    enabled: enabledSchema.optional(),
    kind: alertKindSchema.optional(),
  })
  .refine((update) => Object.values(update).some((value) => value !== undefined), {
    message: ALERT_MESSAGES.updateEmpty,
  });
export type UpdateAlertRuleRequest = z.input<typeof updateAlertRuleRequestSchema>;

/**
 * A kind as the API returns it: the request's kinds, with a words rule's terms as plain text
 * (they were normalised when saved; the request schema's transforms only run one way).
 */
export const alertKindResponseSchema = z.discriminatedUnion('type', [
  metricThresholdSchema,
  engagementMultipleSchema,
  followerChangeSchema,
  silenceSchema,
  z.object({
    type: z.literal('words'),
    include: z.array(z.string()),
    exclude: z.array(z.string()),
  }),
]);

/** A rule as the API returns it. */
export const alertRuleSchema = z.object({
  id: z.number().int(),
  handle: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  kind: alertKindResponseSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type AlertRule = z.infer<typeof alertRuleSchema>;

/** GET /alerts: the user's rules, oldest first, with the per-user limit. */
export const alertRuleListSchema = z.object({
  rules: z.array(alertRuleSchema),
  limit: z.number().int(),
});
export type AlertRuleList = z.infer<typeof alertRuleListSchema>;
/** POST /alerts and PATCH /alerts/{id}. */
export const alertRuleResponseSchema = z.object({ rule: alertRuleSchema });

/** Most firings one page of GET /alerts/firings holds, and its default. */
export const ALERT_FIRINGS_PAGE_MAX = 200;
export const ALERT_FIRINGS_PAGE_DEFAULT = 50;

/** GET /alerts/firings: newest first, optionally of one handle or rule. */
export const alertFiringsQuerySchema = z.object({
  handle: z.string().optional(),
  rule_id: z.coerce.number().int().positive().optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(ALERT_FIRINGS_PAGE_MAX)
    .default(ALERT_FIRINGS_PAGE_DEFAULT),
  /** Firings older than this id (the previous page's `next_before`). */
  before: z.coerce.number().int().positive().optional(),
});
export type AlertFiringsQuery = z.input<typeof alertFiringsQuerySchema>;

/** One firing: which rule, about which post (post rules), when and with which numbers. */
export const alertFiringSchema = z.object({
  id: z.number().int(),
  rule_id: z.number().int(),
  rule_name: z.string(),
  handle: z.string(),
  kind: alertKindResponseSchema,
  /** The post that fired a post rule; null for handle rules. */
  tweet_id: z.string().nullable(),
  tweet_url: z.string().nullable(),
  fired_at: z.string(),
  /** The numbers it fired with (e.g. value and threshold), by name. */
  numbers: z.record(z.string(), z.number()),
  /** One line a person reads: what happened. */
  summary: z.string(),
});
export type AlertFiring = z.infer<typeof alertFiringSchema>;

export const alertFiringListSchema = z.object({
  firings: z.array(alertFiringSchema),
  /** Pass as `before` for the next page; null on the last page. */
  next_before: z.number().int().nullable(),
});
export type AlertFiringList = z.infer<typeof alertFiringListSchema>;

/** GET /alerts/export?format=json: the rules and every stored firing. */
export const alertsExportSchema = z.object({
  exported_at: z.string(),
  rules: z.array(alertRuleSchema),
  firings: z.array(alertFiringSchema),
});
export type AlertsExport = z.infer<typeof alertsExportSchema>;
