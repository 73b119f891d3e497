import { useCallback, useEffect, useRef, useState } from 'react';

export interface TimedMessage {
  kind: 'success' | 'error' | 'info';
  text: string;
  /** A second, smaller line (e.g. what the service said). */
  details?: string;
}

/**
 * One inline status message that clears itself after its display time: the one given to `show`,
 * else the hook's `durationMs`; with neither it stays until replaced or cleared.
 */
export function useTimedMessage<M extends TimedMessage = TimedMessage>(durationMs?: number) {
  const [message, setMessage] = useState<M | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const clear = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    setMessage(null);
  }, []);

  const show = useCallback(
    (next: M, shownMs: number | undefined = durationMs) => {
      if (timer.current) clearTimeout(timer.current);
      timer.current = null;
      setMessage(next);
      if (shownMs === undefined) return;
      timer.current = setTimeout(() => {
        timer.current = null;
        setMessage(null);
      }, shownMs);
    },
    [durationMs],
  );

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  return { message, show, clear };
}
