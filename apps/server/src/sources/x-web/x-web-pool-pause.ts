/**
 * The x-web pool's pause while X answers web requests with HTML pages (a Cloudflare challenge,
 * a block page): the server is refused, not an account. 1 minute, doubling with each refusal in
 * a row, up to 30 minutes; the first answer that gets through ends it. Kept in x_web_state so
 * every process pauses, and read again by each process at most every 5 seconds.
 */
import type { Kysely } from 'kysely';
import { X_WEB_MESSAGES } from '@perch/shared';
import type { Database } from '../../db/types.js';
import { readXWebPause, writeXWebPause, type XWebPause } from './x-web-accounts.repository.js';
import { SourceError } from '../../domain/tweet-source.js';

export const FIRST_PAUSE_MS = 60_000;
export const MAX_PAUSE_MS = 30 * 60_000;
/** How long a process trusts its last read of the pause (other processes may set or end it). */
const PAUSE_READ_MS = 5_000;

export function createPoolPause(db: Kysely<Database>, now: () => number) {
  let seen: { pause: XWebPause; readAt: number } | null = null;
  const iso = (ms: number) => new Date(ms).toISOString();

  async function read(): Promise<XWebPause> {
    const at = now();
    if (!seen || at - seen.readAt >= PAUSE_READ_MS) {
      seen = { pause: await readXWebPause(db), readAt: at };
    }
    return seen.pause;
  }

  /** What requests get while the pool is paused: wait until the pause ends. */
  function errorOf(pause: XWebPause): SourceError {
    const until = Date.parse(pause.pausedUntil ?? '') || now();
    return new SourceError(
      'rate_limited',
      `${X_WEB_MESSAGES.poolPaused} (${pause.reason ?? 'an HTML page'}); trying again at ${new Date(until).toISOString()}`,
      Math.max(1_000, until - now()),
    );
  }

  return {
    read,
    errorOf,

    /** The pause in force now, or null. */
    async current(): Promise<XWebPause | null> {
      const pause = await read();
      return pause.pausedUntil && Date.parse(pause.pausedUntil) > now() ? pause : null;
    },

    /** X answered with an HTML page (`reason`): the next, longer pause; its error. */
    async pauseFor(reason: string): Promise<SourceError> {
      const before = await read();
      const at = now();
      const step = before.step + 1;
      const wait = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (step - 1));
      const pause: XWebPause = {
        pausedUntil: iso(at + wait),
        reason,
        since: before.since ?? iso(at),
        step,
      };
      await writeXWebPause(db, pause);
      seen = { pause, readAt: at };
      return errorOf(pause);
    },

    /** A request got through: a pause (if any) ends and the backoff starts again at 1 minute. */
    async resumed(): Promise<void> {
      const pause = await read();
      if (pause.step === 0 && pause.pausedUntil === null) return;
      const clear: XWebPause = { pausedUntil: null, reason: null, since: null, step: 0 };
      await writeXWebPause(db, clear);
      seen = { pause: clear, readAt: now() };
    },
  };
}
