import { SLOW_RENDER_THRESHOLD_MS } from '@perch/shared';
import { Profiler, type ProfilerOnRenderCallback, type ReactNode } from 'react';
import { logger } from '@/lib/logger';
import { usePreferences } from './preferences';

/**
 * Logs a render of a monitored tree that took longer than SLOW_RENDER_THRESHOLD_MS (one 60 Hz
 * frame, doc 2 §9.5) as a warning; faster renders pass silently.
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

export interface RenderMonitorProps {
  /** Names the tree in the log lines, e.g. 'page'. */
  id: string;
  children: ReactNode;
}

/**
 * Performance monitoring (doc 2 §9.5, opt-in in Settings): while it is on, renders of `children`
 * slower than 16 ms are logged to the console. While it is off there is no Profiler at all, so
 * the tree pays nothing for it; switching it either way remounts `children` once.
 *
 * React calls a Profiler's onRender in development and in its profiling build only: in a
 * production bundle the monitor logs nothing unless `react-dom/client` is aliased to
 * `react-dom/profiling`.
 */
export function RenderMonitor({ id, children }: RenderMonitorProps) {
  const [{ performanceMonitoring }] = usePreferences();
  if (!performanceMonitoring) return children;
  return (
    <Profiler id={id} onRender={logSlowRender}>
      {children}
    </Profiler>
  );
}
