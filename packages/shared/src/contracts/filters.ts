import { z } from 'zod';

/**
 * Notification filters per user and handle (PUT /handles/{id}/notifications/filter): words or
 * phrases a tweet must contain (any of them), words or phrases it must not contain (none of
 * them), and "media only". Matching is case-insensitive and by whole words; the fan-out applies
 * it per user, and a tweet held back shows in the delivery log as 'filtered' with the reason.
 */

/** Most words or phrases in each list. */
export const FILTER_MAX_TERMS = 20;
/** Longest word or phrase, in characters (after trimming). */
export const FILTER_TERM_MAX_LENGTH = 50;
/** Terms the reason of a held-back tweet names before "and N more". */
const REASON_TERMS_SHOWN = 3;

const quoted = (term: string) => `"${term}"`;

export const FILTER_MESSAGES = {
  tooManyInclude: `Add at most ${FILTER_MAX_TERMS} words or phrases to notify about.`,
  tooManyExclude: `Add at most ${FILTER_MAX_TERMS} words or phrases to hold back.`,
  termEmpty: 'A word or phrase cannot be empty.',
  termTooLong: `A word or phrase can have at most ${FILTER_TERM_MAX_LENGTH} characters.`,
  termInvalid: 'A word or phrase cannot contain line breaks or control characters.',
  termNotText: 'Send each word or phrase as text.',
  termInBoth: (term: string) => `${quoted(term)} is in both lists: keep it in one of them.`,
  saved: (handle: string) => `Notification filter saved for @${handle}.`,
  cleared: (handle: string) => `Notification filter cleared for @${handle}: every tweet notifies.`,
  saveFailed: 'Failed to save the notification filter.',
  /** The delivery log's note on a tweet the filter held back. */
  heldBackContains: (term: string) => `Held back by your filter: contains ${quoted(term)}`,
  heldBackNoMedia: 'Held back by your filter: no photo or video (media only)',
  heldBackNoneOf: (terms: readonly string[]) => {
    const shown = terms.slice(0, REASON_TERMS_SHOWN).map(quoted).join(', ');
    const more = terms.length - REASON_TERMS_SHOWN;
    return `Held back by your filter: contains none of ${shown}${more > 0 ? ` and ${more} more` : ''}`;
  },
} as const;

const QUOTE_PAIRS: Record<string, string> = { '"': '"', '“': '”', '„': '“', '«': '»' };

/**
 * A word or phrase as stored: NFC, trimmed, one pair of surrounding double quotes removed
 * ("free giveaway" is the phrase free giveaway) and inner white space collapsed to one space.
 */
export function normalizeFilterTerm(input: string): string {
  let term = input.normalize('NFC').trim();
  const close = QUOTE_PAIRS[term[0] ?? ''];
  if (close !== undefined && term.length >= 2 && term.endsWith(close)) term = term.slice(1, -1);
  return term.replace(/\s+/gu, ' ').trim();
}

const filterTermSchema = z
  .string({ error: FILTER_MESSAGES.termNotText })
  // Generous before trimming; the rule that counts is checked on the normalised term.
  .max(FILTER_TERM_MAX_LENGTH * 4, FILTER_MESSAGES.termTooLong)
  // Tabs become spaces; line breaks and other control characters are refused.
  .refine((raw) => !/[\p{Cc}\p{Zl}\p{Zp}]/u.test(raw.replace(/\t/g, ' ')), {
    message: FILTER_MESSAGES.termInvalid,
  })
  .transform(normalizeFilterTerm)
  .pipe(
    z
      .string()
      .min(1, FILTER_MESSAGES.termEmpty)
      .max(FILTER_TERM_MAX_LENGTH, FILTER_MESSAGES.termTooLong),
  );

/** The same word twice (whatever its case) is kept once, first spelling first. */
function unique(terms: string[]): string[] {
  const seen = new Set<string>();
  return terms.filter((term) => {
    const key = term.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const termListSchema = (tooMany: string) =>
  z
    .array(filterTermSchema, { error: FILTER_MESSAGES.termNotText })
    .transform(unique)
    .pipe(z.array(z.string()).max(FILTER_MAX_TERMS, tooMany));

/** A handle's filter as the API returns it (inside the handle object). */
export const notificationFilterSchema = z.object({
  /** Notify only when the tweet contains at least one of these (empty: no such rule). */
  include: z.array(z.string()),
  /** Never notify when the tweet contains any of these. */
  exclude: z.array(z.string()),
  /** Notify only about tweets with a photo, video or GIF. */
  media_only: z.boolean(),
});
export type NotificationFilter = z.infer<typeof notificationFilterSchema>;

export const EMPTY_NOTIFICATION_FILTER: NotificationFilter = {
  include: [],
  exclude: [],
  media_only: false,
};

/** Whether a filter holds anything back at all. */
export function isFilterActive(filter: NotificationFilter | undefined | null): boolean {
  return Boolean(
    filter && (filter.include.length > 0 || filter.exclude.length > 0 || filter.media_only),
  );
}

/** The first included term that is also excluded (whatever its case), if any. */
export function termInBothLists(lists: {
  include: readonly string[];
  exclude: readonly string[];
}): string | undefined {
  const excluded = new Set(lists.exclude.map((term) => term.toLowerCase()));
  return lists.include.find((term) => excluded.has(term.toLowerCase()));
}

/**
 * PUT /handles/{id}/notifications/filter: the whole filter (a field left out is empty or off, so
 * `{}` clears it). Terms are trimmed and de-duplicated; a term may not be in both lists.
 */
export const notificationFilterRequestSchema = z
  .object({
    include: termListSchema(FILTER_MESSAGES.tooManyInclude).default([]),
    exclude: termListSchema(FILTER_MESSAGES.tooManyExclude).default([]),
    media_only: z.boolean({ error: 'media_only must be true or false.' }).default(false),
  })
  .superRefine((filter, context) => {
    const both = termInBothLists(filter);
    if (both !== undefined) {
      context.addIssue({
        code: 'custom',
        message: FILTER_MESSAGES.termInBoth(both),
        path: ['exclude'],
      });
    }
  });
export type NotificationFilterRequest = z.input<typeof notificationFilterRequestSchema>;
