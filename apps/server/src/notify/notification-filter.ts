import { FILTER_MESSAGES, isFilterActive, type NotificationFilter } from '@perch/shared';
import { parseStringArray } from '../lib/json-strings.js';

/**
 * Matching of notification filters: whole words and phrases, case-insensitive, in any script.
 *
 * A term matches where the text holds it (case folded by the regular expression's `iu` flags, a
 * phrase's spaces standing for any white space) and both ends of that stretch fall on word
 * boundaries of the text as Unicode defines them (UAX #29, through Intl.Segmenter): "giveaway"
 * matches "#giveaway!" and "GIVEAWAY", not "giveaways"; "don" does not match "don't"; in Chinese
 * or Thai, which have no spaces, ICU's dictionaries find the words.
 */

/** Word boundaries of one text, worked out once however many filters read it. */
export interface PreparedText {
  text: string;
  /** Indices (UTF-16) where a word or other segment starts, and the text's end. */
  boundaries: ReadonlySet<number>;
}

const segmenter = new Intl.Segmenter('und', { granularity: 'word' });

/** Typographic apostrophes read as the ASCII one, in the text and in the terms (same length). */
const APOSTROPHES = /[\u2018\u2019\u02BC]/g;

function fold(text: string): string {
  return text.normalize('NFC').replace(APOSTROPHES, "'");
}

export function prepareText(text: string): PreparedText {
  const folded = fold(text);
  const boundaries = new Set<number>([folded.length]);
  for (const segment of segmenter.segment(folded)) boundaries.add(segment.index);
  return { text: folded, boundaries };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A term as a global, case-insensitive expression (a phrase's spaces match any white space). */
function termPattern(term: string): RegExp {
  const words = fold(term).trim().split(/\s+/u).map(escapeRegExp);
  return new RegExp(words.join('\\s+'), 'giu');
}

/** Whether the text contains the term as whole words. */
function containsTerm(prepared: PreparedText, pattern: RegExp): boolean {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(prepared.text); match; match = pattern.exec(prepared.text)) {
    const start = match.index;
    const end = start + match[0].length;
    if (prepared.boundaries.has(start) && prepared.boundaries.has(end)) return true;
    // Try again one character further on (a match may overlap the next candidate).
    pattern.lastIndex = start + 1;
  }
  return false;
}

/** What a filter reads of a tweet. */
export interface FilterableTweet {
  text: string;
  /** Its photos, videos and GIFs (any array: only whether it is empty counts). */
  media: readonly unknown[];
}

/** A filter made ready to test many tweets. */
export interface CompiledFilter {
  /** Why this filter holds the tweet back, or null when the tweet may be sent. */
  heldBackReason(tweet: FilterableTweet, prepared?: PreparedText): string | null;
}

/**
 * Compiles a filter, or returns null when it holds nothing back. The rules, in the order their
 * reasons are given: a tweet containing any excluded term is held back; with "media only", a
 * tweet without media is; with included terms, a tweet containing none of them is.
 */
export function compileFilter(filter: NotificationFilter): CompiledFilter | null {
  if (!isFilterActive(filter)) return null;
  const include = filter.include.map((term) => ({ term, pattern: termPattern(term) }));
  const exclude = filter.exclude.map((term) => ({ term, pattern: termPattern(term) }));
  return {
    heldBackReason(tweet, prepared) {
      let text: PreparedText | undefined = prepared;
      const textOf = () => (text ??= prepareText(tweet.text));
      // Word boundaries are the costly part: they are only worked out for a term that appears
      // in the text at all (a whole-word match is a match first).
      const folded = prepared?.text ?? fold(tweet.text);
      const holds = (pattern: RegExp) => {
        pattern.lastIndex = 0;
        return pattern.test(folded) && containsTerm(textOf(), pattern);
      };
      for (const { term, pattern } of exclude) {
        if (holds(pattern)) return FILTER_MESSAGES.heldBackContains(term);
      }
      if (filter.media_only && tweet.media.length === 0) return FILTER_MESSAGES.heldBackNoMedia;
      if (include.length > 0 && !include.some(({ pattern }) => holds(pattern))) {
        return FILTER_MESSAGES.heldBackNoneOf(filter.include);
      }
      return null;
    },
  };
}

/** A JSON array of strings as stored in `user_handles`; anything else reads as empty. */
function storedTerms(text: string | null | undefined): string[] {
  if (!text || text === '[]') return [];
  return parseStringArray(text);
}

/** A link row's filter columns as the API's filter object. */
export function filterOfLink(link: {
  filter_include?: string | null;
  filter_exclude?: string | null;
  filter_media_only?: boolean | number | null;
}): NotificationFilter {
  return {
    include: storedTerms(link.filter_include),
    exclude: storedTerms(link.filter_exclude),
    media_only: Boolean(link.filter_media_only),
  };
}
