import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  WEBHOOK_API_MESSAGES,
  WEBHOOK_MESSAGES,
  WEBHOOKS_PER_USER,
  handleListResponseSchema,
  handleNotificationsResponseSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookSecretSchema,
  webhookTestResultSchema,
} from '@perch/shared';
import { createTokenCipher } from '../src/lib/token-cipher.js';
import { bindWebhookSecrets } from '../src/modules/webhooks/webhooks.service.js';
import {
  UNBOUND_WEBHOOK_SECRET_CONTEXT,
  WEBHOOK_SECRET_UNREADABLE,
} from '../src/notify/webhook/secret.js';
import { TEST_MESSAGE } from '../src/notify/webhook/webhook-payloads.js';
import { dataOf, expectError } from './assertions.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from './fakes/webhook-receiver.js';
import { DIALECTS, TestClient, type TestApp } from './helpers.js';
import { handleFollowedBy } from './notify-helpers.js';
import { appForSuite, signedInUser, uniqueName } from './seed.js';

const endpointResponseSchema = z.object({ endpoint: webhookEndpointSchema });
const deletedSchema = z.object({ deleted: z.literal(true) });

/** An address that is refused nowhere but never reached: the tests send only to the fake. */
const PUBLIC_URL = 'https://hooks.example.com/perch';

