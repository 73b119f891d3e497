/**
 * How long a request spent on the network, as the browser itself recorded it (Resource Timing):
 * from the moment the request was sent to the last byte of its answer.
 *
 * The page's own clock around `await fetch()` also counts time the request waited inside the
 * browser and time the page was too busy to hear the answer. At page load the first
 * connectivity probe queues behind the app's scripts for a free connection (1.3 s of its 1.5 s
 * on a loaded machine, against 0.2 s on the wire), and a rating made from that says the network
 * is slow when only the page was.
 */

/** A watch started before a request: `settle` once it has finished, `stop` to give up. */
export interface WireTimeWatch {
  /** The request's wire time in ms, or undefined when the browser recorded none in time. */
  settle(): Promise<number | undefined>;
  stop(): void;
}

/** Starts watching for the browser's timing of the next request to `url`. */
export type WatchWireTime = (url: string) => WireTimeWatch;

/**
 * The browser adds a fetch's timing entry a few ms after the fetch resolves (Chromium: 1-5 ms,
 * never at once); a watch waits this long for it before the caller falls back to its own clock.
 */
export const WIRE_TIME_WAIT_MS = 1_000;

const NOTHING: WireTimeWatch = {
  settle: () => Promise.resolve(undefined),
  stop: () => undefined,
};

function resourceTimingSupported(): boolean {
  return (
    typeof window !== 'undefined' &&
    typeof PerformanceObserver !== 'undefined' &&
    (PerformanceObserver.supportedEntryTypes ?? []).includes('resource')
  );
}

/** The request's time from sent to answered; undefined when the browser hid it (0). */
function wireTimeOf(entry: PerformanceResourceTiming): number | undefined {
  if (entry.requestStart <= 0 || entry.responseEnd < entry.requestStart) return undefined;
  return entry.responseEnd - entry.requestStart;
}

/** Resource Timing through a PerformanceObserver; answers nothing where the browser has none. */
export const watchWireTime: WatchWireTime = (url) => {
  if (!resourceTimingSupported()) return NOTHING;
  const name = new URL(url, window.location.href).href;
  const sentAfter = performance.now();
  let found: PerformanceResourceTiming | undefined;
  let wake: (() => void) | undefined;
  const observer = new PerformanceObserver((list) => {
    if (found) return;
    for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
      if (entry.name === name && entry.startTime >= sentAfter) {
        found = entry;
        wake?.();
        return;
      }
    }
  });
  observer.observe({ type: 'resource' });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    clearTimeout(timer);
    observer.disconnect();
  };
  return {
    async settle() {
      if (!found) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, WIRE_TIME_WAIT_MS);
        });
      }
      stop();
      return found ? wireTimeOf(found) : undefined;
    },
    stop,
  };
};

/** For callers that only have their own clock (and tests that set the latency themselves). */
export const noWireTime: WatchWireTime = () => NOTHING;
