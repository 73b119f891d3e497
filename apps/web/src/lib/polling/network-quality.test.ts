import { onlineManager } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectCallsOverTime } from '@/test/fake-clock';
import { NetworkQualityMonitor, rateNetwork, type ProbeResult } from './network-quality';
import { noWireTime, type WatchWireTime } from './wire-time';

function probes(okCount: number, failCount: number, latencyMs: number): ProbeResult[] {
  return [
    ...Array.from({ length: okCount }, () => ({ ok: true, latencyMs })),
    ...Array.from({ length: failCount }, () => ({ ok: false, latencyMs: 5_000 })),
  ];
}

describe('rateNetwork', () => {
  it('is good with no probes yet', () => {
    expect(rateNetwork([])).toMatchObject({ quality: 'good', reliability: 1 });
  });

  it('is poor under 50% reliability or over 5000 ms average', () => {
    expect(rateNetwork(probes(4, 6, 100)).quality).toBe('poor');
    expect(rateNetwork(probes(5, 5, 100)).quality).toBe('slow');
    expect(rateNetwork(probes(10, 0, 5_001)).quality).toBe('poor');
    expect(rateNetwork(probes(10, 0, 5_000)).quality).toBe('slow');
  });

  it('is slow under 80% reliability or over 2000 ms average', () => {
    expect(rateNetwork(probes(7, 3, 100)).quality).toBe('slow');
    expect(rateNetwork(probes(8, 2, 100)).quality).toBe('good');
    expect(rateNetwork(probes(10, 0, 2_001)).quality).toBe('slow');
    expect(rateNetwork(probes(10, 0, 2_000)).quality).toBe('moderate');
  });

  it('is moderate over 1000 ms average, else good', () => {
    expect(rateNetwork(probes(10, 0, 1_001)).quality).toBe('moderate');
    expect(rateNetwork(probes(10, 0, 1_000)).quality).toBe('good');
  });

  it('averages the latency of ok probes only', () => {
    const snapshot = rateNetwork([
      { ok: true, latencyMs: 100 },
      { ok: true, latencyMs: 300 },
      { ok: false, latencyMs: 5_000 },
    ]);
    expect(snapshot.averageLatencyMs).toBe(200);
    expect(snapshot.reliability).toBeCloseTo(2 / 3);
  });
});