describe.each(DIALECTS)('webhooks API [%s]', (dialect) => {
  // Loopback allowed, so the Test button can reach the fake receiver over plain http://.
  const loopback = appForSuite(dialect, { WEBHOOK_ALLOW_LOOPBACK: 'true' });
  // The defaults: public https:// addresses only.
  const strict = appForSuite(dialect);
  const receivers: FakeWebhookReceiver[] = [];

  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.close();
  });

  const create = (client: TestClient, body: Record<string, unknown>) =>
    client.post('/api/v1/webhooks', body);
  const patch = (client: TestClient, id: number, body: Record<string, unknown>) =>
    client.request({ method: 'PATCH', url: `/api/v1/webhooks/${id}`, payload: body });

  async function created(
    client: TestClient,
    body: Record<string, unknown> = { name: 'Ops', url: PUBLIC_URL, preset: 'generic' },
  ) {
    const response = await create(client, body);
    expect(response.statusCode, response.body).toBe(201);
    return dataOf(response, webhookSecretSchema);
  }

  const storedRow = (t: TestApp, id: number) =>
    t.db.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  /** An endpoint pointing at a new fake receiver that verifies with the endpoint's secret. */
  async function endpointAtReceiver(client: TestClient, preset = 'generic') {
    const { endpoint, secret } = await created(client, {
      name: 'Receiver',
      url: PUBLIC_URL,
      preset,
    });
    const receiver = await startFakeWebhookReceiver({ secret });
    receivers.push(receiver);
    const moved = await patch(client, endpoint.id, { url: receiver.url() });
    expect(moved.statusCode, moved.body).toBe(200);
    return { endpoint, secret, receiver };
  }

  it('shows the secret once, when made, and keeps it sealed', async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const empty = dataOf(await ada.client.get('/api/v1/webhooks'), webhookEndpointListSchema);
    expect(empty).toEqual({ endpoints: [], limit: WEBHOOKS_PER_USER });

    const response = await create(ada.client, {
      name: ' Ops channel ',
      url: ' https://Hooks.Example.com/perch?team=1 ',
      preset: 'slack',
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ message: WEBHOOK_API_MESSAGES.created });
    const { endpoint, secret } = dataOf(response, webhookSecretSchema);
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    expect(endpoint).toEqual({
      id: expect.any(Number),
      name: 'Ops channel',
      url: 'https://hooks.example.com/perch?team=1',
      preset: 'slack',
      created_at: expect.any(String),
      stopped_reason: null,
    });

    const listed = await ada.client.get('/api/v1/webhooks');
    expect(dataOf(listed, webhookEndpointListSchema).endpoints).toEqual([endpoint]);
    expect(listed.body).not.toContain(secret);
    expect(listed.body).not.toContain('secret');
    const row = await storedRow(t, endpoint.id);
    expect(row.secret_sealed).not.toBe('');
    expect(row.secret_sealed).not.toContain(secret);
    expect(row.secret_sealed).not.toContain(secret.slice('whsec_'.length));
  });

  it('refuses what is not a valid address, name or format', async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const body = (change: Record<string, unknown>) => ({
      name: 'Ops',
      url: PUBLIC_URL,
      preset: 'generic',
      ...change,
    });
    const cases: [Record<string, unknown>, string][] = [
      [body({ name: '  ' }), WEBHOOK_MESSAGES.nameRequired],
      [body({ name: 'x'.repeat(101) }), WEBHOOK_MESSAGES.nameTooLong],
      [body({ preset: 'teams' }), WEBHOOK_MESSAGES.presetInvalid],
      [body({ url: ' ' }), WEBHOOK_MESSAGES.urlRequired],
      [body({ url: `https://example.com/${'x'.repeat(2000)}` }), WEBHOOK_MESSAGES.urlTooLong],
      [body({ url: 'not a web address' }), WEBHOOK_MESSAGES.urlInvalid],
      [body({ url: 'ftp://example.com/hook' }), WEBHOOK_MESSAGES.httpsRequired],
      [body({ url: 'http://example.com/hook' }), WEBHOOK_MESSAGES.httpsRequired],
      [body({ url: 'https://user:pw@example.com/hook' }), WEBHOOK_MESSAGES.credentialsInUrl],
    ];
    for (const [request, message] of cases) {
      expectError(await create(ada.client, request), 400, { message });
    }
    expect(
      dataOf(await ada.client.get('/api/v1/webhooks'), webhookEndpointListSchema).endpoints,
    ).toEqual([]);
  });

  it('takes http:// only to this machine, and only when the server allows it', async () => {
    const local = { name: 'Local', url: 'http://127.0.0.1:8080/hook', preset: 'generic' };
    const strictUser = await signedInUser(strict.t, 'ada');
    expectError(await create(strictUser.client, local), 400, {
      message: WEBHOOK_MESSAGES.httpLoopbackOnly,
    });
    expectError(await create(strictUser.client, { ...local, url: 'https://localhost/hook' }), 400, {
      message: WEBHOOK_MESSAGES.addressNotAllowed,
    });

    const loopbackUser = await signedInUser(loopback.t, 'ada');
    const { endpoint } = await created(loopbackUser.client, local);
    expect(endpoint.url).toBe('http://127.0.0.1:8080/hook');
    // Even then, plain http:// goes nowhere else.
    expectError(
      await create(loopbackUser.client, { ...local, url: 'http://93.184.216.34/hook' }),
      400,
      { message: WEBHOOK_MESSAGES.httpsRequired },
    );
  });

  it('refuses private, link-local and other reserved addresses', async () => {
    for (const suite of [strict, loopback]) {
      const ada = await signedInUser(suite.t, 'ada');
      for (const url of [
        'https://10.0.0.5/hook',
        'https://192.168.1.20/hook',
        'https://[fd00::1]/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://0.0.0.0/hook',
        'https://[::ffff:10.0.0.1]/hook',
      ]) {
        expectError(await create(ada.client, { name: 'Inside', url, preset: 'generic' }), 400, {
          message: WEBHOOK_MESSAGES.addressNotAllowed,
        });
      }
      const { endpoint } = await created(ada.client);
      expectError(await patch(ada.client, endpoint.id, { url: 'https://10.1.2.3/' }), 400, {
        message: WEBHOOK_MESSAGES.addressNotAllowed,
      });
    }
  });

  it('keeps to the limit of endpoints per user', async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const now = new Date().toISOString();
    await t.db.db
      .insertInto('webhook_endpoints')
      .values(
        Array.from({ length: WEBHOOKS_PER_USER - 1 }, (_, index) => ({
          user_id: ada.userId,
          name: `Hook ${index + 1}`,
          url: `${PUBLIC_URL}/${index}`,
          preset: 'generic',
          secret_sealed: 'sealed',
          stopped_reason: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    await created(ada.client);
    expectError(
      await create(ada.client, { name: 'More', url: PUBLIC_URL, preset: 'generic' }),
      409,
      {
        message: WEBHOOK_API_MESSAGES.limitReached,
      },
    );
  });

  it('renames, re-addresses (restarting a stopped endpoint) and deletes', async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const { endpoint } = await created(ada.client);
    await t.db.db
      .updateTable('webhook_endpoints')
      .set({ stopped_reason: 'The endpoint answered 410' })
      .where('id', '=', endpoint.id)
      .execute();

    const renamed = dataOf(
      await patch(ada.client, endpoint.id, { name: 'Renamed', preset: 'discord' }),
      endpointResponseSchema,
    ).endpoint;
    expect(renamed).toMatchObject({
      name: 'Renamed',
      preset: 'discord',
      url: PUBLIC_URL,
      stopped_reason: 'The endpoint answered 410',
    });
    const moved = dataOf(
      await patch(ada.client, endpoint.id, { url: 'https://hooks.example.com/new' }),
      endpointResponseSchema,
    ).endpoint;
    expect(moved).toMatchObject({ url: 'https://hooks.example.com/new', stopped_reason: null });
    expectError(await patch(ada.client, endpoint.id, {}), 400);

    const deleted = await ada.client.delete(`/api/v1/webhooks/${endpoint.id}`);
    expect(dataOf(deleted, deletedSchema)).toEqual({ deleted: true });
    expect(deleted.json()).toMatchObject({ message: WEBHOOK_API_MESSAGES.deleted });
    expectError(await ada.client.delete(`/api/v1/webhooks/${endpoint.id}`), 404, {
      message: WEBHOOK_API_MESSAGES.notFound,
    });
  });

  it("never shows or changes another user's endpoint", async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const bob = await signedInUser(t, 'bob');
    const { endpoint } = await created(ada.client);
    const notFound = { message: WEBHOOK_API_MESSAGES.notFound, code: 'NOT_FOUND' };
    expectError(await patch(bob.client, endpoint.id, { name: 'Mine' }), 404, notFound);
    expectError(await bob.client.delete(`/api/v1/webhooks/${endpoint.id}`), 404, notFound);
    expectError(
      await bob.client.post(`/api/v1/webhooks/${endpoint.id}/rotate-secret`),
      404,
      notFound,
    );
    expectError(await bob.client.post(`/api/v1/webhooks/${endpoint.id}/test`), 404, notFound);
    expect(
      dataOf(await bob.client.get('/api/v1/webhooks'), webhookEndpointListSchema).endpoints,
    ).toEqual([]);
    expect(
      dataOf(await ada.client.get('/api/v1/webhooks'), webhookEndpointListSchema).endpoints,
    ).toEqual([endpoint]);
    expectError(await new TestClient(t.app).get('/api/v1/webhooks'), 401);
  });

  it('sends a signed test request and says how the endpoint answered', async () => {
    const ada = await signedInUser(loopback.t, 'ada');
    const { endpoint, receiver } = await endpointAtReceiver(ada.client);

    const response = await ada.client.post(`/api/v1/webhooks/${endpoint.id}/test`);
    const result = dataOf(response, webhookTestResultSchema);
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.message).toBe(`Answered 200 in ${result.duration_ms} ms.`);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request?.signatureValid).toBe(true);
    expect(request?.headers['user-agent']).toMatch(/^Perch-Webhook\//);
    expect(JSON.parse(request?.body ?? '')).toEqual({
      type: 'test',
      sentAt: expect.any(String),
    });

    receiver.script({ kind: 'status', status: 500, body: 'Receiver broke' });
    const failed = await ada.client.post(`/api/v1/webhooks/${endpoint.id}/test`);
    expect(failed.statusCode, failed.body).toBe(200);
    expect(dataOf(failed, webhookTestResultSchema)).toEqual({
      ok: false,
      status: 500,
      duration_ms: expect.any(Number),
      message: 'The endpoint answered 500: Receiver broke',
    });

    receiver.script({ kind: 'status', status: 204 });
    const empty = dataOf(
      await ada.client.post(`/api/v1/webhooks/${endpoint.id}/test`),
      webhookTestResultSchema,
    );
    expect(empty).toMatchObject({ ok: true, status: 204 });
    expect(empty.message).toMatch(/^Answered 204 in \d+ ms\.$/);
  });

  it("sends the test in the endpoint's format", async () => {
    const ada = await signedInUser(loopback.t, 'ada');
    const { endpoint, receiver } = await endpointAtReceiver(ada.client, 'slack');
    const result = dataOf(
      await ada.client.post(`/api/v1/webhooks/${endpoint.id}/test`),
      webhookTestResultSchema,
    );
    expect(result.ok).toBe(true);
    const body = JSON.parse(receiver.requests[0]?.body ?? '') as { text?: string };
    expect(body.text).toContain(TEST_MESSAGE);
  });

  it("does not sign with a sealed secret copied from another endpoint's row", async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const eve = await signedInUser(t, 'eve');
    const { endpoint: target, receiver } = await endpointAtReceiver(ada.client);
    const { endpoint: own } = await endpointAtReceiver(eve.client);
    // Eve, who knows her own secret and can write the database but not read the key, copies
    // her sealed secret into Ada's endpoint.
    await t.db.db
      .updateTable('webhook_endpoints')
      .set({ secret_sealed: (await storedRow(t, own.id)).secret_sealed })
      .where('id', '=', target.id)
      .execute();
    const result = dataOf(
      await ada.client.post(`/api/v1/webhooks/${target.id}/test`),
      webhookTestResultSchema,
    );
    expect(result).toMatchObject({ ok: false, message: WEBHOOK_SECRET_UNREADABLE });
    expect(receiver.requests).toHaveLength(0);
  });

  it('seals a secret of before, sealed for every endpoint alike, for its own endpoint', async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const { endpoint, receiver } = await endpointAtReceiver(ada.client);
    const cipher = createTokenCipher({
      secretKey: t.config.SECRET_KEY,
      dataDir: t.config.DATA_DIR,
    });
    const secret = cipher.decrypt(
      (await storedRow(t, endpoint.id)).secret_sealed,
      `webhook-endpoint-secret:${endpoint.id}`,
    );
    await t.db.db
      .updateTable('webhook_endpoints')
      .set({ secret_sealed: cipher.encrypt(secret, UNBOUND_WEBHOOK_SECRET_CONTEXT) })
      .where('id', '=', endpoint.id)
      .execute();
    const test = () => ada.client.post(`/api/v1/webhooks/${endpoint.id}/test`);
    expect(dataOf(await test(), webhookTestResultSchema).ok).toBe(false);

    // What a start does before anything is sent: that one secret is sealed again, once.
    expect(await bindWebhookSecrets(t.db, cipher)).toBeGreaterThanOrEqual(1);
    expect(await bindWebhookSecrets(t.db, cipher)).toBe(0);
    expect(dataOf(await test(), webhookTestResultSchema).ok).toBe(true);
    expect(receiver.requests.at(-1)?.signatureValid).toBe(true);
  });

  it('rotates the secret: the new one signs, the old one no longer does', async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const { endpoint, secret, receiver } = await endpointAtReceiver(ada.client);
    const before = (await storedRow(t, endpoint.id)).secret_sealed;

    const response = await ada.client.post(`/api/v1/webhooks/${endpoint.id}/rotate-secret`);
    expect(response.json()).toMatchObject({ message: WEBHOOK_API_MESSAGES.rotated });
    const rotated = dataOf(response, webhookSecretSchema);
    expect(rotated.endpoint.id).toBe(endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    expect((await storedRow(t, endpoint.id)).secret_sealed).not.toBe(before);

    // The receiver still holds the old secret: the test request no longer verifies there.
    await ada.client.post(`/api/v1/webhooks/${endpoint.id}/test`);
    expect(receiver.requests.at(-1)?.signatureValid).toBe(false);
    const current = await startFakeWebhookReceiver({ secret: rotated.secret });
    receivers.push(current);
    await patch(ada.client, endpoint.id, { url: current.url() });
    await ada.client.post(`/api/v1/webhooks/${endpoint.id}/test`);
    expect(current.requests.at(-1)?.signatureValid).toBe(true);
  });

  /** Outbox rows of a user, as fan-out writes them. */
  async function queued(
    t: TestApp,
    userId: number,
    rows: { handleId: number; channel: string; status?: 'pending' | 'sent'; tweetId: string }[],
  ) {
    const now = new Date().toISOString();
    await t.db.db
      .insertInto('notification_outbox')
      .values(
        rows.map((row) => ({
          user_id: userId,
          handle_id: row.handleId,
          tweet_id: row.tweetId,
          channel: row.channel as `webhook:${number}`,
          status: row.status ?? 'pending',
          next_attempt_at: now,
          last_error: null,
          created_at: now,
          sent_at: row.status === 'sent' ? now : null,
          claimed_by: null,
          digest_of: null,
        })),
      )
      .execute();
  }

  const outboxOf = (t: TestApp, userId: number) =>
    t.db.db
      .selectFrom('notification_outbox')
      .select(['tweet_id', 'status', 'last_error'])
      .where('user_id', '=', userId)
      .orderBy('tweet_id')
      .execute();

  it('cancels what still waited for a deleted endpoint, and nothing else', async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const handleId = await handleFollowedBy(t, uniqueName('h'), [ada.userId], {});
    const gone = (await created(ada.client)).endpoint;
    const kept = (await created(ada.client)).endpoint;
    await queued(t, ada.userId, [
      { handleId, channel: `webhook:${gone.id}`, tweetId: '1' },
      { handleId, channel: `webhook:${gone.id}`, tweetId: '2', status: 'sent' },
      { handleId, channel: `webhook:${kept.id}`, tweetId: '3' },
      { handleId, channel: 'telegram', tweetId: '4' },
    ]);

    expect((await ada.client.delete(`/api/v1/webhooks/${gone.id}`)).statusCode).toBe(200);
    expect(await outboxOf(t, ada.userId)).toEqual([
      { tweet_id: '1', status: 'cancelled', last_error: 'The webhook was deleted' },
      { tweet_id: '2', status: 'sent', last_error: null },
      { tweet_id: '3', status: 'pending', last_error: null },
      { tweet_id: '4', status: 'pending', last_error: null },
    ]);
  });

  it('switches webhooks on for a handle only with an endpoint, and off cancels its waiting rows', async () => {
    const { t } = loopback;
    const ada = await signedInUser(t, 'ada');
    const handle = uniqueName('h');
    const handleId = await handleFollowedBy(t, handle, [ada.userId], {});
    const otherId = await handleFollowedBy(t, uniqueName('o'), [ada.userId], {});
    const toggle = (webhookEnabled: boolean, id = handleId) =>
      ada.client.request({
        method: 'PUT',
        url: `/api/v1/handles/${id}/notifications`,
        payload: { webhookEnabled },
      });

    const listed = dataOf(await ada.client.get('/api/v1/handles'), handleListResponseSchema);
    expect(listed.handles.map((entry) => entry.webhook_enabled)).toEqual([false, false]);
    expectError(await toggle(true), 400, { message: WEBHOOK_API_MESSAGES.addWebhookFirst });

    const { endpoint } = await created(ada.client);
    const on = await toggle(true);
    expect(dataOf(on, handleNotificationsResponseSchema).handle).toMatchObject({
      id: handleId,
      webhook_enabled: true,
      telegram_enabled: false,
      discord_enabled: false,
    });
    expect(on.json()).toMatchObject({
      message: `Webhook notifications enabled for @${handle}`,
    });
    await toggle(true, otherId);

    await queued(t, ada.userId, [
      { handleId, channel: `webhook:${endpoint.id}`, tweetId: '1' },
      { handleId, channel: 'telegram', tweetId: '2' },
      { handleId: otherId, channel: `webhook:${endpoint.id}`, tweetId: '3' },
    ]);
    const off = await toggle(false);
    expect(dataOf(off, handleNotificationsResponseSchema).handle.webhook_enabled).toBe(false);
    expect(off.json()).toMatchObject({
      message: `Webhook notifications disabled for @${handle}`,
    });
    expect(await outboxOf(t, ada.userId)).toEqual([
      {
        tweet_id: '1',
        status: 'cancelled',
        last_error: 'Webhook notifications were switched off for this handle',
      },
      { tweet_id: '2', status: 'pending', last_error: null },
      { tweet_id: '3', status: 'pending', last_error: null },
    ]);

    // Without endpoints left, no handle sends to webhooks.
    await ada.client.delete(`/api/v1/webhooks/${endpoint.id}`);
    const after = dataOf(await ada.client.get('/api/v1/handles'), handleListResponseSchema);
    expect(after.handles.map((entry) => entry.webhook_enabled)).toEqual([false, false]);
  });
});
