/**
 * The fake Discord API itself, over raw HTTP: the client tests rely on it refusing what Discord
 * refuses, with Discord's codes and rate-limit headers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscordServer, type FakeDiscordServer } from './fake-discord-server.js';

let fake: FakeDiscordServer;

beforeEach(async () => {
  fake = await startFakeDiscordServer();
});
afterEach(() => fake.close());

const ANN = '82198898841029460';

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${fake.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bot ${fake.token}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

const openDm = async (userId = ANN) =>
  (await post('/users/@me/channels', { recipient_id: userId })).body.id as string;

describe('fake Discord server', () => {
  it('opens one DM channel per user and posts to it, answering JSON', async () => {
    const first = await post('/users/@me/channels', { recipient_id: ANN });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(first.body).toMatchObject({ type: 1, recipients: [{ id: ANN }] });
    expect(await openDm()).toBe(first.body.id);
    const sent = await post(`/channels/${String(first.body.id)}/messages`, { content: 'hi' });
    expect(sent.body).toMatchObject({ channel_id: first.body.id, content: 'hi', type: 0 });
    expect(fake.messagesTo(ANN)).toMatchObject([{ id: sent.body.id, content: 'hi', embeds: [] }]);
  });

  it('answers 401 without the bot token and 50035 without a JSON content type', async () => {
    const anonymous = await post(
      '/users/@me/channels',
      { recipient_id: ANN },
      { authorization: 'Bot nope' },
    );
    expect(anonymous).toMatchObject({
      status: 401,
      body: { message: '401: Unauthorized', code: 0 },
    });
    const form = await post(
      '/users/@me/channels',
      { recipient_id: ANN },
      { 'content-type': 'text/plain' },
    );
    expect(form).toMatchObject({
      status: 400,
      body: { code: 50035, message: 'Invalid Form Body' },
    });
  });

  it('refuses messages over Discord’s limits with the 50035 error tree', async () => {
    fake.setBucket('messages', 100, 5);
    const channel = await openDm();
    const send = (body: unknown) => post(`/channels/${channel}/messages`, body);
    expect((await send({ content: 'x'.repeat(2001) })).body).toEqual({
      message: 'Invalid Form Body',
      code: 50035,
      errors: {
        content: {
          _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }],
        },
      },
    });
    const fields = Array.from({ length: 2 }, () => ({ name: 'n', value: 'v'.repeat(1025) }));
    expect(
      (await send({ embeds: [{ description: 'd'.repeat(4097), fields }] })).body,
    ).toMatchObject({
      code: 50035,
      errors: {
        embeds: {
          '0': {
            description: { _errors: [{ message: 'Must be 4096 or fewer in length.' }] },
            fields: {
              '0': { value: { _errors: [{ message: 'Must be 1024 or fewer in length.' }] } },
            },
          },
        },
      },
    });
    const total = await send({
      embeds: [{ description: 'd'.repeat(4000) }, { description: 'e'.repeat(2001) }],
    });
    expect(total.body).toMatchObject({
      code: 50035,
      errors: { embeds: { _errors: [{ code: 'MAX_EMBED_SIZE_EXCEEDED' }] } },
    });
    expect(
      (await send({ embeds: Array.from({ length: 11 }, () => ({ title: 't' })) })).status,
    ).toBe(400);
    expect((await send({})).body).toEqual({ message: 'Cannot send an empty message', code: 50006 });
    // Exactly at the limits is fine.
    const exact = await send({
      content: 'c'.repeat(2000),
      embeds: [{ description: 'd'.repeat(4096) }, { description: 'e'.repeat(1904) }],
    });
    expect(exact.status).toBe(200);
  });

  it('answers the user knobs with 10013, 50007, 50278, 10003 and 40003', async () => {
    fake.setUser('11111111111111111', 'unknown');
    expect((await post('/users/@me/channels', { recipient_id: '11111111111111111' })).body).toEqual(
      {
        message: 'Unknown User',
        code: 10013,
      },
    );
    fake.setUser(ANN, 'dms_closed');
    const channel = await openDm();
    expect((await post(`/channels/${channel}/messages`, { content: 'x' })).body).toEqual({
      message: 'Cannot send messages to this user',
      code: 50007,
    });
    fake.setUser(ANN, 'no_mutual_guild');
    expect((await post(`/channels/${channel}/messages`, { content: 'x' })).body).toMatchObject({
      code: 50278,
    });
    fake.deleteChannel(channel);
    expect((await post(`/channels/${channel}/messages`, { content: 'x' })).body).toEqual({
      message: 'Unknown Channel',
      code: 10003,
    });
    fake.dmTooFastNext(1);
    expect((await post('/users/@me/channels', { recipient_id: ANN })).body).toMatchObject({
      code: 40003,
    });
  });

  it('sends bucket headers and a 429 once a channel’s bucket is spent', async () => {
    fake.setBucket('messages', 2, 2);
    const channel = await openDm();
    const first = await post(`/channels/${channel}/messages`, { content: '1' });
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(first.headers.get('x-ratelimit-bucket')).toBeTruthy();
    expect(Number(first.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(1.5);
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    await post(`/channels/${channel}/messages`, { content: '2' });
    const limited = await post(`/channels/${channel}/messages`, { content: '3' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.body).toMatchObject({ message: 'You are being rate limited.', global: false });
    expect(limited.body.retry_after).toBeGreaterThan(1.5);
    // Another channel has a bucket of its own.
    const other = await openDm('82198898841029461');
    expect((await post(`/channels/${other}/messages`, { content: 'x' })).status).toBe(200);
    expect(fake.messagesTo(ANN)).toHaveLength(2);
  });

  it('answers forced 429s of each scope, and the global limit', async () => {
    fake.rateLimitNext(1, { retryAfter: 64.57, scope: 'shared' });
    const shared = await post('/users/@me/channels', { recipient_id: ANN });
    expect(shared.body).toEqual({
      message: 'The resource is being rate limited.',
      retry_after: 64.57,
      global: false,
    });
    expect(shared.headers.get('x-ratelimit-scope')).toBe('shared');

    fake.rateLimitNext(1, { retryAfter: 2, scope: 'global' });
    const global = await post('/channels/1/messages', { content: 'x' });
    expect(global.status).toBe(429);
    expect(global.headers.get('x-ratelimit-global')).toBe('true');
    expect(global.headers.get('x-ratelimit-bucket')).toBeNull();
    expect(global.body).toEqual({
      message: 'You are being rate limited.',
      retry_after: 2,
      global: true,
    });
  });

  it('refuses a burst over 50 requests a second with the global 429', async () => {
    fake.setBucket('dm', 1000, 10);
    const replies = await Promise.all(
      Array.from({ length: 60 }, () => post('/users/@me/channels', { recipient_id: ANN })),
    );
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(10);
    expect(limited[0]!.body).toMatchObject({ global: true });
  });

  it('posts a message with an enforced nonce once, answering a resend with it', async () => {
    const clock = { t: 1_000_000 };
    await fake.close();
    fake = await startFakeDiscordServer({ now: () => clock.t, nonceWindowMs: 60_000 });
    const channel = await openDm();
    const other = await openDm('82198898841029461');
    const send = (to: string, body: Record<string, unknown>) =>
      post(`/channels/${to}/messages`, { content: 'hi', ...body });
    const first = await send(channel, { nonce: 'perch-1', enforce_nonce: true });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ nonce: 'perch-1', content: 'hi' });
    clock.t += 1000;
    const again = await send(channel, { nonce: 'perch-1', enforce_nonce: true });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(fake.messages).toHaveLength(1);
    expect(fake.messages[0]).toMatchObject({ nonce: 'perch-1' });
    // Another channel, no enforce_nonce, or the window over: a new message each time.
    expect((await send(other, { nonce: 'perch-1', enforce_nonce: true })).body.id).not.toBe(
      first.body.id,
    );
    expect((await send(channel, { nonce: 'perch-1' })).body.id).not.toBe(first.body.id);
    clock.t += 60_000;
    expect((await send(channel, { nonce: 'perch-1', enforce_nonce: true })).body.id).not.toBe(
      first.body.id,
    );
    expect(fake.messages).toHaveLength(4);
    expect(
      (await send(channel, { nonce: 'n'.repeat(26), enforce_nonce: true })).body,
    ).toMatchObject({ code: 50035, errors: { nonce: {} } });
  });

  it('refuses an embed image it was told to with 50035', async () => {
    fake.refuseImageUrl('https://p/gone.jpg');
    const channel = await openDm();
    const refused = await post(`/channels/${channel}/messages`, {
      embeds: [{ description: 'a' }, { description: 'b', image: { url: 'https://p/gone.jpg' } }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      message: 'Invalid Form Body',
      code: 50035,
      errors: {
        embeds: {
          '1': {
            image: {
              url: {
                _errors: [
                  {
                    code: 'URL_TYPE_INVALID_URL',
                    message: 'Could not interpret "url" as a media URL.',
                  },
                ],
              },
            },
          },
        },
      },
    });
    const fine = await post(`/channels/${channel}/messages`, {
      embeds: [{ description: 'b', image: { url: 'https://p/fine.jpg' } }],
    });
    expect(fine.status).toBe(200);
  });

  it('goes down with 502 pages or reset connections, and counts its 429s', async () => {
    fake.setDown(true);
    const page = await fetch(`${fake.baseUrl}/users/@me/channels`, {
      method: 'POST',
      headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ recipient_id: ANN }),
    });
    expect(page.status).toBe(502);
    fake.setDown(true, 'reset');
    await expect(post('/users/@me/channels', { recipient_id: ANN })).rejects.toThrow();
    fake.setDown(false);
    expect((await post('/users/@me/channels', { recipient_id: ANN })).status).toBe(200);

    expect(fake.rateLimited).toBe(0);
    fake.rateLimitNext(2, { retryAfter: 0.1 });
    await post('/users/@me/channels', { recipient_id: ANN });
    await post('/users/@me/channels', { recipient_id: ANN });
    expect(fake.rateLimited).toBe(2);
  });

  it('fails the next requests with 500 JSON or a 502 proxy page', async () => {
    fake.failNext(1, 500);
    expect(await post('/users/@me/channels', { recipient_id: ANN })).toMatchObject({
      status: 500,
      body: { message: '500: Internal Server Error', code: 0 },
    });
    fake.failNext(1, 502);
    const page = await fetch(`${fake.baseUrl}/users/@me/channels`, {
      method: 'POST',
      headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ recipient_id: ANN }),
    });
    expect(page.status).toBe(502);
    expect(page.headers.get('content-type')).toBe('text/html');
  });
});
