import type { Languages } from '@perch/shared';
import { compareText } from './stats.js';
import type { PreparedWindow } from './window.js';

/** The code of posts whose language is missing ("undetermined", as X itself says). */
const UNDETERMINED = 'und';

/** The languages block: posts per language with their share, most used first, then by code. */
export function languages(prepared: PreparedWindow): Languages {
  const counts = new Map<string, number>();
  for (const { tweet } of prepared.posts) {
    const lang = tweet.lang || UNDETERMINED;
    counts.set(lang, (counts.get(lang) ?? 0) + 1);
  }
  const total = prepared.posts.length;
  return {
    languages: [...counts]
      .map(([lang, count]) => ({ lang, count, percentage: (count / total) * 100 }))
      .sort((a, b) => b.count - a.count || compareText(a.lang, b.lang)),
  };
}
