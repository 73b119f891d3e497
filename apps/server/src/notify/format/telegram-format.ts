/**
 * A tweet as Telegram messages (docs/spec-notes.md, Telegram HTML), in HTML parse mode:
 *
 *     <b>X Developers</b> @XDevelopers
 *     Launch day! &lt;3
 *
 *     892 likes · 156 retweets · 23 replies · 12 quotes
 *     <a href="https://x.com/...">Open on X</a> · <a href="...">Video preview</a>
 *
 * - Every piece of text is escaped; tags are only ever written here, whole, so they balance.
 * - Text messages hold at most 4096 characters as Telegram counts them (after parsing, so tags
 *   and entities do not count). A longer tweet is split between lines, else between words; the
 *   author line opens the first part and the metrics and link close the last.
 * - One photo is a `photo`, 2-10 a `media_group` (photos past 10 are left out). When the whole
 *   notice does not fit in a 1024-character caption, the photos get a short caption (author and
 *   link) and the full notice follows as text message(s).
 * - A video or GIF is not uploaded: the text message links its preview still.
 */
import type { TweetNotice } from '../types.js';
import { metricsLine, takeChunk, truncate } from './notice-text.js';
import { escapeHtml } from './telegram-html.js';

/** Longest text message, in characters after entity parsing. */
export const TELEGRAM_TEXT_LIMIT = 4096;
/** Longest photo caption, in characters after entity parsing. */
export const TELEGRAM_CAPTION_LIMIT = 1024;
/** Most photos in one media group. */
export const TELEGRAM_MEDIA_GROUP_MAX = 10;
/** Display names are at most 50 characters on X; anything longer is cut here. */
const AUTHOR_NAME_MAX = 100;

/** One Telegram API call: sendMessage, sendPhoto or sendMediaGroup. */
export type TelegramOutgoing =
  | { kind: 'text'; html: string }
  | { kind: 'photo'; photoUrl: string; captionHtml: string }
  | { kind: 'media_group'; photoUrls: string[]; captionHtml: string };

/** HTML with the number of characters Telegram sees once the tags are parsed. */
interface Piece {
  html: string;
  length: number;
}

const text = (value: string): Piece => ({ html: escapeHtml(value), length: value.length });
const bold = (value: string): Piece => ({
  html: `<b>${escapeHtml(value)}</b>`,
  length: value.length,
});
const link = (label: string, href: string): Piece => ({
  html: `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`,
  length: label.length,
});
const join = (...pieces: Piece[]): Piece => ({
  html: pieces.map((p) => p.html).join(''),
  length: pieces.reduce((sum, p) => sum + p.length, 0),
});

function authorLine(notice: TweetNotice): Piece {
  const name = notice.authorName?.trim();
  return name
    ? join(bold(truncate(name, AUTHOR_NAME_MAX)), text(` @${notice.handle}`))
    : bold(`@${notice.handle}`);
}

function linkLine(notice: TweetNotice): Piece {
  const open = link('Open on X', notice.url);
  return notice.previewUrl
    ? join(open, text(' · '), link('Video preview', notice.previewUrl))
    : open;
}

interface Parts {
  header: Piece;
  body: string;
  footer: Piece;
}

function partsOf(notice: TweetNotice): Parts {
  return {
    header: authorLine(notice),
    body: notice.text.trim(),
    footer: join(text(metricsLine(notice)), text('\n'), linkLine(notice)),
  };
}

/** The whole notice as one piece of HTML, whatever its length. */
function whole({ header, body, footer }: Parts): Piece {
  return body === ''
    ? join(header, text('\n'), footer)
    : join(header, text('\n'), text(body), text('\n\n'), footer);
}

/** The whole notice in as many text messages as its length needs. */
function textMessages(parts: Parts): string[] {
  const all = whole(parts);
  if (all.length <= TELEGRAM_TEXT_LIMIT) return [all.html];

  const { header, footer } = parts;
  const gap = text('\n\n');
  const messages: string[] = [];
  let rest = parts.body;
  for (let first = true; rest !== ''; first = false) {
    const prefix = first ? join(header, text('\n')) : text('');
    const room = TELEGRAM_TEXT_LIMIT - prefix.length;
    if (rest.length + gap.length + footer.length <= room) {
      messages.push(join(prefix, text(rest), gap, footer).html);
      return messages;
    }
    // The rest would fit alone but not with the footer: leave some of it to go with the footer.
    const limit = rest.length <= room ? room - gap.length - footer.length : room;
    const { chunk, rest: after } = takeChunk(rest, limit);
    if (chunk !== '') messages.push(join(prefix, text(chunk)).html);
    rest = after;
  }
  messages.push(footer.html);
  return messages;
}

/** The messages that carry one tweet to a Telegram chat, in sending order. */
export function telegramMessages(notice: TweetNotice): TelegramOutgoing[] {
  const parts = partsOf(notice);
  const photos = notice.photoUrls.slice(0, TELEGRAM_MEDIA_GROUP_MAX);
  if (photos.length === 0) return textMessages(parts).map((html) => ({ kind: 'text', html }));

  const all = whole(parts);
  const fits = all.length <= TELEGRAM_CAPTION_LIMIT;
  const captionHtml = fits ? all.html : join(parts.header, text('\n'), linkLine(notice)).html;
  const media: TelegramOutgoing =
    photos.length === 1
      ? { kind: 'photo', photoUrl: photos[0]!, captionHtml }
      : { kind: 'media_group', photoUrls: photos, captionHtml };
  if (fits) return [media];
  return [media, ...textMessages(parts).map((html): TelegramOutgoing => ({ kind: 'text', html }))];
}
