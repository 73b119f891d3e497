/**
 * The health numbers (docs/spec-notes.md, Health checking: a check at once and then every
 * 30 s; within 5 s of the last answer a check is answered from it; a waiting caller gives up after
 * 10 s), asserted on timing with fake timers.
 */
import type { Health } from '@perch/shared';
import { QueryObserver } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { expectCallsOverTime, fakeClockWithQueryClient } from '@/test/fake-clock';
import { ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { checkHealth, healthQueryOptions } from './api/get-health';

const HEALTHY: Health = {
  status: 'ok',
  database: 'ok',
  uptimeSeconds: 1,
  version: 'test',
  timestamp: '2026-01-01T00:00:00.000Z',
};
const HEALTH_PATH = 'GET /api/v1/health';

const queryClient = fakeClockWithQueryClient();

function mount(queryFn: () => Promise<Health>) {
  const observer = new QueryObserver(queryClient(), { ...healthQueryOptions(), queryFn });
  return observer.subscribe(() => undefined);
}

describe('health query', () => {
  it('checks at once and then every 30 s', async () => {
    const queryFn = vi.fn(async () => HEALTHY);
    const unmount = mount(queryFn);
    await expectCallsOverTime(queryFn, [
      [0, 1],
      [29_999, 1],
      [1, 2],
      [30_000, 3],
    ]);
    unmount();
  });

  it('answers a new subscriber within 5 s of the last check from the cache', async () => {
    const queryFn = vi.fn(async () => HEALTHY);
    const first = mount(queryFn);
    await vi.advanceTimersByTimeAsync(0);
    expect(queryFn).toHaveBeenCalledTimes(1);

    await vi.advanceTimersByTimeAsync(4_999);
    const second = mount(queryFn);
    await vi.advanceTimersByTimeAsync(0);
    expect(queryFn).toHaveBeenCalledTimes(1);

    await vi.advanceTimersByTimeAsync(1);
    const third = mount(queryFn);
    await vi.advanceTimersByTimeAsync(0);
    expect(queryFn).toHaveBeenCalledTimes(2);
    first();
    second();
    third();
  });
});

describe('checkHealth', () => {
  it('answers from the last result until exactly 5 s have passed, unless forced', async () => {
    const fetchMock = stubFetch({ [HEALTH_PATH]: () => ok(HEALTHY) });
    const checks = () => requestsTo(fetchMock, HEALTH_PATH).length;
    await expect(checkHealth(queryClient())).resolves.toEqual({ ok: true, health: HEALTHY });
    expect(checks()).toBe(1);

    await vi.advanceTimersByTimeAsync(4_999);
    await checkHealth(queryClient());
    expect(checks()).toBe(1);
    await checkHealth(queryClient(), { force: true });
    expect(checks()).toBe(2);

    // The forced check answered at 4 999 ms; its answer is reused until 9 999 ms.
    await vi.advanceTimersByTimeAsync(4_999);
    await checkHealth(queryClient());
    expect(checks()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    await checkHealth(queryClient());
    expect(checks()).toBe(3);
  });

  it("gives a waiting caller up after 10 s with 'Health check timeout'", async () => {
    stubFetch({
      [HEALTH_PATH]: () =>
        new Promise<Response>((resolve) => {
          setTimeout(() => resolve(ok(HEALTHY)), 12_000);
        }),
    });
    let outcome: unknown;
    void checkHealth(queryClient()).then((result) => {
      outcome = result;
    });
    await vi.advanceTimersByTimeAsync(9_999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toEqual({ ok: false, message: 'Health check timeout' });
  });
});
