/**
 * Deliveries when things go wrong, against the loopback Telegram and Discord fakes: floods after
 * downtime, outages, refused messages, moved chats. Each on SQLite and PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SourceTweet } from '../src/collector/sources/types.js';
import { DIALECTS, TestClient } from './helpers.js';
import {
  buildNotifyTestApp,
  handleFollowedBy,
  makeTweet,
  monitorFinds,
  outboxCounts,
  userWithChannels,
  waitUntil,
  type NotifyTestApp,
  type NotifyTestOptions,
} from './notify-helpers.js';

const MINUTE = 60_000;

/** Tweets created one minute apart, oldest first, ending now. */
function tweetsInOrder(count: number, extra: Partial<SourceTweet> = {}): SourceTweet[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, index) =>
    makeTweet({ createdAt: new Date(now - (count - index) * MINUTE).toISOString(), ...extra }),
  );
}

describe.each(DIALECTS)('deliveries under faults (%s)', (dialect) => {
  let t: NotifyTestApp;

  afterEach(async () => {
    await t?.close();
  });

  async function setUp(options: NotifyTestOptions = {}) {
    t = await buildNotifyTestApp(dialect, { fast: true, ...options });
  }

  /** One user with both channels connected and the bot running. */
  async function person(name = 'reader') {
    const chat = '700001';
    const discord = '82198898841029999';
    const { client, userId } = await userWithChannels(t, name, { telegram: chat, discord });
    const started = await client.post('/api/v1/bot/start');
    expect(started.statusCode, started.body).toBe(200);
    return { client: client as TestClient, userId, chat, discord };
  }

  it('more than NOTIFY_DIGEST_AFTER waiting notices of a handle go as one digest per chat', async () => {
    await setUp({ worker: { digestAfter: 5 } });
    const reader = await person();
    const busy = await handleFollowedBy(t, 'busy_author', [reader.userId]);
    const calm = await handleFollowedBy(t, 'calm_author', [reader.userId]);
    const flood = tweetsInOrder(8);
    const few = tweetsInOrder(2);
    // Queued while the worker was not running (an outage, a restart).
    await monitorFinds(t, busy, flood);
    await monitorFinds(t, calm, few);
    await t.worker.start();
    await waitUntil(async () => (await outboxCounts(t)).sent === 20, 15_000, 'every delivery');

    // Telegram: one digest for the 8, and the 2 of the calm handle one by one.
    const telegram = t.telegram.messagesTo(reader.chat);
    expect(telegram).toHaveLength(3);
    const digest = telegram.find((message) => message.text.includes('8 new posts'));
    expect(digest?.text).toContain('busy_author');
    for (const tweet of flood) expect(digest?.raw).toContain(`status/${tweet.id}`);
    // Discord: the same, as plain content.
    const discord = t.discord.messagesTo(reader.discord);
    expect(discord).toHaveLength(3);
    const discordDigest = discord.find((message) => message.content?.includes('8 new posts'));
    for (const tweet of flood) expect(discordDigest?.content).toContain(`status/${tweet.id}`);
    // Each row of the digest is sent, and says it went as part of one.
    const rows = await t.db.db
      .selectFrom('notification_outbox')
      .select(['status', 'digest_of', 'handle_id', 'channel'])
      .where('handle_id', '=', busy)
      .execute();
    expect(rows.every((row) => row.status === 'sent' && row.digest_of !== null)).toBe(true);
    expect(new Set(rows.filter((r) => r.channel === 'telegram').map((r) => r.digest_of)).size).toBe(
      1,
    );
  }, 30_000);
});
