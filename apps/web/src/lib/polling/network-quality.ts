import {
  NETWORK_MODERATE_LATENCY_ABOVE_MS,
  NETWORK_POOR_LATENCY_ABOVE_MS,
  NETWORK_POOR_RELIABILITY_BELOW,
  NETWORK_PROBE_HISTORY,
  NETWORK_PROBE_TIMEOUT_MS,
  NETWORK_SLOW_LATENCY_ABOVE_MS,
  NETWORK_SLOW_RELIABILITY_BELOW,
  type NetworkQuality,
} from '@perch/shared';
import { onlineManager } from '@tanstack/react-query';
import { NETWORK_PROBE_INTERVAL_MS } from '@/lib/polling/intervals';
import { apiUrl } from '../api-url';
import { watchWireTime, type WatchWireTime } from './wire-time';

/** One connectivity probe: whether it answered ok and how long it took. */
export interface ProbeResult {
  ok: boolean;
  latencyMs: number;
}

/** What the monitor knows; a new object after every probe (for useSyncExternalStore). */
export interface NetworkSnapshot {
  quality: NetworkQuality;
  /** Share of ok probes among those kept, 0-1; 1 before the first probe. */
  reliability: number;
  /** Average latency of the ok probes kept; 0 when there are none. */
  averageLatencyMs: number;
  /** The last 10 probes, oldest first. */
  results: readonly ProbeResult[];
}

/**
 * Rates kept probes: poor under 50% reliability or over 5000 ms average, slow under
 * 80% or over 2000 ms, moderate over 1000 ms, else good. The average covers ok probes only (a
 * timed-out probe says nothing about latency and already lowers reliability). No probes yet is
 * good: nothing says otherwise.
 */
export function rateNetwork(results: readonly ProbeResult[]): NetworkSnapshot {
  if (results.length === 0) {
    return { quality: 'good', reliability: 1, averageLatencyMs: 0, results };
  }
  const okResults = results.filter((result) => result.ok);
  const reliability = okResults.length / results.length;
  const averageLatencyMs =
    okResults.length === 0
      ? 0
      : okResults.reduce((sum, result) => sum + result.latencyMs, 0) / okResults.length;
  let quality: NetworkQuality = 'good';
  if (
    reliability < NETWORK_POOR_RELIABILITY_BELOW ||
    averageLatencyMs > NETWORK_POOR_LATENCY_ABOVE_MS
  ) {
    quality = 'poor';
  } else if (
    reliability < NETWORK_SLOW_RELIABILITY_BELOW ||
    averageLatencyMs > NETWORK_SLOW_LATENCY_ABOVE_MS
  ) {
    quality = 'slow';
  } else if (averageLatencyMs > NETWORK_MODERATE_LATENCY_ABOVE_MS) {
    quality = 'moderate';
  }
  return { quality, reliability, averageLatencyMs, results };
}

export interface NetworkQualityMonitorOptions {
  /** The browser boundary; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Milliseconds clock for latencies; defaults to Date.now. */
  now?: () => number;
  /** Called when the browser comes back online; defaults to TanStack's onlineManager. */
  subscribeOnline?: (onOnline: () => void) => () => void;
  /**
   * The browser's own timing of a probe (wire-time.ts), preferred to the clock for an answered
   * probe; defaults to Resource Timing.
   */
  watchWireTime?: WatchWireTime;
}

function onlineManagerSubscription(onOnline: () => void): () => void {
  return onlineManager.subscribe((online) => {
    if (online) onOnline();
  });
}

/**
 * Connectivity monitor: HEAD /api/v1/health without cache every 30 s, at once
 * on start and on reconnect, each probe given up after 5 s. Keeps the last 10 results and rates
 * the network from them.
 */
export class NetworkQualityMonitor {
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly subscribeOnline: (onOnline: () => void) => () => void;
  private readonly watchWireTime: WatchWireTime;
  private readonly listeners = new Set<() => void>();
  private snapshot: NetworkSnapshot = rateNetwork([]);
  private timer: ReturnType<typeof setInterval> | undefined;
  private unsubscribeOnline: (() => void) | undefined;

  constructor(options: NetworkQualityMonitorOptions = {}) {
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.now = options.now ?? Date.now;
    this.subscribeOnline = options.subscribeOnline ?? onlineManagerSubscription;
    this.watchWireTime = options.watchWireTime ?? watchWireTime;
  }

  /** Registers a listener called after every probe; returns its removal. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The current rating (a stable object between probes). */
  getSnapshot = (): NetworkSnapshot => this.snapshot;

  /** Probes at once, then every 30 s and whenever the browser comes back online. */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.probe(), NETWORK_PROBE_INTERVAL_MS);
    this.unsubscribeOnline = this.subscribeOnline(() => void this.probe());
    void this.probe();
  }

  /** Stops probing; the snapshot stays. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribeOnline?.();
    this.unsubscribeOnline = undefined;
  }

  /**
   * Forgets the kept probes (the rating is good again until new probes say otherwise): after an
   * outage of the server, its failed probes say nothing about the network.
   */
  reset(): void {
    this.snapshot = rateNetwork([]);
    for (const listener of this.listeners) listener();
  }

  /**
   * Sends one probe, records its result and tells the listeners. An answered probe's latency is
   * its time on the network as the browser recorded it, when it did: the clock around the fetch
   * also counts the wait for a connection at page load and a busy page (wire-time.ts).
   */
  async probe(): Promise<ProbeResult> {
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(), NETWORK_PROBE_TIMEOUT_MS);
    const url = apiUrl('/health');
    const wire = this.watchWireTime(url);
    const startedAt = this.now();
    let ok = false;
    try {
      const response = await this.fetchFn(url, {
        method: 'HEAD',
        cache: 'no-store',
        signal: controller.signal,
      });
      ok = response.ok;
    } catch {
      ok = false;
    } finally {
      clearTimeout(timeout);
    }
    const clockMs = this.now() - startedAt;
    let latencyMs = clockMs;
    if (ok) latencyMs = (await wire.settle()) ?? clockMs;
    else wire.stop();
    const result: ProbeResult = { ok, latencyMs };
    const results = [...this.snapshot.results, result].slice(-NETWORK_PROBE_HISTORY);
    this.snapshot = rateNetwork(results);
    for (const listener of this.listeners) listener();
    return result;
  }
}