describe('NetworkQualityMonitor', () => {
  let latencyMs: number;
  let status: number;
  let fetchMock: ReturnType<typeof vi.fn<typeof fetch>>;
  let monitor: NetworkQualityMonitor;

  beforeEach(() => {
    vi.useFakeTimers();
    latencyMs = 50;
    status = 200;
    fetchMock = vi.fn<typeof fetch>(
      (_input, init) =>
        new Promise<Response>((resolve, reject) => {
          const timer = setTimeout(() => resolve(new Response(null, { status })), latencyMs);
          init?.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new DOMException('aborted', 'AbortError'));
          });
        }),
    );
    // The clock's measure: these tests set the latency through the fake fetch.
    monitor = new NetworkQualityMonitor({ fetch: fetchMock, watchWireTime: noWireTime });
  });

  afterEach(() => {
    monitor.stop();
    onlineManager.setOnline(true);
    vi.useRealTimers();
  });

  it('sends HEAD /api/v1/health without cache at once on start', async () => {
    monitor.start();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/v1/health');
    expect(init).toMatchObject({ method: 'HEAD', cache: 'no-store' });
    await vi.advanceTimersByTimeAsync(50);
    expect(monitor.getSnapshot().results).toEqual([{ ok: true, latencyMs: 50 }]);
  });

  it('forgets its probes on reset and tells the listeners', async () => {
    status = 503;
    monitor.start();
    await vi.advanceTimersByTimeAsync(50);
    expect(monitor.getSnapshot().quality).toBe('poor');
    const listener = vi.fn();
    monitor.subscribe(listener);
    monitor.reset();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(monitor.getSnapshot()).toMatchObject({ quality: 'good', results: [] });
  });

  it('probes every 30 s and stops on stop', async () => {
    monitor.start();
    await expectCallsOverTime(fetchMock, [
      [29_999, 1],
      [1, 2],
      [30_000, 3],
    ]);
    monitor.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('gives a probe up after 5 s and counts it as failed', async () => {
    latencyMs = 60_000;
    const result = monitor.probe();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(monitor.getSnapshot().results).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toEqual({ ok: false, latencyMs: 5_000 });
  });

  it('counts a non-ok answer as failed', async () => {
    status = 503;
    const result = monitor.probe();
    await vi.advanceTimersByTimeAsync(50);
    await expect(result).resolves.toEqual({ ok: false, latencyMs: 50 });
  });

  it('keeps the last 10 results and rates them', async () => {
    latencyMs = 1_500;
    for (let index = 0; index < 12; index += 1) {
      const result = monitor.probe();
      await vi.advanceTimersByTimeAsync(latencyMs);
      await result;
    }
    const snapshot = monitor.getSnapshot();
    expect(snapshot.results).toHaveLength(10);
    expect(snapshot.quality).toBe('moderate');
  });

  it('tells subscribers after every probe with a new snapshot', async () => {
    const listener = vi.fn();
    const unsubscribe = monitor.subscribe(listener);
    const before = monitor.getSnapshot();
    expect(monitor.getSnapshot()).toBe(before);
    const result = monitor.probe();
    await vi.advanceTimersByTimeAsync(50);
    await result;
    expect(listener).toHaveBeenCalledTimes(1);
    expect(monitor.getSnapshot()).not.toBe(before);
    unsubscribe();
    const second = monitor.probe();
    await vi.advanceTimersByTimeAsync(50);
    await second;
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('probes at once when the browser comes back online', async () => {
    monitor.start();
    await vi.advanceTimersByTimeAsync(50);
    window.dispatchEvent(new Event('offline'));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    window.dispatchEvent(new Event('online'));
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  describe("with the browser's own timing of the probe", () => {
    function watching(wireMs: number | undefined) {
      const watch = { settle: vi.fn(() => Promise.resolve(wireMs)), stop: vi.fn() };
      const watchWireTime = vi.fn<WatchWireTime>(() => watch);
      return { watch, watchWireTime };
    }

    it('rates an answered probe by its time on the wire, not the wait before it', async () => {
      // At page load the probe waited 2.5 s for a connection; on the wire it took 200 ms.
      latencyMs = 2_700;
      const { watch, watchWireTime } = watching(200);
      monitor = new NetworkQualityMonitor({ fetch: fetchMock, watchWireTime });
      const result = monitor.probe();
      await vi.advanceTimersByTimeAsync(latencyMs);
      await expect(result).resolves.toEqual({ ok: true, latencyMs: 200 });
      expect(watchWireTime).toHaveBeenCalledWith('/api/v1/health');
      expect(watch.settle).toHaveBeenCalledTimes(1);
      expect(monitor.getSnapshot().quality).toBe('good');
    });

    it('falls back to its clock when the browser recorded nothing', async () => {
      latencyMs = 2_700;
      monitor = new NetworkQualityMonitor({
        fetch: fetchMock,
        watchWireTime: watching(undefined).watchWireTime,
      });
      const result = monitor.probe();
      await vi.advanceTimersByTimeAsync(latencyMs);
      await expect(result).resolves.toEqual({ ok: true, latencyMs: 2_700 });
      expect(monitor.getSnapshot().quality).toBe('slow');
    });

    it('stops watching a probe that failed and counts its clock time', async () => {
      status = 503;
      const { watch, watchWireTime } = watching(10);
      monitor = new NetworkQualityMonitor({ fetch: fetchMock, watchWireTime });
      const result = monitor.probe();
      await vi.advanceTimersByTimeAsync(50);
      await expect(result).resolves.toEqual({ ok: false, latencyMs: 50 });
      expect(watch.stop).toHaveBeenCalledTimes(1);
      expect(watch.settle).not.toHaveBeenCalled();
    });
  });
});
