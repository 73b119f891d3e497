/**
 * Text pieces every notification uses, whatever the service: the metrics line, the X profile
 * link, and cutting text to a length. Lengths are UTF-16 code units (`string.length`): never
 * fewer than the characters Telegram and Discord count, so a limit kept here is kept there.
 */
import type { TweetNotice } from '../types.js';

const count = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** '892 likes · 156 retweets · 23 replies · 12 quotes'. */
export function metricsLine(notice: TweetNotice): string {
  return [
    count(notice.likes, 'like', 'likes'),
    count(notice.retweets, 'retweet', 'retweets'),
    count(notice.replies, 'reply', 'replies'),
    count(notice.quotes, 'quote', 'quotes'),
  ].join(' · ');
}

/** The author's profile on X. */
export function profileUrl(handle: string): string {
  return `https://x.com/${encodeURIComponent(handle)}`;
}

/** Where a cut at `max` code units falls without splitting a surrogate pair. */
function safeCut(text: string, max: number): number {
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/** `text` if it fits in `max`, else its start with an ellipsis, `max` long at most. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  return `${text.slice(0, safeCut(text, max - 1)).trimEnd()}…`;
}

/**
 * Splits off the start of `text`, at most `limit` long: at the last line break in the second
 * half of the window, else at the last space there, else (one long word) at the limit. The
 * break itself is dropped, and so is white space at the start of the rest.
 */
export function takeChunk(text: string, limit: number): { chunk: string; rest: string } {
  if (text.length <= limit) return { chunk: text, rest: '' };
  const least = Math.floor(limit / 2);
  let cut = text.lastIndexOf('\n', limit);
  if (cut < least) cut = Math.max(text.lastIndexOf(' ', limit), text.lastIndexOf('\t', limit));
  const atBreak = cut >= least && cut > 0;
  const end = atBreak ? cut : safeCut(text, limit);
  return {
    chunk: text.slice(0, end).trimEnd(),
    rest: text.slice(atBreak ? end + 1 : end).replace(/^\s+/, ''),
  };
}
