import { once } from 'node:events';
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handleResponseSchema } from '@perch/shared';
import { dataOf } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { SseReader } from './sse.js';

describe.each(DIALECTS)('live events (%s)', (dialect) => {
  let t: TestApp;
  let base: string;
  const aborts: AbortController[] = [];

  beforeEach(async () => {
    t = await buildTestApp(dialect, {}, { eventsKeepAliveMs: 100 });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.app.server.address();
    if (typeof address !== 'object' || !address) throw new Error('not listening');
    base = `http://127.0.0.1:${address.port}`;
  });

  afterEach(async () => {
    for (const abort of aborts.splice(0)) abort.abort();
    await t.close();
  });

  const connections = () =>
    new Promise<number>((resolve, reject) =>
      t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );

  const cookieOf = (client: TestClient) =>
    [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');

  async function open(client?: TestClient) {
    const abort = new AbortController();
    aborts.push(abort);
    const response = await fetch(`${base}/api/v1/events`, {
      headers: client ? { cookie: cookieOf(client), accept: 'text/event-stream' } : {},
      signal: abort.signal,
    });
    return { response, abort };
  }

  async function signedIn(username: string) {
    const client = new TestClient(t.app);
    await client.register(t.db, username);
    return client;
  }

  async function addHandle(client: TestClient, username: string) {
    const response = await client.post('/api/v1/handles', { username });
    return dataOf(response, handleResponseSchema).handle;
  }

  it('answers 401 with the envelope when signed out', async () => {
    const { response } = await open();
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toEqual({
      success: false,
      message: expect.any(String) as string,
      code: 'UNAUTHORIZED',
    });
  });

  it('answers 401 for a session that was signed out', async () => {
    const alice = await signedIn('alice');
    const cookie = cookieOf(alice);
    await alice.post('/api/v1/auth/logout');
    const response = await fetch(`${base}/api/v1/events`, { headers: { cookie } });
    expect(response.status).toBe(401);
    await response.body?.cancel();
  });

  it('streams with the SSE headers, the API security headers and a retry hint', async () => {
    const alice = await signedIn('alice');
    alice.cookies.delete('perch_csrf');
    const { response } = await open(alice);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    // The CSRF cookie handed out in onRequest still reaches the client.
    expect(response.headers.get('set-cookie')).toContain('perch_csrf=');
    if (!response.body) throw new Error('no body');
    const sse = new SseReader(response.body);
    await sse.until((frame) => frame.retry !== undefined);
    expect(sse.frames[0]).toEqual({ retry: '5000' });
  });

  it('sends a keep-alive comment on the configured interval', async () => {
    const alice = await signedIn('alice');
    const { response } = await open(alice);
    if (!response.body) throw new Error('no body');
    const sse = new SseReader(response.body);
    await sse.until((frame) => frame.comment === 'keep-alive', 2000);
  });

  it("sends the progress and status of the user's handles and nothing of other users'", async () => {
    const alice = await signedIn('alice');
    const bob = await signedIn('bob');
    const { response } = await open(alice);
    if (!response.body) throw new Error('no body');
    const sse = new SseReader(response.body);
    await sse.until((frame) => frame.retry !== undefined);

    // Bob's handle is collected while Alice listens: none of it may reach her. Its events all
    // come before Alice's (idle), and a stream keeps their order, so none can arrive late.
    const bobs = await addHandle(bob, 'typical_bob');
    await t.collector.idle();
    // Alice adds hers after connecting: the stream picks up the new follow.
    const alices = await addHandle(alice, 'typical_ann');

    await sse.until(
      (frame) =>
        frame.event === 'handle.status' &&
        (JSON.parse(frame.data ?? '{}') as { status?: string }).status === 'completed',
      15_000,
    );
    await t.collector.idle();

    const statuses = sse.events('handle.status');
    const progress = sse.events('handle.progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const payload of [...statuses, ...progress]) {
      expect(payload).toMatchObject({ handleId: alices.id, username: 'typical_ann' });
    }
    expect(statuses).toContainEqual({
      handleId: alices.id,
      username: 'typical_ann',
      status: 'starting',
      error: null,
    });
    expect(progress.at(-1)).toMatchObject({
      handleId: alices.id,
      status: expect.any(String) as string,
      progress: expect.any(Number) as number,
      totalTweets: expect.any(Number) as number,
    });
    const everyHandle = sse.frames.map((frame) => frame.data ?? '').join('\n');
    expect(everyHandle).not.toContain(`"handleId":${bobs.id},`);
    expect(everyHandle).not.toContain('typical_bob');
  });

  it('stops sending a handle once the user removed it', async () => {
    const alice = await signedIn('alice');
    const bob = await signedIn('bob');
    const handle = await addHandle(alice, 'typical_ann');
    await addHandle(bob, 'typical_ann');
    await t.collector.idle();
    expect((await alice.delete(`/api/v1/handles/${handle.id}`)).statusCode).toBe(200);

    const { response } = await open(alice);
    if (!response.body) throw new Error('no body');
    const sse = new SseReader(response.body);
    await sse.until((frame) => frame.retry !== undefined);
    // Bob still follows it, so the handle lives on and its events keep coming, just not to Alice.
    t.collector.events.emit('handle.status', {
      handleId: handle.id,
      username: handle.handle,
      status: 'failed',
      error: 'x',
    });
    await sse.until((frame) => frame.comment === 'keep-alive', 2000);
    expect(sse.events('handle.status')).toEqual([]);
  });

  it("sends an alert that fired to its rule's owner only, whoever follows the handle", async () => {
    const alice = await signedIn('alice');
    const bob = await signedIn('bob');
    const handle = await addHandle(alice, 'typical_ann');
    await addHandle(bob, 'typical_ann');
    await t.collector.idle();
    const aliceId = (
      await t.db.db
        .selectFrom('users')
        .select('id')
        .where('username', '=', 'alice')
        .executeTakeFirstOrThrow()
    ).id;
    const streams = await Promise.all([open(alice), open(bob)]);
    const [ofAlice, ofBob] = streams.map(({ response }) => {
      if (!response.body) throw new Error('no body');
      return new SseReader(response.body);
    });
    for (const sse of [ofAlice!, ofBob!]) await sse.until((frame) => frame.retry !== undefined);

    const fired = { handleId: handle.id, userId: aliceId, firingId: 41 };
    t.collector.events.emit('alert.fired', fired);
    await ofAlice!.until((frame) => frame.event === 'alert.fired', 2000);
    expect(ofAlice!.events('alert.fired')).toEqual([fired]);
    await ofBob!.until((frame) => frame.comment === 'keep-alive', 2000);
    expect(ofBob!.events('alert.fired')).toEqual([]);
  });

  it('lets go of the stream when the client disconnects', async () => {
    const alice = await signedIn('alice');
    // node:http rather than fetch: after an abort undici opens a spare connection of its own,
    // which would keep the server busy for reasons unrelated to the stream.
    const request = http.get(`${base}/api/v1/events`, {
      headers: { cookie: cookieOf(alice) },
      agent: false,
    });
    const [response] = (await once(request, 'response')) as [http.IncomingMessage];
    expect(response.statusCode).toBe(200);
    await once(response, 'data');
    expect(await connections()).toBe(1);

    request.destroy();
    await vi.waitFor(async () => expect(await connections()).toBe(0));
    // Events after the disconnect go nowhere and break nothing.
    t.collector.events.emit('handle.status', {
      handleId: 1,
      username: 'x',
      status: 'failed',
      error: null,
    });
    const started = Date.now();
    await t.app.close();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('closes promptly on shutdown with a stream open', async () => {
    const alice = await signedIn('alice');
    const { response } = await open(alice);
    if (!response.body) throw new Error('no body');
    const sse = new SseReader(response.body);
    await sse.until((frame) => frame.retry !== undefined);

    const started = Date.now();
    await t.app.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await sse.ended(1000);
    expect(t.collector.events.listenerCount('handle.progress')).toBe(0);
  });
});
