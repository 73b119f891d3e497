import { useCallback, useEffect, useRef, useState } from 'react';

export interface TimedMessage {
  kind: 'success' | 'error';
  text: string;
  /** A second, smaller line (e.g. what the service said). */
  details?: string;
}

/** One message that clears itself `durationMs` after it was shown (or when replaced). */
export function useTimedMessage(durationMs: number) {
  const [message, setMessage] = useState<TimedMessage | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const clear = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    setMessage(null);
  }, []);

  const show = useCallback(
    (next: TimedMessage) => {
      if (timer.current) clearTimeout(timer.current);
      setMessage(next);
      timer.current = setTimeout(() => {
        timer.current = null;
        setMessage(null);
      }, durationMs);
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
