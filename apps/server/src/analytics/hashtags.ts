import { HASHTAGS_LIMIT, type Hashtags } from '@perch/shared';
import { compareText } from './stats.js';
import type { PreparedWindow } from './window.js';

/** One tag (case-insensitive) with how its spellings are used. */
interface TagTally {
  /** Posts using the tag at least once. */
  posts: number;
  /** Occurrences of each spelling over all posts. */
  spellings: Map<string, number>;
  /** The post that last counted (so a post counts once per tag). */
  lastPost: number;
}

/** A tag as written, without the leading '#' that some sources keep. */
function spellingOf(tag: string): string {
  return tag.startsWith('#') ? tag.slice(1) : tag;
}

/** The most used spelling; on equal use the lexicographically smallest (plain `<`). */
function displaySpelling(spellings: Map<string, number>): string {
  let best = '';
  let bestCount = -1;
  for (const [spelling, count] of spellings) {
    if (count > bestCount || (count === bestCount && spelling < best)) {
      best = spelling;
      bestCount = count;
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
  prepared.posts.forEach((post, postIndex) => {
    for (const raw of post.tweet.hashtags) {
      const spelling = spellingOf(raw);
      if (spelling === '') continue;
      const key = spelling.toLowerCase();
      let tally = tallies.get(key);
      if (!tally) {
        tally = { posts: 0, spellings: new Map(), lastPost: -1 };
        tallies.set(key, tally);
      }
      if (tally.lastPost !== postIndex) {
        tally.posts += 1;
        tally.lastPost = postIndex;
      }
      tally.spellings.set(spelling, (tally.spellings.get(spelling) ?? 0) + 1);
    }
  });
  const ranked = [...tallies.values()]
    .map((tally) => ({ tag: displaySpelling(tally.spellings), count: tally.posts }))
    .sort((a, b) => b.count - a.count || compareText(a.tag, b.tag));
  return { hashtags: ranked.slice(0, limit) };
}
