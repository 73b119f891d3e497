import { demoTweets, type DemoTweet } from './notify-fakes';

/**
 * A word for a "Post mentions words" alert that exactly one coming demo post holds. The demo
 * source is a pure function of handle and time, so its next posts are known in advance
 * (notify-fakes.ts): a word of one of them that no other post of the stretch contains fires the
 * rule on that post alone.
 */

export interface WordTarget {
  /** Lower case, letters only. */
  word: string;
  /** The one post of the stretch that holds it. */
  post: DemoTweet;
}

/** Words of a post that read as words: no hashtags, mentions or links, five letters or more. */
function plainWords(text: string): string[] {
  return text
    .split(/\s+/)
    .filter((token) => !/^[#@]/.test(token) && !token.includes('/'))
    .map((token) => token.replace(/^[^A-Za-z]+|[^A-Za-z]+$/g, '').toLowerCase())
    .filter((word) => /^[a-z]{5,}$/.test(word));
}

export interface WordTargetWindow {
  /** Epoch ms from which posts count (the rule watches posts from its creation on). */
  from: number;
  /** The post must come between these two instants (epoch ms). */
  earliest: number;
  latest: number;
  /** How long after the post no other post may hold the word, ms (the rest of the journey). */
  quietMs: number;
}

/**
 * The first post of `handle` between `earliest` and `latest` with a word that no other post from
 * `from` to `quietMs` after it contains anywhere in its text (a substring test, stricter than
 * the whole-word match of the rule); null when there is none.
 */
export async function pickWordTarget(
  handle: string,
  { from, earliest, latest, quietMs }: WordTargetWindow,
): Promise<WordTarget | null> {
  const posts = await demoTweets(handle, from, latest + quietMs);
  for (const post of posts) {
    if (post.at < earliest) continue;
    if (post.at > latest) break;
    const others = posts
      .filter((other) => other !== post && other.at <= post.at + quietMs)
      .map((other) => other.text.toLowerCase());
    const word = plainWords(post.text).find((w) => others.every((text) => !text.includes(w)));
    if (word) return { word, post };
  }
  return null;
}

/**
 * Of `handles`, the one whose word target (pickWordTarget with `window`) comes first, with that
 * target; null when none has one.
 */
export async function pickWordHandle(
  handles: readonly string[],
  window: WordTargetWindow,
): Promise<{ handle: string; target: WordTarget } | null> {
  let best: { handle: string; target: WordTarget } | null = null;
  for (const handle of handles) {
    const target = await pickWordTarget(handle, window);
    if (target && (!best || target.post.at < best.target.post.at)) best = { handle, target };
  }
  return best;
}
