/**
 * A tweet as one Discord message with one embed (docs/spec-notes.md, Discord):
 *
 * - author `X Developers (@XDevelopers)` linking the profile; title 'Open on X' linking the post;
 * - description: the tweet text, Markdown characters escaped (outside links) so it reads as
 *   posted, cut to 4096 characters with an ellipsis;
 * - timestamp of the post, image (first photo, else the video's preview still), footer metrics;
 * - `content` repeats who posted, for the push notification, which does not show embeds.
 *
 * Every limit is kept: title 256, description 4096, author name 256, footer 2048, and 6000 for
 * all of them together; content 2000.
 */
import type { DiscordEmbedMessage, TweetNotice } from '../types.js';
import { metricsLine, profileUrl, truncate } from './notice-text.js';

export const DISCORD_DESCRIPTION_LIMIT = 4096;
export const DISCORD_EMBED_TOTAL_LIMIT = 6000;
const AUTHOR_NAME_LIMIT = 256;
const FOOTER_LIMIT = 2048;
/** Twitter's colour, as the embed's side bar. */
const X_BLUE = 0x1da1f2;

const URL_RE = /https?:\/\/\S+/g;

/**
 * Escapes Discord Markdown so text shows as typed: `@some_user_x` stays upright, `*` stays a
 * star. Links are left alone (Discord would show the backslashes inside them).
 */
export function escapeDiscordMarkdown(value: string): string {
  const escape = (plain: string) =>
    plain
      .replace(/[\\*_~`|[\]]/g, '\\$&')
      // Quote, heading and list markers only mean something at the start of a line.
      .replace(/^(\s*)([>#-])/gm, '$1\\$2');
  let out = '';
  let last = 0;
  for (const match of value.matchAll(URL_RE)) {
    out += escape(value.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return out + escape(value.slice(last));
}

/** Cuts escaped text without leaving a lone backslash that would escape the ellipsis. */
function truncateEscaped(value: string, max: number): string {
  const cut = truncate(value, max);
  if (cut === value) return cut;
  const body = cut.slice(0, -1);
  const trailing = /\\+$/.exec(body)?.[0].length ?? 0;
  return trailing % 2 === 1 ? `${body.slice(0, -1)}…` : cut;
}

/** The Discord message for one tweet. */
export function discordMessage(notice: TweetNotice): DiscordEmbedMessage {
  const name = notice.authorName?.trim();
  const authorName = truncate(
    name ? `${name} (@${notice.handle})` : `@${notice.handle}`,
    AUTHOR_NAME_LIMIT,
  );
  const title = 'Open on X';
  const footer = truncate(metricsLine(notice), FOOTER_LIMIT);
  const room = Math.min(
    DISCORD_DESCRIPTION_LIMIT,
    DISCORD_EMBED_TOTAL_LIMIT - authorName.length - title.length - footer.length,
  );
  const description = truncateEscaped(escapeDiscordMarkdown(notice.text.trim()), room);
  const imageUrl = notice.photoUrls[0] ?? notice.previewUrl;
  return {
    content: `New post from ${escapeDiscordMarkdown(`@${notice.handle}`)}`,
    embeds: [
      {
        title,
        url: notice.url,
        author: { name: authorName, url: profileUrl(notice.handle) },
        ...(description === '' ? {} : { description }),
        timestamp: notice.createdAt,
        color: X_BLUE,
        ...(imageUrl ? { image: { url: imageUrl } } : {}),
        footer: { text: footer },
      },
    ],
  };
}
