/** The webhook sender over real HTTP, against the loopback receiver that checks signatures. */
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../../../test/fakes/loopback.js';
import {
  startFakeWebhookReceiver,
  type FakeWebhookReceiver,
} from '../../../test/fakes/webhook-receiver.js';
import { DeliveryError } from '../types.js';
import { PUBLIC_ONLY, type AddressPolicy } from './address-policy.js';
import {
  createWebhookClient,
  sendWebhook,
  type WebhookResolver,
  type WebhookSenderOptions,
} from './webhook-sender.js';

const LOOPBACK: AddressPolicy = { allowLoopback: true, allowPrivate: false };
const PAYLOAD = { type: 'post', handle: 'XDevelopers', text: 'Launch day! <3 ünïcode' };

let receiver: FakeWebhookReceiver;

beforeEach(async () => {
  receiver = await startFakeWebhookReceiver();
});
afterEach(() => receiver.close());

function send(
  options: Partial<WebhookSenderOptions> = {},
  url = receiver.url(),
  extras: { signal?: AbortSignal; deliveryId?: string } = {},
) {
  return sendWebhook(
    { url, secret: receiver.secret },
    PAYLOAD,
    { policy: LOOPBACK, version: '9.9.9', ...options },
    extras,
  );
}

/** A resolver answering `addresses` for every name, counting its calls. */
function resolverOf(...answers: string[][]): WebhookResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (hostname: string) => {
    calls.push(hostname);
    const addresses = answers[Math.min(calls.length, answers.length) - 1]!;
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(resolve, { calls });
}

/** The receiver's address under another host name (resolved by the test's resolver). */
const named = (host: string, path = '/hook') => receiver.url(path).replace('127.0.0.1', host);

