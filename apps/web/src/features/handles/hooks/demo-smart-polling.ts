import { useCallback, useEffect, useRef, useState } from 'react';
import {
  DEMO_PROGRESS_POLL_IDLE_MS,
  HANDLES_POLL_COLLECTING_MS,
  HANDLES_POLL_IDLE_MS,
  PROGRESS_POLL_MS,
} from '@/lib/polling/intervals';

/** Activity newer than this counts as recent and keeps polling fast. */
export const DEMO_RECENT_ACTIVITY_MS = 10_000;

export type DemoActivityKind = 'handles' | 'progress';
const KINDS: readonly DemoActivityKind[] = ['handles', 'progress'];

/** When each kind last saw activity (epoch ms), or null when it never did. */
export type DemoActivity = Record<DemoActivityKind, number | null>;

/**
 * The demo's poll intervals (docs/spec-notes.md, Retries): the handle list every 3 s while a
 * handle collects or after recent activity, else every 30 s; progress every 2 s while active,
 * else every 10 s.
 */
export function demoPollInterval(kind: DemoActivityKind, active: boolean): number {
  if (kind === 'handles') return active ? HANDLES_POLL_COLLECTING_MS : HANDLES_POLL_IDLE_MS;
  return active ? PROGRESS_POLL_MS : DEMO_PROGRESS_POLL_IDLE_MS;
}

/**
 * Smart polling of the demo panel: recording activity makes the polls fast for the next 10 s,
 * then they fall back to their slow pace by themselves.
 */
export function useDemoSmartPolling() {
  const [lastActivity, setLastActivity] = useState<DemoActivity>({
    handles: null,
    progress: null,
  });
  const [recent, setRecent] = useState<Record<DemoActivityKind, boolean>>({
    handles: false,
    progress: false,
  });
  const timers = useRef<Partial<Record<DemoActivityKind, ReturnType<typeof setTimeout>>>>({});

  const recordActivity = useCallback((kinds: readonly DemoActivityKind[] = KINDS) => {
    const now = Date.now();
    setLastActivity((current) => {
      const next = { ...current };
      for (const kind of kinds) next[kind] = now;
      return next;
    });
    setRecent((current) => {
      const next = { ...current };
      for (const kind of kinds) next[kind] = true;
      return next;
    });
    for (const kind of kinds) {
      clearTimeout(timers.current[kind]);
      timers.current[kind] = setTimeout(() => {
        delete timers.current[kind];
        setRecent((current) => ({ ...current, [kind]: false }));
      }, DEMO_RECENT_ACTIVITY_MS);
    }
  }, []);

  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const kind of KINDS) clearTimeout(pending[kind]);
    };
  }, []);

  /** The interval of a poll, given whether its subject is busy (a backfill running). */
  const intervalOf = useCallback(
    (kind: DemoActivityKind, busy: boolean) => demoPollInterval(kind, busy || recent[kind]),
    [recent],
  );

  return { lastActivity, recent, recordActivity, intervalOf };
}
