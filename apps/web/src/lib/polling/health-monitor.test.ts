import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HealthMonitor } from './health-monitor';

const HEALTHY = { success: true, data: { status: 'ok' } };

describe('HealthMonitor', () => {
  let latencyMs: number;
  let answer: () => Response;
  let fetchMock: ReturnType<typeof vi.fn<typeof fetch>>;
  let monitor: HealthMonitor;

  beforeEach(() => {
    vi.useFakeTimers();
    latencyMs = 10;
    answer = () => Response.json(HEALTHY);
    fetchMock = vi.fn<typeof fetch>(
      () => new Promise<Response>((resolve) => setTimeout(() => resolve(answer()), latencyMs)),
    );
    monitor = new HealthMonitor({ fetch: fetchMock });
  });

  afterEach(() => {
    monitor.stop();
    vi.useRealTimers();
  });

  async function settle<T>(promise: Promise<T>, ms = latencyMs): Promise<T> {
    await vi.advanceTimersByTimeAsync(ms);
    return promise;
  }

  it('sends GET /api/v1/health and reads data on success', async () => {
    const result = await settle(monitor.check());
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/v1/health');
    expect(fetchMock.mock.calls[0]?.[1]).toMatchObject({ method: 'GET' });
    expect(result).toMatchObject({ success: true, status: 200, data: { status: 'ok' } });
  });

  it('reads the server message of a failure, else the error, else Could not connect to API', async () => {
    answer = () =>
      Response.json({ success: false, message: 'DB down', code: 'X' }, { status: 503 });
    expect(await settle(monitor.check({ force: true }))).toMatchObject({
      success: false,
      status: 503,
      message: 'DB down',
    });
    answer = () => new Response('nope', { status: 502 });
    expect(await settle(monitor.check({ force: true }))).toMatchObject({
      message: 'Could not connect to API',
    });
    fetchMock.mockImplementationOnce(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(await monitor.check({ force: true })).toMatchObject({
      success: false,
      status: 0,
      message: 'Failed to fetch',
    });
  });

  it('answers from the last result within 5 s unless forced', async () => {
    const first = await settle(monitor.check());
    await vi.advanceTimersByTimeAsync(4_980);
    expect(await monitor.check()).toBe(first);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await settle(monitor.check({ force: true }));
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(5_000);
    await settle(monitor.check());
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('lets a caller wait for the running check', async () => {
    latencyMs = 3_000;
    const first = monitor.check();
    const second = monitor.check({ force: true });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await second).toBe(await first);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('gives a waiting caller up after 10 s with Health check timeout', async () => {
    latencyMs = 12_000;
    const first = monitor.check();
    const waiting = monitor.check();
    await vi.advanceTimersByTimeAsync(9_999);
    let settled = false;
    void waiting.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waiting).toMatchObject({ success: false, message: 'Health check timeout' });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await first).toMatchObject({ success: true });
  });

  it('checks automatically 1 s after start and then every 30 s', async () => {
    monitor.start();
    await vi.advanceTimersByTimeAsync(999);
    expect(fetchMock).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    monitor.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('pushes every new answer to subscribers', async () => {
    const listener = vi.fn();
    monitor.subscribe(listener);
    expect(monitor.getSnapshot()).toBeUndefined();
    const result = await settle(monitor.check());
    expect(listener).toHaveBeenCalledTimes(1);
    expect(monitor.getSnapshot()).toBe(result);
    await monitor.check();
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('says No previous result available before the first answer', () => {
    expect(monitor.lastResult()).toMatchObject({
      success: false,
      message: 'No previous result available',
    });
  });
});
