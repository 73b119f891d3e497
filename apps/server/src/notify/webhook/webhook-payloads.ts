/**
 * The body a webhook sends, per preset:
 *
 * - `generic`: Perch's own JSON, described by docs/webhook-payload.schema.json (a test keeps the
 *   two in step): the post with its metrics, and for an alert the rule and the numbers that
 *   fired it;
 * - `slack`: a Slack incoming-webhook message: `text` (what the push notification shows) and
 *   Block Kit `blocks`; text escaped for Slack's mrkdwn (`&`, `<`, `>`), each section within
 *   Slack's 3,000 characters and at most 10 fields;
 * - `discord`: a Discord webhook message: the same embed as a Discord DM (discord-format.ts),
 *   `content` within 2,000 characters and mentions switched off, so a post saying @everyone
 *   pings no one.
 */
import type { WebhookPreset } from '@perch/shared';
import { discordMessage, escapeDiscordMarkdown } from '../format/discord-format.js';
import { metricsLine, profileUrl, truncate } from '../format/notice-text.js';
import type { DiscordEmbedMessage, TweetNotice } from '../types.js';

/** Longest Discord message content. */
export const DISCORD_CONTENT_LIMIT = 2000;
/** Longest text of a Slack section block (and of a context element). */
export const SLACK_SECTION_LIMIT = 3000;
/** Most fields in a Slack section block. */
export const SLACK_FIELDS_MAX = 10;
/** Longest Slack `text` we send: Slack cuts past 40,000, and push notifications show far less. */
export const SLACK_FALLBACK_LIMIT = 300;

/** What fired an alert on a post (the alert rules decide; this is how a webhook tells it). */
export interface WebhookAlert {
  /** The rule as its owner reads it ('likes over 1,000 within an hour'). */
  rule: string;
  firedAt: string;
  /** The numbers that fired it, by name ('likes': 1204, 'minutes': 42). */
  numbers: Record<string, number>;
}

/** What a webhook tells: a new post, or an alert on one. */
export type WebhookEvent =
  | { type: 'post'; notice: TweetNotice }
  | { type: 'alert'; notice: TweetNotice; alert: WebhookAlert };

/** The `generic` preset's body (docs/webhook-payload.schema.json). */
export interface GenericWebhookPayload {
  type: 'post' | 'alert';
  handle: string;
  post: {
    id: string;
    url: string;
    text: string;
    createdAt: string;
    metrics: { likes: number; retweets: number; replies: number; quotes: number };
  };
  alert?: WebhookAlert;
  sentAt: string;
}

export interface SlackWebhookPayload {
  text: string;
  blocks: Record<string, unknown>[];
}

export interface DiscordWebhookPayload extends DiscordEmbedMessage {
  content: string;
  allowed_mentions: { parse: never[] };
}

export type WebhookPayload = GenericWebhookPayload | SlackWebhookPayload | DiscordWebhookPayload;

export function genericPayload(event: WebhookEvent, sentAt: Date): GenericWebhookPayload {
  const { notice } = event;
  return {
    type: event.type,
    handle: notice.handle,
    post: {
      id: notice.tweetId,
      url: notice.url,
      text: notice.text,
      createdAt: notice.createdAt,
      metrics: {
        likes: notice.likes,
        retweets: notice.retweets,
        replies: notice.replies,
        quotes: notice.quotes,
      },
    },
    ...(event.type === 'alert' ? { alert: event.alert } : {}),
    sentAt: sentAt.toISOString(),
  };
}

/** '1,204' and '2.5': numbers as a person reads them. */
const formatNumber = (value: number) => value.toLocaleString('en-US');

/** 'likes 1,204 · minutes 42'. */
function numbersLine(numbers: Record<string, number>): string {
  return Object.entries(numbers)
    .map(([name, value]) => `${name} ${formatNumber(value)}`)
    .join(' · ');
}

/** Text shown as typed in Slack mrkdwn: only these three characters are control characters. */
export function escapeSlack(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A Slack link; the label escaped, and the URL kept from closing the link early. */
function slackLink(url: string, label: string): string {
  return `<${url.replace(/\|/g, '%7C').replace(/>/g, '%3E')}|${escapeSlack(label)}>`;
}

/**
 * Cuts text before escaping it, keeping the escaped form within `max`: an entity is never cut
 * in half, and the worst case (every character an `&amp;`) still fits.
 */
function slackText(value: string, max: number): string {
  let room = max;
  let escaped = escapeSlack(truncate(value, room));
  while (escaped.length > max) {
    room -= escaped.length - max;
    escaped = escapeSlack(truncate(value, room));
  }
  return escaped;
}

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });

export function slackPayload(event: WebhookEvent): SlackWebhookPayload {
  const { notice } = event;
  const author = slackLink(profileUrl(notice.handle), `@${notice.handle}`);
  const head = `*${author}*\n`;
  const blocks: Record<string, unknown>[] = [];
  if (event.type === 'alert') {
    const fields = Object.entries(event.alert.numbers)
      .slice(0, SLACK_FIELDS_MAX)
      .map(([name, value]) => mrkdwn(slackText(`${name}\n${formatNumber(value)}`, 2000)));
    blocks.push({
      type: 'section',
      text: mrkdwn(`*Alert:* ${slackText(event.alert.rule, SLACK_SECTION_LIMIT - 10)}`),
      ...(fields.length > 0 ? { fields } : {}),
    });
  }
  blocks.push(
    {
      type: 'section',
      text: mrkdwn(head + slackText(notice.text.trim(), SLACK_SECTION_LIMIT - head.length)),
    },
    {
      type: 'context',
      elements: [
        mrkdwn(`${escapeSlack(metricsLine(notice))} · ${slackLink(notice.url, 'Open on X')}`),
      ],
    },
  );
  const summary =
    event.type === 'alert'
      ? `Alert for @${notice.handle}: ${event.alert.rule}`
      : `New post from @${notice.handle}: ${notice.text.trim()}`;
  return { text: slackText(summary, SLACK_FALLBACK_LIMIT), blocks };
}

export function discordPayload(event: WebhookEvent): DiscordWebhookPayload {
  const message = discordMessage(event.notice);
  const handle = escapeDiscordMarkdown(`@${event.notice.handle}`);
  let content = message.content ?? `New post from ${handle}`;
  if (event.type === 'alert') {
    const numbers = numbersLine(event.alert.numbers);
    content = `Alert for ${handle}: ${escapeDiscordMarkdown(event.alert.rule)}`;
    if (numbers !== '') content += ` (${escapeDiscordMarkdown(numbers)})`;
  }
  return {
    ...message,
    content: truncate(content, DISCORD_CONTENT_LIMIT),
    allowed_mentions: { parse: [] },
  };
}

/** The body of `event` for an endpoint of `preset`, sent at `sentAt`. */
export function webhookPayload(
  preset: WebhookPreset,
  event: WebhookEvent,
  sentAt: Date,
): WebhookPayload {
  if (preset === 'slack') return slackPayload(event);
  if (preset === 'discord') return discordPayload(event);
  return genericPayload(event, sentAt);
}
