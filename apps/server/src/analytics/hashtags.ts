import { HASHTAGS_LIMIT, type Hashtags } from '@perch/shared';
import { compareText } from './stats.js';
import type { PreparedWindow } from './window.js';

/** One tag (case-insensitive) with how its spellings are used. */
interface TagTally {
  /** Posts using the tag at least once. */
  posts: number;
  /** Occurrences of each spelling over all posts. */
  spellings: Map<string, Spelling>;
  /** The post that last counted (so a post counts once per tag). */
  lastPost: number;
}

/** One spelling of a tag and its occurrences. */
interface Spelling {
  tally: TagTally;
  uses: number;
}

/** A tag as written, without the leading '#' that some sources keep. */
function spellingOf(tag: string): string {
  return tag.startsWith('#') ? tag.slice(1) : tag;
}

/** The most used spelling; on equal use the lexicographically smallest (plain `<`). */
function displaySpelling(spellings: Map<string, Spelling>): string {
  let best = '';
  let bestCount = -1;
  for (const [spelling, { uses }] of spellings) {
    if (uses > bestCount || (uses === bestCount && spelling < best)) {
      best = spelling;
      bestCount = uses;
    }
  }
  return best;
}

/**
 * The hashtags block: posts per tag, case-insensitive, shown in the tag's most used spelling,
 * most used first, then by tag; at most `limit` (default 20).
 */
export function hashtags(prepared: PreparedWindow, limit: number = HASHTAGS_LIMIT): Hashtags {
  const tallies = new Map<string, TagTally>();
  /**
   * Each tag as written, resolved once to its spelling (null for a bare '#'): a window repeats
   * a few tags many times, so most occurrences cost one lookup and no lowercasing.
   */
  const written = new Map<string, Spelling | null>();
  const resolve = (raw: string): Spelling | null => {
    const spelling = spellingOf(raw);
    if (spelling === '') return null;
    const key = spelling.toLowerCase();
    let tally = tallies.get(key);
    if (!tally) {
      tally = { posts: 0, spellings: new Map(), lastPost: -1 };
      tallies.set(key, tally);
    }
    let entry = tally.spellings.get(spelling);
    if (!entry) {
      entry = { tally, uses: 0 };
      tally.spellings.set(spelling, entry);
    }
    return entry;
  };
  prepared.posts.forEach((post, postIndex) => {
    for (const raw of post.tweet.hashtags) {
      let spelling = written.get(raw);
      if (spelling === undefined) {
        spelling = resolve(raw);
        written.set(raw, spelling);
      }
      if (spelling === null) continue;
      const { tally } = spelling;
      if (tally.lastPost !== postIndex) {
        tally.posts += 1;
        tally.lastPost = postIndex;
      }
      spelling.uses += 1;
    }
  });
  const ranked = [...tallies.values()]
    .map((tally) => ({ tag: displaySpelling(tally.spellings), count: tally.posts }))
    .sort((a, b) => b.count - a.count || compareText(a.tag, b.tag));
  return { hashtags: ranked.slice(0, limit) };
}
