/**
 * Pacing of outgoing messages: an overall limit plus an optional limit per key (a chat, a user),
 * both counted over a sliding window (external-apis.md §2.4 and §3.4):
 *
 * - Telegram: at most 30 messages a second over all chats and 1 a second per chat.
 * - Discord: at most 50 requests a second per bot.
 *
 * A sliding window and not a token bucket: a send is admitted at `t` only when fewer than the
 * limit were admitted in `(t - windowMs, t]`. A server that counts the same way never sees more
 * than the limit in any window, and a burst up to the limit still goes out at once.
 */
import { abortReason, sleep as realSleep } from '../collector/sources/sleep.js';

export interface RateGateOptions {
  /** Sends admitted per window over all keys. */
  perSecond: number;
  /** Sends admitted per window for one key (one chat); no per-key limit when omitted. */
  perKeyPerSecond?: number;
  /** Length of the window; the limits are per second, so 1000 unless a test says otherwise. */
  windowMs?: number;
  /** Clock (epoch ms). */
  now?: () => number;
  /** Waits; a fake clock advances itself here. Must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RateGate {
  /** Epoch ms from which a send for `key` would be admitted (<= now when it could go at once). */
  whenCanSend(key?: string): number;
  /** Milliseconds to wait before a send for `key` would be admitted (0 when it could go now). */
  delayFor(key?: string): number;
  /** Waits until a send for `key` is admitted and counts it; rejects with the abort reason. */
  acquire(key?: string, signal?: AbortSignal): Promise<void>;
  /** Counts a send for `key` and returns true when it may go now; false (nothing counted) otherwise. */
  tryAcquire(key?: string): boolean;
  /** Holds back every send (or those for `key`) for `ms`, e.g. after a 429 with retry_after. */
  pause(ms: number, key?: string): void;
}

interface KeyState {
  /** Admission instants inside the current window, oldest first. */
  log: number[];
  pausedUntil: number;
}

/** Earliest instant at which `log` (oldest first) leaves room for one more under `limit`. */
function freeAt(log: number[], limit: number, windowMs: number): number {
  if (log.length < limit) return 0;
  return log[log.length - limit]! + windowMs;
}

function prune(log: number[], now: number, windowMs: number): void {
  let expired = 0;
  while (expired < log.length && log[expired]! <= now - windowMs) expired++;
  if (expired > 0) log.splice(0, expired);
}

/** Creates a gate; one instance per bot token, shared by everything that sends with it. */
export function createRateGate(options: RateGateOptions): RateGate {
  const windowMs = options.windowMs ?? 1000;
  const perSecond = options.perSecond;
  const perKey = options.perKeyPerSecond;
  if (!(perSecond >= 1) || (perKey !== undefined && !(perKey >= 1))) {
    throw new RangeError('A rate gate needs limits of at least 1 per window');
  }
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const overall: number[] = [];
  const keys = new Map<string, KeyState>();
  let pausedUntil = 0;
  let lastSweep = 0;

  /** Forgets keys with nothing left in their window, so idle chats cost no memory. */
  function sweep(at: number): void {
    if (at - lastSweep < windowMs) return;
    lastSweep = at;
    for (const [key, state] of keys) {
      prune(state.log, at, windowMs);
      if (state.log.length === 0 && state.pausedUntil <= at) keys.delete(key);
    }
  }

  function whenCanSend(key?: string): number {
    const at = now();
    prune(overall, at, windowMs);
    let earliest = Math.max(at, pausedUntil, freeAt(overall, perSecond, windowMs));
    const state = key === undefined ? undefined : keys.get(key);
    if (state) {
      prune(state.log, at, windowMs);
      earliest = Math.max(earliest, state.pausedUntil);
      if (perKey !== undefined) earliest = Math.max(earliest, freeAt(state.log, perKey, windowMs));
    }
    return earliest;
  }

  function tryAcquire(key?: string): boolean {
    const at = now();
    if (whenCanSend(key) > at) return false;
    sweep(at);
    overall.push(at);
    if (key !== undefined) {
      const state = keys.get(key) ?? { log: [], pausedUntil: 0 };
      state.log.push(at);
      keys.set(key, state);
    }
    return true;
  }

  return {
    whenCanSend,
    delayFor: (key) => Math.max(0, whenCanSend(key) - now()),
    tryAcquire,
    async acquire(key, signal) {
      // Check and count happen in one synchronous step, so concurrent callers never overshoot:
      // the losers of a race simply wait for the next free instant.
      for (;;) {
        if (signal?.aborted) throw abortReason(signal);
        if (tryAcquire(key)) return;
        await sleep(Math.max(1, whenCanSend(key) - now()), signal);
      }
    },
    pause(ms, key) {
      const until = now() + Math.max(0, ms);
      if (key === undefined) {
        pausedUntil = Math.max(pausedUntil, until);
        return;
      }
      const state = keys.get(key) ?? { log: [], pausedUntil: 0 };
      state.pausedUntil = Math.max(state.pausedUntil, until);
      keys.set(key, state);
    },
  };
}

/**
 * The window the service limits are kept over. 10% longer than a second: the gate counts
 * requests when they leave, the service when they arrive, and two requests sent a second apart
 * can arrive closer than that when the first one was slower on the way.
 */
export const SERVICE_WINDOW_MS = 1100;

/** Telegram's limits: 30 messages a second overall, 1 a second per chat (key = chat id). */
export function createTelegramRateGate(
  options: Pick<RateGateOptions, 'now' | 'sleep'> = {},
): RateGate {
  return createRateGate({
    perSecond: 30,
    perKeyPerSecond: 1,
    windowMs: SERVICE_WINDOW_MS,
    ...options,
  });
}

/** Discord's global limit: 50 requests a second per bot. */
export function createDiscordRateGate(
  options: Pick<RateGateOptions, 'now' | 'sleep'> = {},
): RateGate {
  return createRateGate({ perSecond: 50, windowMs: SERVICE_WINDOW_MS, ...options });
}
