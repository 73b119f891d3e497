import { useCallback, useEffect, useRef, useState } from 'react';

/** Display times of inline messages (doc 2 §8.3, §9.2). */
export const SUCCESS_MESSAGE_MS = 3_000;
export const ERROR_MESSAGE_MS = 7_000;
/** '@x data collection completed!' (doc 1 §4, Collecting overlay). */
export const COMPLETED_MESSAGE_MS = 5_000;

export interface TimedMessage {
  kind: 'success' | 'error' | 'info';
  text: string;
}

/** One inline status message that clears itself after its display time. */
export function useTimedMessage() {
  const [message, setMessage] = useState<TimedMessage | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const clear = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    setMessage(null);
  }, []);

  const show = useCallback((next: TimedMessage, durationMs: number) => {
    if (timer.current) clearTimeout(timer.current);
    setMessage(next);
    timer.current = setTimeout(() => {
      timer.current = null;
      setMessage(null);
    }, durationMs);
  }, []);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  return { message, show, clear };
}