describe('sendWebhook', () => {
  it('posts the signed JSON with its headers and is ok on 2xx', async () => {
    const result = await send({}, receiver.url(), { deliveryId: 'd42' });
    expect(result).toEqual({
      ok: true,
      status: 200,
      retryable: false,
      message: 'Delivered (HTTP 200)',
    });
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/hook', signatureValid: true });
    expect(JSON.parse(request!.body)).toEqual(PAYLOAD);
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Perch-Webhook/9.9.9',
      'x-perch-delivery': 'd42',
      'x-perch-timestamp': expect.stringMatching(/^\d{10}$/),
      'x-perch-signature': expect.stringMatching(/^v1=[0-9a-f]{64}$/),
    });
  });

  it('is signed so that another secret does not verify', async () => {
    await sendWebhook({ url: receiver.url(), secret: 'whsec_other' }, PAYLOAD, {
      policy: LOOPBACK,
      version: '1',
    });
    expect(receiver.requests[0]!.signatureValid).toBe(false);
  });

  it('fails for good on 4xx, quoting the answer', async () => {
    receiver.script({ kind: 'status', status: 404, body: 'no such hook' });
    expect(await send()).toEqual({
      ok: false,
      status: 404,
      retryable: false,
      message: 'The endpoint answered 404: no such hook',
    });
  });

  it('is retryable on 5xx', async () => {
    receiver.script({ kind: 'status', status: 503, body: 'maintenance' });
    expect(await send()).toMatchObject({ ok: false, status: 503, retryable: true });
  });

  it("honours 429's Retry-After", async () => {
    receiver.script({ kind: 'status', status: 429, headers: { 'retry-after': '2' } });
    expect(await send()).toMatchObject({
      ok: false,
      status: 429,
      retryable: true,
      retryAfterMs: 2000,
    });
  });

  it('does not follow a redirect', async () => {
    receiver.script({ kind: 'redirect', status: 302, location: receiver.url('/elsewhere') });
    const result = await send();
    expect(result).toMatchObject({ ok: false, status: 302, retryable: false });
    expect(result.message).toMatch(/redirects are not followed/);
    expect(receiver.requestsTo('/elsewhere')).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('gives up after its time limit when the receiver never answers', async () => {
    receiver.script({ kind: 'hang' });
    const started = performance.now();
    const result = await send({ timeoutMs: 300 });
    expect(result).toEqual({
      ok: false,
      status: null,
      retryable: true,
      message: 'The endpoint did not answer within 0.3 s',
    });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('reads a large answer only up to the cap, and a 2xx stays ok', async () => {
    receiver.script({ kind: 'stream', bytes: 1024 * 1024 });
    expect(await send()).toMatchObject({ ok: true, status: 200 });
    // An answer that never ends: only a sender that stops reading at the cap finishes in time.
    receiver.script({ kind: 'stream', bytes: 1024 * 1024, hang: true });
    const started = performance.now();
    expect(await send({ timeoutMs: 8_000 })).toMatchObject({ ok: true, status: 200 });
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('keeps a 2xx whose body the time limit cut off: the receiver had accepted it', async () => {
    receiver.script({ kind: 'stream', bytes: 1024, hang: true });
    expect(await send({ timeoutMs: 300 })).toMatchObject({ ok: true, status: 200 });
  });

  it('is retryable when the receiver is down (reset or closed)', async () => {
    receiver.script({ kind: 'reset' });
    const reset = await send();
    expect(reset).toMatchObject({ ok: false, status: null, retryable: true });
    expect(reset.message).toMatch(/^The endpoint is unreachable: /);
    const closed = http.createServer();
    const origin = await listenOnLoopback(closed);
    await new Promise((resolve) => closed.close(resolve));
    expect(await send({}, `${origin}/hook`)).toMatchObject({ retryable: true, status: null });
  });

  it('rejects with the reason when the caller aborts', async () => {
    receiver.script({ kind: 'hang' });
    const controller = new AbortController();
    const sending = send({}, receiver.url(), { signal: controller.signal });
    await expect.poll(() => receiver.requests.length).toBe(1);
    controller.abort(new Error('stopping'));
    await expect(sending).rejects.toThrow('stopping');
  });
});

describe('sendWebhook address checks', () => {
  it('refuses loopback when the switch is off, before any request', async () => {
    const literal = await send({ policy: PUBLIC_ONLY }, receiver.url().replace('http:', 'https:'));
    expect(literal).toMatchObject({ ok: false, status: null, retryable: false });
    expect(literal.message).toBe(
      '127.0.0.1 is a loopback address (this machine), which webhooks may not reach',
    );
    // A name goes through the guarded lookup: refused as the socket connects.
    const resolve = resolverOf(['127.0.0.1']);
    const byName = await send(
      { policy: PUBLIC_ONLY, resolve },
      named('localhost').replace('http:', 'https:'),
    );
    expect(byName).toMatchObject({ ok: false, retryable: false });
    expect(byName.message).toMatch(/^127\.0\.0\.1 is a loopback address/);
    expect(resolve.calls).toEqual(['localhost']);
    expect(receiver.requests).toEqual([]);
  });

  it('refuses plain http unless loopback is allowed, and then only to loopback', async () => {
    expect((await send({ policy: PUBLIC_ONLY })).message).toBe(
      'http:// endpoints are not allowed: use https://',
    );
    const resolve = resolverOf(['93.184.216.34']);
    const result = await send({ resolve }, named('hooks.example.test'));
    expect(result.message).toBe(
      '93.184.216.34 is not a loopback address: plain http:// goes only to this machine',
    );
    expect(receiver.requests).toEqual([]);
  });

  it('connects to the addresses its resolver gave, checked at every send (DNS rebinding)', async () => {
    const resolve = resolverOf(['127.0.0.1'], ['10.0.0.5'], ['::1', '::ffff:169.254.169.254']);
    const url = named('hooks.example.test');
    expect(await send({ resolve }, url)).toMatchObject({ ok: true });
    const rebound = await send({ resolve }, url);
    expect(rebound).toMatchObject({ ok: false, status: null, retryable: false });
    expect(rebound.message).toBe(
      '10.0.0.5 is a private network address, which webhooks may not reach',
    );
    // One refused address among several is enough.
    expect((await send({ resolve }, url)).message).toMatch(
      /^::ffff:169\.254\.169\.254 is a link-local/,
    );
    expect(resolve.calls).toEqual([
      'hooks.example.test',
      'hooks.example.test',
      'hooks.example.test',
    ]);
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('createWebhookClient', () => {
  it('sends with its options, and deliver throws the DeliveryError the worker acts on', async () => {
    const client = createWebhookClient({ policy: LOOPBACK, version: '1.2.3' });
    const target = { url: receiver.url(), secret: receiver.secret };
    await client.deliver(target, PAYLOAD, { deliveryId: 'n1.0' });
    expect(receiver.requests[0]!.headers['user-agent']).toBe('Perch-Webhook/1.2.3');
    receiver.script({ kind: 'status', status: 429, headers: { 'retry-after': '3' } });
    const limited = await client.deliver(target, PAYLOAD).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(DeliveryError);
    expect(limited).toMatchObject({ kind: 'rate_limited', retryAfterMs: 3000 });
    receiver.script({ kind: 'status', status: 410, body: 'gone' });
    await expect(client.deliver(target, PAYLOAD)).rejects.toMatchObject({
      kind: 'permanent',
      reason: 'The endpoint answered 410: gone',
    });
    expect(await client.send(target, PAYLOAD)).toMatchObject({ ok: true });
  });
});
