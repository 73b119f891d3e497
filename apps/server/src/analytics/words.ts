import { WORDS_LIMIT, type Words } from '@perch/shared';
import { compareText } from './stats.js';
import { RunCounter, scanWords } from './word-scanner.js';
import type { PreparedWindow } from './window.js';

/**
 * Common English words left out of the word counts: they top every account's list and say
 * nothing about it. Words under 3 letters are dropped anyway, so none are listed here.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'the and for with that this you are was were but not have has had our out all any can ' +
    'will just its from they them their there then than what when where who whom which why ' +
    'how your yours his her hers him she about into over after before more most some such ' +
    'only own same very too also been being did does doing done would could should may might ' +
    'must shall these those because while until again further once here each few both other ' +
    'nor off down under above below between through during against myself yourself itself ' +
    'ourselves themselves himself herself let get got one now yes yet ever every via don ' +
    'didn doesn isn wasn aren won'
  ).split(' '),
);

/**
 * The version of what `countWords` counts. Counts kept per day (tweet_word_days) carry it, and
 * counts of another version are counted again: bump it with any change to the stop words, the
 * minimum length or what the scanner skips.
 */
export const WORD_COUNTS_VERSION = 1;

/** At least this many letters for a word to count. */
const MIN_WORD_LETTERS = 3;
/** A word is a run of letters; apostrophes and digits split words. */
const WORD = /\p{L}+/gu;

/** Letters (code points) in a word: a few scripts use letters outside the 16-bit range. */
function letterCount(word: string): number {
  let count = 0;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    // The first half of a surrogate pair starts a letter; the second half does not.
    if (code < 0xdc00 || code > 0xdfff) count += 1;
  }
  return count;
}

function isCounted(word: string): boolean {
  if (word.length < MIN_WORD_LETTERS || STOP_WORDS.has(word)) return false;
  // Only a short word can fall under the minimum because of letters taking two code units.
  return word.length >= 2 * MIN_WORD_LETTERS || letterCount(word) >= MIN_WORD_LETTERS;
}

/**
 * Word counts of texts. Runs of letters are counted as written first and lowercased once per
 * distinct spelling. Lowercasing can turn a letter into a letter and a mark (U+0130 becomes
 * i + U+0307), so the lowercased run is split into letter runs again. Counts of several sets
 * of texts add up to the counts of all of them: what the counts kept per day rely on.
 */
export function countWords(texts: Iterable<string>): Map<string, number> {
  const written = new RunCounter();
  for (const text of texts) scanWords(text, written);
  const counts = new Map<string, number>();
  for (const [run, count] of written.entries()) {
    for (const word of run.toLowerCase().match(WORD) ?? []) {
      if (isCounted(word)) counts.set(word, (counts.get(word) ?? 0) + count);
    }
  }
  return counts;
}

/** The texts of the window's posts outside the span its kept word counts cover. */
function uncountedTexts(prepared: PreparedWindow): string[] {
  const texts: string[] = [];
  const start = prepared.wordDays?.start ?? 0;
  const end = prepared.wordDays?.end ?? 0;
  for (const post of prepared.posts) {
    const createdAt = post.tweet.createdAt;
    if (createdAt < start || createdAt >= end) texts.push(post.tweet.text ?? '');
  }
  return texts;
}

/**
 * The words block: the most frequent words of the window's posts (lowercased, without URLs,
 * mentions, hashtags and stop words), most used first, then alphabetically; at most `limit`
 * (default 30).
 */
export function words(prepared: PreparedWindow, limit: number = WORDS_LIMIT): Words {
  const counts = countWords(uncountedTexts(prepared));
  for (const [word, count] of prepared.wordDays?.counts ?? []) {
    counts.set(word, (counts.get(word) ?? 0) + count);
  }
  return {
    words: [...counts]
      .map(([word, count]) => ({ word, count }))
      .sort((a, b) => b.count - a.count || compareText(a.word, b.word))
      .slice(0, limit),
  };
}

const DAY_MS = 86_400_000;

/**
 * The whole UTC days inside a window [start, end] (end included), as [start, end) in epoch ms,
 * or null when the window holds no whole day: the span whose word counts can be kept per day.
 */
export function wholeUtcDays(window: { start: number; end: number }): {
  start: number;
  end: number;
} | null {
  const start = Math.ceil(window.start / DAY_MS) * DAY_MS;
  const end = Math.floor((window.end + 1) / DAY_MS) * DAY_MS;
  return end > start ? { start, end } : null;
}
