/**
 * An alert as a Telegram or Discord message: the rule's name, what happened (alerts/describe.ts),
 * and for a post rule the post's start and link. Plain text with links only, like the fallback
 * messages, so nothing in it can be refused for its formatting.
 */
import { alertKindSchema, describeFiring } from '@perch/shared';
import type { NotificationChannel } from '../../db/types.js';
import type { TweetNotice } from '../types.js';
import { escapeDiscordMarkdown } from './discord-format.js';
import type { PlainMessage } from './fallback-format.js';
import { profileUrl, truncate } from './notice-text.js';
import { escapeHtml } from './telegram-html.js';

/** What an alert delivery tells, read when it is sent. */
export interface AlertNotice {
  handle: string;
  ruleName: string;
  /** One line: what happened. */
  summary: string;
  firedAt: string;
  numbers: Record<string, number>;
  /** The post a post rule fired on, with its current numbers; null for handle rules. */
  post: TweetNotice | null;
}

/**
 * A stored firing's numbers and its one-line summary, from the JSON its rule's kind and numbers
 * are stored as (the rule's name when the stored kind no longer reads).
 */
export function storedFiring(
  handle: string,
  stored: { rule_name: string; kind: string; numbers: string },
): { numbers: Record<string, number>; summary: string } {
  const kind = alertKindSchema.safeParse(JSON.parse(stored.kind));
  const numbers = JSON.parse(stored.numbers) as Record<string, number>;
  return {
    numbers,
    summary: kind.success ? describeFiring(handle, kind.data, numbers) : stored.rule_name,
  };
}

/** Characters of the post an alert quotes. */
const POST_SNIPPET = 280;
const DISCORD_CONTENT_LIMIT = 2000;

export function alertMessage(channel: NotificationChannel, alert: AlertNotice): PlainMessage {
  const link = alert.post?.url ?? profileUrl(alert.handle);
  const snippet = alert.post ? truncate(alert.post.text.trim(), POST_SNIPPET) : null;
  if (channel === 'telegram') {
    const lines = [`🔔 <b>${escapeHtml(alert.ruleName)}</b>`, escapeHtml(alert.summary)];
    if (snippet) lines.push('', `<i>${escapeHtml(snippet)}</i>`);
    lines.push(
      '',
      `<a href="${escapeHtml(link)}">${alert.post ? 'Open the post' : 'Open the profile'}</a>`,
    );
    return { channel, html: lines.join('\n') };
  }
  const lines = [
    `🔔 **${escapeDiscordMarkdown(alert.ruleName)}**`,
    escapeDiscordMarkdown(alert.summary),
  ];
  if (snippet) lines.push(`> ${escapeDiscordMarkdown(snippet).replace(/\n/g, '\n> ')}`);
  lines.push(`<${link}>`);
  return {
    channel,
    message: { content: truncate(lines.join('\n'), DISCORD_CONTENT_LIMIT), embeds: [] },
  };
}
