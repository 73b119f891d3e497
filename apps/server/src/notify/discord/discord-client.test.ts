/**
 * The Discord client against the loopback fake API (real HTTP, no mocks of our code): headers,
 * DM channel caching, every error mapping, bucket and global rate limits.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startFakeDiscordServer,
  type FakeDiscordServer,
} from '../../../test/fakes/fake-discord-server.js';
import { createLocalCluster } from '../../cluster/cluster.js';
import { clusterDmChannelStore } from '../channels.js';
import { discordMessage } from '../format/discord-format.js';
import { SERVICE_WINDOW_MS } from '../rate-gate.js';
import { type DeliveryErrorKind, type DiscordEmbedMessage } from '../types.js';
import {
  DISCORD_BAD_TOKEN,
  DISCORD_DMS_CLOSED,
  DISCORD_MALFORMED,
  DISCORD_NO_ACCESS,
  DISCORD_NOT_SET_UP,
  DISCORD_UNKNOWN_USER,
  createDiscordClient,
  type DiscordClientOptions,
} from './discord-client.js';
import { deliveryFailure as failure } from '../../../test/assertions.js';

let fake: FakeDiscordServer;

beforeEach(async () => {
  fake = await startFakeDiscordServer();
});
afterEach(() => fake.close());

const ANN = '82198898841029460';
const BOB = '82198898841029461';
const hello: DiscordEmbedMessage = { embeds: [{ description: 'hello' }] };

const client = (options: Partial<DiscordClientOptions> = {}) =>
  createDiscordClient({ token: fake.token, baseUrl: fake.baseUrl, ...options });

const statuses = () => fake.requests.map((r) => r.status);

describe('discord client', () => {
  it('opens the DM and posts with the bot token, JSON and a Discord user agent', async () => {
    const discord = client({ baseUrl: `${fake.baseUrl}/` });
    expect(discord.available).toBe(true);
    const channelId = await discord.openDm(ANN);
    expect(channelId).toBe(fake.dmChannelOf(ANN));
    const messageId = await discord.send(channelId, hello);
    expect(messageId).toBe(fake.messages[0]!.id);
    expect(fake.requests).toMatchObject([
      {
        method: 'POST',
        path: '/api/v10/users/@me/channels',
        authorization: `Bot ${fake.token}`,
        contentType: 'application/json',
        userAgent: 'DiscordBot (https://github.com/perch, 0.1)',
        status: 200,
      },
      { method: 'POST', path: `/api/v10/channels/${channelId}/messages`, status: 200 },
    ]);
    expect(fake.messagesTo(ANN)).toMatchObject([
      { channelId, embeds: [{ description: 'hello' }], allowedMentions: { parse: [] } },
    ]);
  });

  it('opens a DM once per user, even for concurrent sends', async () => {
    const discord = client();
    const [a, b] = await Promise.all([discord.openDm(ANN), discord.openDm(ANN)]);
    expect(a).toBe(b);
    expect(await discord.openDm(ANN)).toBe(a);
    expect(await discord.openDm(BOB)).not.toBe(a);
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/api/v10/users/@me/channels',
      '/api/v10/users/@me/channels',
    ]);
  });

  it('delivers a formatted 5,000-character tweet within every Discord limit', async () => {
    const discord = client();
    const message = discordMessage({
      handle: 'XDevelopers',
      authorName: 'X Developers',
      tweetId: '1',
      text: `<b>&"' ${'x'.repeat(5000)}`,
      url: 'https://x.com/XDevelopers/status/1',
      createdAt: '2022-05-12T17:00:00.000Z',
      likes: 1,
      retweets: 2,
      replies: 3,
      quotes: 4,
      photoUrls: ['https://pbs.twimg.com/media/a.jpg'],
      previewUrl: null,
    });
    await discord.send(await discord.openDm(ANN), message);
    const [sent] = fake.messagesTo(ANN);
    expect(sent!.embeds[0]).toMatchObject({
      author: { name: 'X Developers (@XDevelopers)' },
      image: { url: 'https://pbs.twimg.com/media/a.jpg' },
      footer: { text: '1 like · 2 retweets · 3 replies · 4 quotes' },
    });
    expect(String(sent!.embeds[0]!.description).startsWith(`<b>&"' xxx`)).toBe(true);
  });

  it('is unavailable without a token and refuses every call without a request', async () => {
    const discord = createDiscordClient({ token: undefined, baseUrl: fake.baseUrl });
    expect(discord.available).toBe(false);
    expect((await failure(discord.openDm(ANN), 'permanent')).reason).toBe(DISCORD_NOT_SET_UP);
    expect((await failure(discord.send('1', hello), 'permanent')).reason).toBe(DISCORD_NOT_SET_UP);
    expect(fake.requests).toEqual([]);
  });

  it('reports a user whose DMs are closed, or who shares no server, as permanent', async () => {
    const discord = client();
    fake.setUser(ANN, 'dms_closed');
    const closed = await failure(discord.send(await discord.openDm(ANN), hello), 'permanent');
    expect(closed.reason).toBe(DISCORD_DMS_CLOSED);
    expect(closed.message).toBe('Discord: Cannot send messages to this user (50007)');
    fake.setUser(BOB, 'no_mutual_guild');
    const noGuild = await failure(discord.send(await discord.openDm(BOB), hello), 'permanent');
    expect(noGuild.reason).toBe(DISCORD_DMS_CLOSED);
  });

  it('reports an unknown user, or something that is not a user id, as permanent', async () => {
    const discord = client();
    fake.setUser(ANN, 'unknown');
    const unknown = await failure(discord.openDm(ANN), 'permanent');
    expect(unknown.reason).toBe(DISCORD_UNKNOWN_USER);
    expect(unknown.message).toBe('Discord: Unknown User (10013)');
    const garbage = await failure(discord.openDm('@ann'), 'permanent');
    expect(garbage.reason).toBe(DISCORD_UNKNOWN_USER);
    expect(fake.requests).toHaveLength(1);
  });

  it('stops using a refused token after the first 401', async () => {
    const discord = createDiscordClient({ token: 'wrong', baseUrl: fake.baseUrl });
    const first = await failure(discord.openDm(ANN), 'permanent');
    expect(first.reason).toBe(DISCORD_BAD_TOKEN);
    expect(first.message).toBe('Discord: 401: Unauthorized');
    const second = await failure(discord.openDm(BOB), 'permanent');
    expect(second.reason).toBe(DISCORD_BAD_TOKEN);
    expect(fake.requests).toHaveLength(1);
  });

  it('reports an invalid form body as a message error, with the error tree for the log', async () => {
    const discord = client();
    const channelId = await discord.openDm(ANN);
    const error = await failure(
      discord.send(channelId, {
        embeds: [{ description: 'd'.repeat(4097), title: 't'.repeat(300) }],
      }),
      'message',
    );
    expect(error.message).toBe(
      'Discord: Invalid Form Body (50035): embeds.0.title: Must be 256 or fewer in length.; embeds.0.description: Must be 4096 or fewer in length.',
    );
    expect(error.reason).toBe(DISCORD_MALFORMED);
  });

  it('reports a refused image, or an empty message, as a message error: the DM is fine', async () => {
    const discord = client();
    const channelId = await discord.openDm(ANN);
    fake.refuseImageUrl('https://pbs.twimg.com/media/gone.jpg');
    const image = await failure(
      discord.send(channelId, {
        embeds: [{ description: 'd', image: { url: 'https://pbs.twimg.com/media/gone.jpg' } }],
      }),
      'message',
    );
    expect(image.message).toBe(
      'Discord: Invalid Form Body (50035): embeds.0.image.url: Could not interpret "url" as a media URL.',
    );
    const empty = await failure(discord.send(channelId, { embeds: [] }), 'message');
    expect(empty.message).toBe('Discord: Cannot send an empty message (50006)');
    await discord.send(channelId, { content: 'the link instead', embeds: [] });
    expect(fake.messagesTo(ANN)).toHaveLength(1);
  });

  it.each<[number, Record<string, unknown>, DeliveryErrorKind, string | null]>([
    [403, { message: 'Missing Access', code: 50001 }, 'permanent', DISCORD_NO_ACCESS],
    [403, { message: 'Missing Permissions', code: 50013 }, 'permanent', DISCORD_NO_ACCESS],
    [403, { message: 'Something new', code: 12345 }, 'permanent', DISCORD_NO_ACCESS],
    [400, { message: 'Something new', code: 12345 }, 'message', null],
    [413, { message: 'Request entity too large', code: 40005 }, 'message', null],
    [404, { message: 'Unknown Channel', code: 10003 }, 'transient', null],
    [503, { message: 'upstream connect error', code: 0 }, 'transient', null],
  ])('maps a send answered %i %j to %s', async (status, body, kind, reason) => {
    const answer: typeof fetch = () =>
      Promise.resolve(
        new Response(JSON.stringify(body), {
          status,
          headers: { 'content-type': 'application/json' },
        }),
      );
    const error = await failure(client({ fetch: answer }).send('123456789', hello), kind);
    if (reason !== null) expect(error.reason).toBe(reason);
  });

  it('reports a refusal of the DM opening as the user’s, never as the message’s', async () => {
    const answer: typeof fetch = () =>
      Promise.resolve(
        new Response(JSON.stringify({ message: 'Invalid Form Body', code: 50035 }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        }),
      );
    const error = await failure(client({ fetch: answer }).openDm(ANN), 'permanent');
    expect(error.reason).toBe(DISCORD_UNKNOWN_USER);
  });

  it('sends a nonce with enforce_nonce: a resend is answered with the first message', async () => {
    const bodies: Record<string, unknown>[] = [];
    const spy: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/messages')) {
        bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      }
      return fetch(input, init);
    };
    const discord = client({ fetch: spy });
    const channelId = await discord.openDm(ANN);
    const first = await discord.send(channelId, hello, undefined, 'perch-42');
    const again = await discord.send(channelId, hello, undefined, 'perch-42');
    expect(again).toBe(first);
    expect(fake.messagesTo(ANN)).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ nonce: 'perch-42', enforce_nonce: true });
    // Without a nonce, nothing of the kind is sent (and every send is a new message).
    await discord.send(channelId, hello);
    expect(bodies[2]).not.toHaveProperty('nonce');
    expect(bodies[2]).not.toHaveProperty('enforce_nonce');
    expect(fake.messagesTo(ANN)).toHaveLength(2);
    await expect(discord.send(channelId, hello, undefined, 'x'.repeat(26))).rejects.toThrow(
      RangeError,
    );
  });

  it('reports a server that is down as transient', async () => {
    const discord = client();
    fake.setDown(true);
    expect((await failure(discord.openDm(ANN), 'transient')).message).toBe('Discord: HTTP 502');
    fake.setDown(true, 'reset');
    expect((await failure(discord.openDm(ANN), 'transient')).message).toMatch(
      /^Discord is unreachable: /,
    );
    fake.setDown(false);
    await discord.openDm(ANN);
  });

  it('reports opening DMs too fast (40003) as rate_limited, holding every opening back', async () => {
    fake.dmTooFastNext(1);
    const discord = client({ maxRateLimitWaitMs: 1000 });
    const error = await failure(discord.openDm(ANN), 'rate_limited');
    expect(error.retryAfterMs).toBe(10_000);
    expect(error.message).toBe('Discord: You are opening direct messages too fast. (40003)');
    const next = await failure(discord.openDm(BOB), 'rate_limited');
    expect(next.retryAfterMs).toBeGreaterThan(9000);
    expect(fake.requests).toHaveLength(1);
  });

  it('reports 5xx answers, JSON or not, as transient', async () => {
    const discord = client();
    fake.failNext(1, 500);
    expect((await failure(discord.openDm(ANN), 'transient')).message).toBe(
      'Discord: 500: Internal Server Error',
    );
    fake.failNext(1, 502);
    expect((await failure(discord.openDm(ANN), 'transient')).message).toBe('Discord: HTTP 502');
    await discord.openDm(ANN);
  });

  it('reports an unreachable or silent server as transient', async () => {
    const closed = await startFakeDiscordServer();
    await closed.close();
    const gone = createDiscordClient({ token: fake.token, baseUrl: closed.baseUrl });
    expect((await failure(gone.openDm(ANN), 'transient')).message).toMatch(
      /^Discord is unreachable: /,
    );
    const hang: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error));
      });
    const silent = client({ fetch: hang, requestTimeoutMs: 100 });
    expect((await failure(silent.openDm(ANN), 'transient')).message).toBe(
      'Discord did not answer within 0.1 s',
    );
  });

  it('forgets a deleted DM channel so the next attempt opens it again', async () => {
    const discord = client();
    const old = await discord.openDm(ANN);
    fake.deleteChannel(old);
    const error = await failure(discord.send(old, hello), 'transient');
    expect(error.message).toBe('Discord: Unknown Channel (10003)');
    const fresh = await discord.openDm(ANN);
    expect(fresh).not.toBe(old);
    await discord.send(fresh, hello);
    expect(fake.messagesTo(ANN)).toHaveLength(1);
  });

  it('shares DM channels through a store: another process does not open the DM again', async () => {
    const dmChannelStore = clusterDmChannelStore(createLocalCluster());
    const [first, second] = [client({ dmChannelStore }), client({ dmChannelStore })];
    const channel = await first.openDm(ANN);
    expect(await second.openDm(ANN)).toBe(channel);
    expect(fake.requests.filter((r) => r.path.endsWith('/@me/channels'))).toHaveLength(1);
    // A deleted channel is forgotten in the store too, and the one opened next is shared.
    fake.deleteChannel(channel);
    await failure(second.send(channel, hello), 'transient');
    expect(await dmChannelStore.get(ANN)).toBeNull();
    const fresh = await second.openDm(ANN);
    expect(fresh).not.toBe(channel);
    expect(await dmChannelStore.get(ANN)).toBe(fresh);
  });

  it('waits for an exhausted bucket to reset instead of hitting a 429', async () => {
    fake.setBucket('messages', 2, 0.4);
    const discord = client();
    const channelId = await discord.openDm(ANN);
    const started = Date.now();
    for (let i = 0; i < 5; i++) await discord.send(channelId, hello);
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
    expect(statuses()).toEqual([200, 200, 200, 200, 200, 200]);
    // Buckets are per channel: another DM is not held back by this one.
    const other = await discord.openDm(BOB);
    const before = Date.now();
    await discord.send(other, hello);
    expect(Date.now() - before).toBeLessThan(300);
  });

  it('refuses to wait for a bucket that resets too late', async () => {
    fake.setBucket('messages', 1, 60);
    const discord = client();
    const channelId = await discord.openDm(ANN);
    await discord.send(channelId, hello);
    const error = await failure(discord.send(channelId, hello), 'rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(59_000);
    expect(fake.requests).toHaveLength(2);
  });

  it('opens DMs concurrently without a 429: one to learn the bucket, then what it allows', async () => {
    fake.setBucket('dm', 3, 0.5);
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    // Answers come back out of order: the bucket keeps the lowest `remaining` of its window.
    const slowly: typeof fetch = async (input, init) => {
      const call = order.filter((e) => e.startsWith('sent')).length;
      order.push(`sent ${call}`);
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        const response = await fetch(input, init);
        await new Promise((resolve) => setTimeout(resolve, (call % 3) * 40));
        return response;
      } finally {
        inFlight -= 1;
        order.push(`answered ${call}`);
      }
    };
    const discord = client({ fetch: slowly });
    const users = Array.from({ length: 8 }, (_, i) => String(82198898841029500n + BigInt(i)));
    const channels = await Promise.all(users.map((user) => discord.openDm(user)));
    expect(new Set(channels).size).toBe(8);
    expect(fake.rateLimited).toBe(0);
    expect(statuses()).toEqual(Array.from({ length: 8 }, () => 200));
    expect(most).toBeLessThanOrEqual(3);
    // The first request went alone: nothing was known of the bucket before its answer.
    expect(order.slice(0, 2)).toEqual(['sent 0', 'answered 0']);
  });

  it('waits out a short 429 and sends once more', async () => {
    const discord = client();
    const channelId = await discord.openDm(ANN);
    fake.rateLimitNext(1, { retryAfter: 0.3 });
    const started = Date.now();
    await discord.send(channelId, hello);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(statuses()).toEqual([200, 429, 200]);
  });

  it('reports a second 429, or a long one, as rate_limited with the wait', async () => {
    const discord = client();
    const channelId = await discord.openDm(ANN);
    fake.rateLimitNext(2, { retryAfter: 0.1, scope: 'shared' });
    const twice = await failure(discord.send(channelId, hello), 'rate_limited');
    expect(twice.retryAfterMs).toBe(100);
    expect(statuses()).toEqual([200, 429, 429]);

    fake.rateLimitNext(1, { retryAfter: 64.57 });
    const long = await failure(discord.send(channelId, hello), 'rate_limited');
    expect(long.retryAfterMs).toBe(64_570);
    expect(long.message).toBe('Discord: You are being rate limited.');
  });

  it('holds every route back after a global 429', async () => {
    const discord = client();
    await discord.openDm(ANN);
    fake.rateLimitNext(1, { retryAfter: 30, scope: 'global' });
    const error = await failure(discord.openDm(BOB), 'rate_limited');
    expect(error.retryAfterMs).toBe(30_000);
    const channelId = fake.dmChannelOf(ANN)!;
    const blocked = await failure(discord.send(channelId, hello), 'rate_limited');
    expect(blocked.retryAfterMs).toBeGreaterThan(29_000);
    expect(statuses()).toEqual([200, 429]);
  });

  it('keeps to 50 requests a second overall, as the fake enforces', async () => {
    fake.setBucket('dm', 1000, 1);
    const discord = client();
    const users = Array.from({ length: 60 }, (_, i) => String(82198898841029500n + BigInt(i)));
    const started = Date.now();
    await Promise.all(users.map(async (user) => discord.send(await discord.openDm(user), hello)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * SERVICE_WINDOW_MS - 50);
    expect(fake.messages).toHaveLength(60);
    expect(statuses().filter((s) => s !== 200)).toEqual([]);
  });

  it('reports a spent DM channel bucket over 1 s away as rate_limited, without sending', async () => {
    fake.setBucket('messages', 1, 5);
    const discord = client();
    const channelId = await discord.openDm(ANN);
    await discord.send(channelId, hello);
    const before = fake.messages.length;
    const error = await failure(discord.send(channelId, hello), 'rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(1_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(5_100);
    expect(fake.messages).toHaveLength(before);
  });

  it('rethrows the caller’s abort as is', async () => {
    fake.setBucket('messages', 1, 5);
    // A bucket wait this client is allowed to sleep through (by default it would hand back).
    const discord = client({ maxBucketWaitMs: 10_000 });
    const channelId = await discord.openDm(ANN);
    await discord.send(channelId, hello);
    const controller = new AbortController();
    const waiting = discord.send(channelId, hello, controller.signal);
    setTimeout(() => controller.abort(new Error('worker stopping')), 50);
    await expect(waiting).rejects.toThrow('worker stopping');
  });
});
