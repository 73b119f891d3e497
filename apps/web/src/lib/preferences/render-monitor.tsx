import { SLOW_RENDER_THRESHOLD_MS } from '@perch/shared';
import { Profiler, useEffect, type ProfilerOnRenderCallback, type ReactNode } from 'react';
import { logger } from '@/lib/logger';
import { usePreferences } from './preferences';

/**
 * Logs a render of a monitored tree that took longer than SLOW_RENDER_THRESHOLD_MS (one 60 Hz
 * frame) as a warning; faster renders pass silently.
 */
export const logSlowRender: ProfilerOnRenderCallback = (
  id,
  phase,
  actualDuration,
  baseDuration,
) => {
  if (actualDuration <= SLOW_RENDER_THRESHOLD_MS) return;
  logger.warn(
    `Slow render: "${id}" (${phase}) took ${actualDuration.toFixed(1)} ms, over the ${SLOW_RENDER_THRESHOLD_MS} ms budget`,
    { id, phase, actualDuration, baseDuration },
  );
};

/** An Event Timing entry: the time from an input to the frame painted after handling it. */
interface EventTimingEntry extends PerformanceEntry {
  processingStart?: number;
  processingEnd?: number;
}

/**
 * Watches interactions whose next frame came later than 16 ms after the input (the Event Timing
 * API, whose smallest threshold is exactly one 60 Hz frame) and logs them. Unlike the Profiler,
 * this works in production builds. Returns the disconnect; a no-op where the API is missing.
 */
export function observeSlowInteractions(): () => void {
  if (
    typeof PerformanceObserver === 'undefined' ||
    !PerformanceObserver.supportedEntryTypes?.includes('event')
  ) {
    return () => undefined;
  }
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as EventTimingEntry[]) {
      if (entry.duration <= SLOW_RENDER_THRESHOLD_MS) continue;
      const handling = (entry.processingEnd ?? 0) - (entry.processingStart ?? 0);
      logger.warn(
        `Slow frame after ${entry.name}: ${entry.duration.toFixed(0)} ms to the next paint (${handling.toFixed(1)} ms in handlers), over the ${SLOW_RENDER_THRESHOLD_MS} ms budget`,
      );
    }
  });
  observer.observe({
    type: 'event',
    durationThreshold: SLOW_RENDER_THRESHOLD_MS,
    buffered: false,
  } as PerformanceObserverInit);
  return () => observer.disconnect();
}

export interface RenderMonitorProps {
  /** Names the tree in the log lines, e.g. 'page'. */
  id: string;
  children: ReactNode;
}

/**
 * Performance monitoring (opt-in in Settings): while it is on, renders of `children`
 * slower than 16 ms are logged to the console. While it is off there is no Profiler at all, so
 * the tree pays nothing for it; switching it either way remounts `children` once.
 *
 * React calls a Profiler's onRender in development and in its profiling build only (the
 * profiling build would cost every visitor about 11 kB), so production builds rely on the
 * Event Timing watch of {@link observeSlowInteractions}, which runs in every build while the
 * monitor is on.
 */
export function RenderMonitor({ id, children }: RenderMonitorProps) {
  const [{ performanceMonitoring }] = usePreferences();
  useEffect(
    () => (performanceMonitoring ? observeSlowInteractions() : undefined),
    [performanceMonitoring],
  );
  if (!performanceMonitoring) return children;
  return (
    <Profiler id={id} onRender={logSlowRender}>
      {children}
    </Profiler>
  );
}
