import type { CollectorEvents } from '../domain/collector-events.js';
import type { Logger } from '../lib/logger.js';

/**
 * Logs each handle status change made by this process ('handle status'), once: in scale-out mode
 * the changes of the other nodes reach this one's listeners too, but not its log.
 */
export function logHandleStatus(events: CollectorEvents, log: Logger): void {
  events.onOwn('handle.status', ({ username, status, error }) =>
    log.info({ handle: username, status, error }, 'handle status'),
  );
}
