import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { discordMessageErrors } from '../../../test/fakes/fake-discord-server.js';
import { makeNotice as notice } from '../../../test/factories.js';
import { schemaErrors } from '../../../test/json-schema-subset.js';
import {
  DISCORD_CONTENT_LIMIT,
  SLACK_FALLBACK_LIMIT,
  SLACK_FIELDS_MAX,
  SLACK_SECTION_LIMIT,
  webhookPayload,
  type SlackWebhookPayload,
  type WebhookAlert,
  type WebhookEvent,
} from './webhook-payloads.js';

const SCHEMA = JSON.parse(
  fs.readFileSync(
    new URL('../../../../../docs/webhook-payload.schema.json', import.meta.url),
    'utf8',
  ),
) as Record<string, unknown>;
const SENT_AT = new Date('2026-11-29T10:00:00.000Z');
const ALERT: WebhookAlert = {
  rule: 'likes over 500 within an hour',
  summary: 'A post by @XDevelopers reached 892 likes within 1 hour (threshold 500).',
  firedAt: '2026-11-29T09:59:58.000Z',
  numbers: { likes: 892, minutes: 42 },
};
const post: WebhookEvent = { type: 'post', notice: notice() };
const alert: WebhookEvent = {
  type: 'alert',
  handle: 'XDevelopers',
  notice: notice(),
  alert: ALERT,
};
/** A handle rule's alert: no post. */
const handleAlert: WebhookEvent = {
  type: 'alert',
  handle: 'XDevelopers',
  notice: null,
  alert: {
    rule: 'followers jump',
    summary: '@XDevelopers gained 120 followers (+12%) within 24 hours: 1,000 → 1,120.',
    firedAt: '2026-11-29T09:59:58.000Z',
    numbers: { followers: 1120, followers_before: 1000, change: 120 },
  },
};
const test: WebhookEvent = { type: 'test' };
/** A post that stretches every limit: long, full of the characters each format escapes. */
const huge = notice({ text: '<&>*_@everyone '.repeat(2000), handle: 'a_b' });

describe('generic payload', () => {
  it('is the documented shape', () => {
    expect(webhookPayload('generic', post, SENT_AT)).toEqual({
      type: 'post',
      handle: 'XDevelopers',
      post: {
        id: '1524796546306478083',
        url: 'https://x.com/XDevelopers/status/1524796546306478083',
        text: 'Launch day! #DevsInTheDetails',
        createdAt: '2022-05-12T17:00:00.000Z',
        metrics: { likes: 892, retweets: 156, replies: 23, quotes: 12 },
      },
      sentAt: '2026-11-29T10:00:00.000Z',
    });
    expect(webhookPayload('generic', alert, SENT_AT)).toMatchObject({
      type: 'alert',
      alert: ALERT,
    });
  });

  it.each([
    ['a post', post],
    ['an alert', alert],
    ['a huge post', { type: 'post', notice: huge } as const],
    ['an alert without numbers', { ...alert, alert: { ...ALERT, numbers: {} } }],
    ['an alert on the handle (no post)', handleAlert],
    ['the Test button', test],
  ])('validates against docs/webhook-payload.schema.json: %s', (_case, event) => {
    expect(schemaErrors(SCHEMA, webhookPayload('generic', event, SENT_AT))).toEqual([]);
  });

  it.each([
    ['a post with an alert', { ...webhookPayload('generic', post, SENT_AT), alert: ALERT }],
    ['an alert without one', { ...webhookPayload('generic', post, SENT_AT), type: 'alert' }],
    ['a field the schema does not know', { ...webhookPayload('generic', post, SENT_AT), x: 1 }],
    ['a malformed post and date', { type: 'post', handle: 'a', post: {}, sentAt: 'yesterday' }],
    ['a post without its post', { type: 'post', handle: 'a', sentAt: SENT_AT.toISOString() }],
    ['a test with a handle', { type: 'test', handle: 'a', sentAt: SENT_AT.toISOString() }],
  ])('the schema refuses %s', (_case, payload) => {
    expect(schemaErrors(SCHEMA, payload)).not.toEqual([]);
  });
});

