import { MESSAGES } from '@perch/shared';
import { describe, expect, it, vi } from 'vitest';
import { runOnFakeClock } from '@/test/fake-clock';
import {
  DuplicateRequestError,
  RequestGate,
  endpointKey,
  isDuplicateExempt,
  requestKey,
} from './request-gate';

/** A send function whose answer the test releases. */
function deferred<T>(value: T) {
  let release!: () => void;
  const promise = new Promise<T>((resolve) => {
    release = () => resolve(value);
  });
  return { send: vi.fn(() => promise), release };
}

describe('request keys', () => {
  it('names the endpoint by method and path without the query', () => {
    expect(endpointKey({ url: '/settings?x=1' })).toBe('GET /api/v1/settings');
    expect(endpointKey({ method: 'post', url: '/api/v1/settings' })).toBe('POST /api/v1/settings');
  });

  it('tells identical requests by method, full URL and body', () => {
    expect(requestKey({ method: 'PUT', url: '/settings?x=1', body: { a: 1 } })).toBe(
      requestKey({ method: 'PUT', url: '/api/v1/settings?x=1', body: { a: 1 } }),
    );
    expect(requestKey({ url: '/settings?x=1' })).not.toBe(requestKey({ url: '/settings?x=2' }));
    expect(requestKey({ method: 'PUT', url: '/settings', body: { a: 1 } })).not.toBe(
      requestKey({ method: 'PUT', url: '/settings', body: { a: 2 } }),
    );
  });

  it('exempts heartbeat, health, handles, admin GET and analytics GET', () => {
    expect(isDuplicateExempt({ method: 'POST', url: '/session/heartbeat' })).toBe(true);
    expect(isDuplicateExempt({ method: 'HEAD', url: '/health' })).toBe(true);
    expect(isDuplicateExempt({ url: '/handles' })).toBe(true);
    expect(isDuplicateExempt({ method: 'POST', url: '/handles' })).toBe(true);
    expect(isDuplicateExempt({ url: '/admin/users' })).toBe(true);
    expect(isDuplicateExempt({ method: 'DELETE', url: '/handles/1' })).toBe(true);
    expect(isDuplicateExempt({ method: 'DELETE', url: '/admin/handles/1' })).toBe(false);
    expect(isDuplicateExempt({ method: 'POST', url: '/admin/users/1/clear' })).toBe(false);
    expect(isDuplicateExempt({ url: '/analytics/profile?handle=x' })).toBe(true);
    expect(isDuplicateExempt({ method: 'POST', url: '/analytics/refresh' })).toBe(false);
    expect(isDuplicateExempt({ url: '/settings' })).toBe(false);
  });
});

describe('RequestGate', () => {
  runOnFakeClock(new Date('2026-01-01T00:00:00Z'));

  it('makes a second request to an endpoint within 500 ms wait out the remainder', async () => {
    const gate = new RequestGate();
    const first = vi.fn(async () => 'first');
    const second = vi.fn(async () => 'second');
    const third = vi.fn(async () => 'third');
    await expect(gate.run({ url: '/settings?a=1' }, first)).resolves.toBe('first');
    await vi.advanceTimersByTimeAsync(200);
    const secondResult = gate.run({ url: '/settings?a=2' }, second);
    const thirdResult = gate.run({ url: '/settings?a=3' }, third);
    await vi.advanceTimersByTimeAsync(299);
    expect(second).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(second).toHaveBeenCalledOnce();
    await expect(secondResult).resolves.toBe('second');
    await vi.advanceTimersByTimeAsync(499);
    expect(third).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await expect(thirdResult).resolves.toBe('third');
  });

  it('does not delay other endpoints or a request after the gap', async () => {
    const gate = new RequestGate();
    await gate.run({ url: '/settings' }, async () => 1);
    const other = vi.fn(async () => 2);
    await gate.run({ method: 'PUT', url: '/settings' }, other);
    expect(other).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(500);
    const later = vi.fn(async () => 3);
    await gate.run({ url: '/settings' }, later);
    expect(later).toHaveBeenCalledOnce();
  });

  it("cancels an identical in-flight request with 'Duplicate request canceled'", async () => {
    const gate = new RequestGate();
    const request = { method: 'PUT', url: '/settings', body: { a: 1 } };
    const first = deferred('saved');
    const duplicate = vi.fn(async () => 'again');
    const firstResult = gate.run(request, first.send);
    const error = await gate.run(request, duplicate).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateRequestError);
    expect((error as Error).message).toBe('Duplicate request canceled');
    expect((error as Error).message).toBe(MESSAGES.duplicateRequest);
    expect(duplicate).not.toHaveBeenCalled();
    first.release();
    await expect(firstResult).resolves.toBe('saved');
    await vi.advanceTimersByTimeAsync(500);
    await expect(gate.run(request, duplicate)).resolves.toBe('again');
  });

  it('lets the fetch that replaces a cancelled request go, and keeps it in flight', async () => {
    const gate = new RequestGate();
    const request = { url: '/bot/status' };
    const cancelled = new AbortController();
    const stale = deferred('before the change');
    const staleResult = gate.run({ ...request, signal: cancelled.signal }, stale.send);
    // The query is fetched again after a change: the first fetch is cancelled, not waited for.
    cancelled.abort();
    const fresh = deferred('after the change');
    const freshResult = gate.run({ ...request, signal: new AbortController().signal }, fresh.send);
    // The cancelled one ending does not free the key of the one that replaced it.
    stale.release();
    await expect(staleResult).resolves.toBe('before the change');
    await expect(gate.run(request, async () => 'third')).rejects.toThrow(DuplicateRequestError);
    await vi.advanceTimersByTimeAsync(500);
    expect(fresh.send).toHaveBeenCalledOnce();
    fresh.release();
    await expect(freshResult).resolves.toBe('after the change');
  });

  it('counts a request waiting out the gap as in flight, and frees it on failure', async () => {
    const gate = new RequestGate();
    await gate.run({ url: '/settings' }, async () => 0);
    const waiting = gate.run({ url: '/settings' }, async () => {
      throw new Error('down');
    });
    await expect(gate.run({ url: '/settings' }, async () => 1)).rejects.toThrow(
      'Duplicate request canceled',
    );
    const settled = expect(waiting).rejects.toThrow('down');
    await vi.advanceTimersByTimeAsync(500);
    await settled;
    await vi.advanceTimersByTimeAsync(500);
    await expect(gate.run({ url: '/settings' }, async () => 2)).resolves.toBe(2);
  });

  it('lets identical exempt requests through, each sent on its own', async () => {
    const gate = new RequestGate();
    const first = deferred('a');
    const second = deferred('b');
    const one = gate.run({ url: '/analytics/profile?handle=x' }, first.send);
    const two = gate.run({ url: '/analytics/profile?handle=x' }, second.send);
    expect(first.send).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(500);
    expect(second.send).toHaveBeenCalledOnce();
    first.release();
    second.release();
    await expect(one).resolves.toBe('a');
    await expect(two).resolves.toBe('b');
  });

  it('takes an injected clock and sleep', async () => {
    let now = 1_000;
    const sleep = vi.fn(async (ms: number) => {
      now += ms;
    });
    const gate = new RequestGate({ now: () => now, sleep });
    await gate.run({ url: '/settings' }, async () => 1);
    now += 120;
    await gate.run({ url: '/settings' }, async () => 2);
    expect(sleep).toHaveBeenCalledExactlyOnceWith(380);
  });
});
