/**
 * The two messages a notice becomes when the usual one will not do, for either service:
 *
 * - Fallback: the service refused the message itself (a photo URL it cannot fetch, a caption
 *   too long, Discord 50035): the same notice as plain text with the link, no media, no embed,
 *   no formatting that could be refused in turn.
 * - Digest: more than NOTIFY_DIGEST_AFTER notices of one handle waited for one chat (after an
 *   outage): one message listing them in posting order, each with its start and link, instead
 *   of a flood.
 *
 * Telegram's text is HTML with every piece escaped (sent with parse_mode HTML, 4096 limit);
 * Discord's is `content` (2000 limit) with links in angle brackets, so no previews pile up.
 */
import type { NotificationChannel } from '../../db/types.js';
import { comparePostingOrder } from '../../lib/posting-order.js';
import type { DiscordEmbedMessage, TweetNotice } from '../types.js';
import { escapeDiscordMarkdown } from './discord-format.js';
import { truncate } from './notice-text.js';
import { escapeHtml } from './telegram-html.js';

const TELEGRAM_LIMIT = 4096;
const DISCORD_CONTENT_LIMIT = 2000;
/** Characters of each tweet a digest shows. */
const DIGEST_SNIPPET = 90;

export type PlainMessage =
  { channel: 'telegram'; html: string } | { channel: 'discord'; message: DiscordEmbedMessage };

const who = (notice: TweetNotice) =>
  notice.authorName ? `${notice.authorName} (@${notice.handle})` : `@${notice.handle}`;

/** One line of text: white space (new lines included) folded into single spaces. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The notice as plain text with the link: what is sent when the usual message is refused. */
export function fallbackMessage(channel: NotificationChannel, notice: TweetNotice): PlainMessage {
  if (channel === 'telegram') {
    const head = `New post by ${who(notice)}\n\n`;
    const tail = `\n\n${notice.url}`;
    const room = TELEGRAM_LIMIT - escapeHtml(head + tail).length;
    // Escaping can only lengthen text: cut the escaped form so no entity is split.
    let body = escapeHtml(truncate(notice.text, room));
    while (body.length > room)
      body = escapeHtml(truncate(notice.text, room - (body.length - room)));
    return { channel, html: `${escapeHtml(head)}${body}${escapeHtml(tail)}` };
  }
  const head = `New post by ${escapeDiscordMarkdown(who(notice))}\n`;
  const tail = `\n<${notice.url}>`;
  const room = DISCORD_CONTENT_LIMIT - head.length - tail.length;
  const body = truncate(escapeDiscordMarkdown(notice.text), room);
  return { channel, message: { content: `${head}${body}${tail}`, embeds: [] } };
}

/** A notice's place in posting order (lib/posting-order.ts). */
const postingKey = (notice: TweetNotice) => ({ createdAt: notice.createdAt, id: notice.tweetId });

/**
 * One message for several notices of one handle, in posting order (oldest first, posts of one
 * second by id), whatever order they come in. Lines that would not fit are counted at the end
 * ('and 3 more'); the caller keeps each digest to a size that fits.
 */
export function digestMessage(
  channel: NotificationChannel,
  unordered: readonly TweetNotice[],
): PlainMessage {
  const notices = [...unordered].sort((a, b) => comparePostingOrder(postingKey(a), postingKey(b)));
  const first = notices[0];
  const title = first
    ? `${notices.length} new posts by ${who(first)} while notifications were held up:`
    : '';
  const limit = channel === 'telegram' ? TELEGRAM_LIMIT : DISCORD_CONTENT_LIMIT;
  const lines: string[] = [];
  let used = 0;
  const headText =
    channel === 'telegram' ? `<b>${escapeHtml(title)}</b>` : `**${escapeDiscordMarkdown(title)}**`;
  used = headText.length;
  let shown = 0;
  for (const notice of notices) {
    const snippet = truncate(oneLine(notice.text), DIGEST_SNIPPET);
    const line =
      channel === 'telegram'
        ? `• ${escapeHtml(snippet)} — <a href="${escapeHtml(notice.url)}">open</a>`
        : `• ${escapeDiscordMarkdown(snippet)} — <${notice.url}>`;
    // Room for this line, its break, and a closing 'and N more' line.
    if (used + line.length + 1 + 40 > limit) break;
    lines.push(line);
    used += line.length + 1;
    shown += 1;
  }
  if (shown < notices.length) lines.push(`…and ${notices.length - shown} more`);
  const text = [headText, ...lines].join('\n');
  return channel === 'telegram'
    ? { channel, html: text }
    : { channel, message: { content: text, embeds: [] } };
}