describe('slack payload', () => {
  it('has a fallback text and blocks linking the author and the post', () => {
    const payload = webhookPayload('slack', post, SENT_AT) as SlackWebhookPayload;
    expect(payload.text).toBe('New post from @XDevelopers: Launch day! #DevsInTheDetails');
    expect(payload.blocks).toEqual([
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: '*<https://x.com/XDevelopers|@XDevelopers>*\nLaunch day! #DevsInTheDetails',
        },
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: '892 likes · 156 retweets · 23 replies · 12 quotes · <https://x.com/XDevelopers/status/1524796546306478083|Open on X>',
          },
        ],
      },
    ]);
  });

  it('opens an alert with its rule and numbers as fields', () => {
    const payload = webhookPayload('slack', alert, SENT_AT) as SlackWebhookPayload;
    expect(payload.text).toBe(
      'Alert "likes over 500 within an hour": A post by @XDevelopers reached 892 likes within 1 hour (threshold 500).',
    );
    expect(payload.blocks[0]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: '*Alert: likes over 500 within an hour*\nA post by @XDevelopers reached 892 likes within 1 hour (threshold 500).',
      },
      fields: [
        { type: 'mrkdwn', text: 'likes\n892' },
        { type: 'mrkdwn', text: 'minutes\n42' },
      ],
    });
  });

  it('escapes and cuts text within Slack limits', () => {
    const many = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`n${i}`, i]));
    const event: WebhookEvent = {
      type: 'alert',
      handle: 'a_b',
      notice: huge,
      alert: { ...ALERT, rule: '<!channel> & '.repeat(500), numbers: many },
    };
    const payload = webhookPayload('slack', event, SENT_AT) as SlackWebhookPayload;
    expect(payload.text.length).toBeLessThanOrEqual(SLACK_FALLBACK_LIMIT);
    const texts = payload.blocks.flatMap((block) => [
      (block.text as { text: string } | undefined)?.text ?? '',
      ...((block.elements ?? []) as { text: string }[]).map((e) => e.text),
    ]);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(SLACK_SECTION_LIMIT);
    expect(payload.blocks[0]!.fields).toHaveLength(SLACK_FIELDS_MAX);
    expect(texts.join('')).not.toContain('<!channel>');
    expect(payload.blocks[1]!.text).toMatchObject({
      text: expect.stringContaining('&lt;&amp;&gt;'),
    });
    // An entity is never cut in half.
    expect(texts.join('')).not.toMatch(/&(a|am|l|g|lt|gt|amp)?…/);
  });
});

describe('discord payload', () => {
  it('is the DM embed with mentions switched off', () => {
    const payload = webhookPayload('discord', post, SENT_AT);
    expect(payload).toMatchObject({
      content: 'New post from @XDevelopers',
      allowed_mentions: { parse: [] },
      embeds: [{ title: 'Open on X', url: notice().url }],
    });
  });

  it('tells an alert in the content', () => {
    expect(webhookPayload('discord', alert, SENT_AT)).toMatchObject({
      content:
        'Alert "likes over 500 within an hour" for @XDevelopers: A post by @XDevelopers reached ' +
        '892 likes within 1 hour (threshold 500). (likes 892 · minutes 42)',
    });
  });

  it('tells a handle alert and the Test button without an embed', () => {
    expect(webhookPayload('discord', handleAlert, SENT_AT)).toMatchObject({
      content: expect.stringContaining('gained 120 followers'),
      embeds: [],
    });
    expect(webhookPayload('discord', test, SENT_AT)).toMatchObject({
      content: expect.stringContaining('Test from Perch'),
    });
    expect(webhookPayload('slack', handleAlert, SENT_AT)).toMatchObject({
      blocks: [{ type: 'section' }],
    });
  });

  it.each([
    ['a huge post', { type: 'post', notice: huge } as WebhookEvent],
    [
      'a huge alert',
      {
        type: 'alert',
        handle: 'a_b',
        notice: huge,
        alert: { ...ALERT, rule: 'x'.repeat(5000) },
      } as WebhookEvent,
    ],
  ])('keeps Discord limits: %s', (_case, event) => {
    const payload = webhookPayload('discord', event, SENT_AT) as { content: string };
    expect(payload.content.length).toBeLessThanOrEqual(DISCORD_CONTENT_LIMIT);
    expect(discordMessageErrors(payload as unknown as Record<string, unknown>)).toBeNull();
  });
});
