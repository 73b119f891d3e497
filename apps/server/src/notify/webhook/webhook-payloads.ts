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

/** What fired an alert (the alert rules decide; this is how a webhook tells it). */
export interface WebhookAlert {
  /** The rule's name, as its owner gave it. */
  rule: string;
  /** What happened, in one line (alerts/describe.ts). */
  summary: string;
  firedAt: string;
  /** The numbers that fired it, by name ('value': 1204, 'threshold': 1000). */
  numbers: Record<string, number>;
}

/**
 * What a webhook tells: a new post; an alert, on a post (post rules) or on the handle (followers,
 * silence: no post); or the Test button's request.
 */
export type WebhookEvent =
  | { type: 'post'; notice: TweetNotice }
  | { type: 'alert'; handle: string; notice: TweetNotice | null; alert: WebhookAlert }
  | { type: 'test' };

/** The `generic` preset's body (docs/webhook-payload.schema.json). */
export interface GenericWebhookPayload {
  type: WebhookEvent['type'];
  handle?: string;
  post?: {
    id: string;
    url: string;
    text: string;
    createdAt: string;
    metrics: { likes: number; retweets: number; replies: number; quotes: number };
  };
  alert?: WebhookAlert;
  sentAt: string;
}

/** The Test button's message, in every format. */
export const TEST_MESSAGE = 'Test from Perch: this webhook is set up correctly.';

export interface SlackWebhookPayload {
  text: string;
  blocks: Record<string, unknown>[];
}

export interface DiscordWebhookPayload extends DiscordEmbedMessage {
  content: string;
  allowed_mentions: { parse: never[] };
}

export type WebhookPayload = GenericWebhookPayload | SlackWebhookPayload | DiscordWebhookPayload;

const postOf = (notice: TweetNotice): NonNullable<GenericWebhookPayload['post']> => ({
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
});

export function genericPayload(event: WebhookEvent, sentAt: Date): GenericWebhookPayload {
  const base = { type: event.type, sentAt: sentAt.toISOString() };
  if (event.type === 'test') return base;
  if (event.type === 'post') {
    return {
      type: 'post',
      handle: event.notice.handle,
      post: postOf(event.notice),
      sentAt: base.sentAt,
    };
  }
  return {
    type: 'alert',
    handle: event.handle,
    ...(event.notice ? { post: postOf(event.notice) } : {}),
    alert: event.alert,
    sentAt: base.sentAt,
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
  if (event.type === 'test') {
    return { text: TEST_MESSAGE, blocks: [{ type: 'section', text: mrkdwn(TEST_MESSAGE) }] };
  }
  const handle = event.type === 'alert' ? event.handle : event.notice.handle;
  const notice = event.notice;
  const author = slackLink(profileUrl(handle), `@${handle}`);
  const head = `*${author}*\n`;
  const blocks: Record<string, unknown>[] = [];
  if (event.type === 'alert') {
    const fields = Object.entries(event.alert.numbers)
      .slice(0, SLACK_FIELDS_MAX)
      .map(([name, value]) => mrkdwn(slackText(`${name}\n${formatNumber(value)}`, 2000)));
    blocks.push({
      type: 'section',
      text: mrkdwn(
        slackText(`*Alert: ${event.alert.rule}*\n${event.alert.summary}`, SLACK_SECTION_LIMIT),
      ),
      ...(fields.length > 0 ? { fields } : {}),
    });
  }
  if (notice) {
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
  }
  const summary =
    event.type === 'alert'
      ? `Alert "${event.alert.rule}": ${event.alert.summary}`
      : `New post from @${handle}: ${event.notice.text.trim()}`;
  return { text: slackText(summary, SLACK_FALLBACK_LIMIT), blocks };
}

export function discordPayload(event: WebhookEvent): DiscordWebhookPayload {
  const quiet = { allowed_mentions: { parse: [] as never[] } };
  if (event.type === 'test') return { content: TEST_MESSAGE, embeds: [], ...quiet };
  const message: DiscordEmbedMessage = event.notice ? discordMessage(event.notice) : { embeds: [] };
  const handle = escapeDiscordMarkdown(
    `@${event.type === 'alert' ? event.handle : event.notice.handle}`,
  );
  let content = message.content ?? `New post from ${handle}`;
  if (event.type === 'alert') {
    const numbers = numbersLine(event.alert.numbers);
    content =
      `Alert "${escapeDiscordMarkdown(event.alert.rule)}" for ${handle}: ` +
      escapeDiscordMarkdown(event.alert.summary);
    if (numbers !== '') content += ` (${escapeDiscordMarkdown(numbers)})`;
  }
  return { ...message, content: truncate(content, DISCORD_CONTENT_LIMIT), ...quiet };
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
