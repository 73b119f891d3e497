/**
 * Pacing of outgoing messages: an overall limit plus an optional limit per key (a chat, a user),
 * both counted over a sliding window (docs/spec-notes.md, Telegram limits, Discord limits):
 *
 * - Telegram: at most 30 messages a second over all chats and 1 a second per chat; a group (a
 *   chat id starting with '-') may also get no more than 20 a minute.
 * - Discord: at most 50 requests a second per bot.
 *
 * A sliding window and not a token bucket: a send is admitted at `t` only when fewer than the
 * limit were admitted in `(t - windowMs, t]`. A server that counts the same way never sees more
 * than the limit in any window, and a burst up to the limit still goes out at once.
 *
 * A send may weigh more than one: an album of n photos is n messages to Telegram. It is admitted
 * when `min(n, limit)` of them fit in each window, and the rest are booked at the instants they
 * would have gone one by one (an album of 3 to a chat allowed 1 a second holds that chat for 3
 * windows), so whatever comes after it waits as if n messages had been sent.
 */
import { abortReason, sleep as realSleep } from '../lib/sleep.js';

/** A second, longer limit for some keys only, on top of `perKeyPerSecond`. */
export interface KeyWindowLimit {
  /** Sends admitted per `windowMs` for one such key. */
  limit: number;
  windowMs: number;
  /** Which keys it applies to (Telegram: groups, whose chat ids start with '-'). */
  appliesTo: (key: string) => boolean;
}

export interface RateGateOptions {
  /** Sends admitted per window over all keys. */
  perSecond: number;
  /** Sends admitted per window for one key (one chat); no per-key limit when omitted. */
  perKeyPerSecond?: number;
  /** A longer window for some keys, e.g. Telegram's 20 messages a minute to a group. */
  slowKeys?: KeyWindowLimit;
  /** Length of the window; the limits are per second, so 1000 unless a test says otherwise. */
  windowMs?: number;
  /**
   * Also admit at most half the overall limit per half window: the same rate, without a whole
   * window's sends leaving at once, which a stall of this process could push out together (a
   * 429 at the service). Default false.
   */
  smooth?: boolean;
  /**
   * How many processes send with the same bot token (scale-out): each keeps to its share of
   * the overall limit. Read at every admission; default 1.
   */
  share?: () => number;
  /** Clock (epoch ms). */
  now?: () => number;
  /** Waits; a fake clock advances itself here. Must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * `weight` is how many messages a send counts as (default 1): an album of n photos is n.
 */
export interface RateGate {
  /** Epoch ms from which a send for `key` would be admitted (<= now when it could go at once). */
  whenCanSend(key?: string, weight?: number): number;
  /** Milliseconds to wait before a send for `key` would be admitted (0 when it could go now). */
  delayFor(key?: string, weight?: number): number;
  /** Waits until a send for `key` is admitted and counts it; rejects with the abort reason. */
  acquire(key?: string, signal?: AbortSignal, weight?: number): Promise<void>;
  /** Counts a send for `key` and returns true when it may go now; false (nothing counted) otherwise. */
  tryAcquire(key?: string, weight?: number): boolean;
  /** Holds back every send (or those for `key`) for `ms`, e.g. after a 429 with retry_after. */
  pause(ms: number, key?: string): void;
}

interface KeyState {
  /** Admission instants inside the current window, oldest first (booked ones may be later). */
  log: number[];
  /** The same over the slow window, for keys it applies to. */
  slowLog: number[];
  pausedUntil: number;
}

/**
 * Earliest instant at which `log` (oldest first) leaves room for `count` (<= limit) more under
 * `limit`: when no more than `limit - count` of its instants are left in the window.
 */
function freeAt(log: number[], limit: number, windowMs: number, count: number): number {
  const keep = limit - Math.min(count, limit);
  if (log.length <= keep) return 0;
  return log[log.length - keep - 1]! + windowMs;
}

/** Counts `weight` sends admitted at `at`: those that do not fit now are booked when they would. */
function book(log: number[], limit: number, windowMs: number, at: number, weight: number): void {
  for (let i = 0; i < weight; i++) log.push(Math.max(at, freeAt(log, limit, windowMs, 1)));
}

/** Messages a send counts as: a whole number, at least 1. */
const countOf = (weight: number | undefined) =>
  weight !== undefined && Number.isFinite(weight) && weight > 1 ? Math.floor(weight) : 1;

function prune(log: number[], now: number, windowMs: number): void {
  let expired = 0;
  while (expired < log.length && log[expired]! <= now - windowMs) expired++;
  if (expired > 0) log.splice(0, expired);
}

/**
 * A gate of sliding windows (this file's header); one instance per bot token, shared by
 * everything that sends with it.
 */
export class SlidingWindowRateGate implements RateGate {
  private readonly windowMs: number;
  private readonly perSecond: number;
  private readonly perKey: number | undefined;
  private readonly slow: KeyWindowLimit | undefined;
  private readonly smooth: boolean;
  private readonly share: () => number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Admission instants over all keys, oldest first. */
  private readonly overall: number[] = [];
  private readonly keys = new Map<string, KeyState>();
  private pausedUntil = 0;
  private lastSweep = 0;

  constructor(options: RateGateOptions) {
    this.windowMs = options.windowMs ?? 1000;
    this.perSecond = options.perSecond;
    this.perKey = options.perKeyPerSecond;
    this.slow = options.slowKeys;
    this.smooth = options.smooth ?? false;
    this.share = options.share ?? (() => 1);
    const { perSecond, perKey, slow } = this;
    if (
      !(perSecond >= 1) ||
      (perKey !== undefined && !(perKey >= 1)) ||
      (slow !== undefined && !(slow.limit >= 1 && slow.windowMs > 0))
    ) {
      throw new RangeError('A rate gate needs limits of at least 1 per window');
    }
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
  }

  /** The overall limit of this process: its share of the service's. */
  private overallLimit(): number {
    return Math.max(1, Math.floor(this.perSecond / Math.max(1, this.share())));
  }

  private isSlow(key: string): boolean {
    return this.slow !== undefined && this.slow.appliesTo(key);
  }

  /** Forgets keys with nothing left in their windows, so idle chats cost no memory. */
  private sweep(at: number): void {
    if (at - this.lastSweep < this.windowMs) return;
    this.lastSweep = at;
    for (const [key, state] of this.keys) {
      prune(state.log, at, this.windowMs);
      if (this.slow) prune(state.slowLog, at, this.slow.windowMs);
      if (state.log.length === 0 && state.slowLog.length === 0 && state.pausedUntil <= at) {
        this.keys.delete(key);
      }
    }
  }

  private stateOf(key: string): KeyState {
    let state = this.keys.get(key);
    if (!state) {
      state = { log: [], slowLog: [], pausedUntil: 0 };
      this.keys.set(key, state);
    }
    return state;
  }

  whenCanSend(key?: string, weight?: number): number {
    const at = this.now();
    const count = countOf(weight);
    const { windowMs } = this;
    prune(this.overall, at, windowMs);
    const limit = this.overallLimit();
    // `smooth`: half the limit per half window as well.
    const earliest = Math.max(
      at,
      this.pausedUntil,
      freeAt(this.overall, limit, windowMs, count),
      this.smooth
        ? freeAt(this.overall, Math.max(1, Math.ceil(limit / 2)), windowMs / 2, count)
        : 0,
    );
    const state = key === undefined ? undefined : this.keys.get(key);
    if (key === undefined || !state) return earliest;
    return Math.max(earliest, this.keyFreeAt(key, state, at, count));
  }

  /** When one key's own limits (its pause, per key, slow window) let `count` more through. */
  private keyFreeAt(key: string, state: KeyState, at: number, count: number): number {
    prune(state.log, at, this.windowMs);
    let earliest = state.pausedUntil;
    if (this.perKey !== undefined) {
      earliest = Math.max(earliest, freeAt(state.log, this.perKey, this.windowMs, count));
    }
    const slow = this.slow;
    if (slow && this.isSlow(key)) {
      prune(state.slowLog, at, slow.windowMs);
      earliest = Math.max(earliest, freeAt(state.slowLog, slow.limit, slow.windowMs, count));
    }
    return earliest;
  }

  delayFor(key?: string, weight?: number): number {
    return Math.max(0, this.whenCanSend(key, weight) - this.now());
  }

  tryAcquire(key?: string, weight?: number): boolean {
    const at = this.now();
    const count = countOf(weight);
    if (this.whenCanSend(key, count) > at) return false;
    this.sweep(at);
    book(this.overall, this.overallLimit(), this.windowMs, at, count);
    if (key !== undefined) {
      const state = this.stateOf(key);
      book(state.log, this.perKey ?? Infinity, this.windowMs, at, count);
      const slow = this.slow;
      if (slow && this.isSlow(key)) book(state.slowLog, slow.limit, slow.windowMs, at, count);
    }
    return true;
  }

  async acquire(key?: string, signal?: AbortSignal, weight?: number): Promise<void> {
    // Check and count happen in one synchronous step, so concurrent callers never overshoot:
    // the losers of a race simply wait for the next free instant.
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      if (this.tryAcquire(key, weight)) return;
      await this.sleep(Math.max(1, this.whenCanSend(key, weight) - this.now()), signal);
    }
  }

  pause(ms: number, key?: string): void {
    const until = this.now() + Math.max(0, ms);
    if (key === undefined) {
      this.pausedUntil = Math.max(this.pausedUntil, until);
      return;
    }
    const state = this.stateOf(key);
    state.pausedUntil = Math.max(state.pausedUntil, until);
  }
}

/** Creates a gate; one instance per bot token, shared by everything that sends with it. */
export function createRateGate(options: RateGateOptions): RateGate {
  return new SlidingWindowRateGate(options);
}

/**
 * The window the service limits are kept over. 5% longer than a second: the gate counts
 * requests when they leave, the service when they arrive, and two requests sent a second apart
 * can arrive closer than that when the first one was slower on the way. (1,100 ms capped the
 * rate at 90.9% of what the services allow; 1,000 ms let 35 Telegram messages land within one
 * second at the fake. docs/benchmarks.md, "Notify".)
 */
export const SERVICE_WINDOW_MS = 1050;

/** Telegram's limit of messages to one group: 20 a minute. */
export const TELEGRAM_GROUP_PER_MINUTE = 20;
/** The minute that group limit is kept over, a second longer for the same reason as above. */
export const TELEGRAM_GROUP_WINDOW_MS = 61_000;

/** A Telegram group (or channel) has a negative chat id; a private chat a positive one. */
export const isTelegramGroup = (chatId: string) => chatId.trim().startsWith('-');

/**
 * Telegram's limits: 30 messages a second overall, 1 a second per chat (key = chat id), and 20 a
 * minute per group.
 */
export function createTelegramRateGate(
  options: Pick<RateGateOptions, 'now' | 'sleep' | 'share'> = {},
): RateGate {
  return createRateGate({
    perSecond: 30,
    perKeyPerSecond: 1,
    slowKeys: {
      limit: TELEGRAM_GROUP_PER_MINUTE,
      windowMs: TELEGRAM_GROUP_WINDOW_MS,
      appliesTo: isTelegramGroup,
    },
    windowMs: SERVICE_WINDOW_MS,
    smooth: true,
    ...options,
  });
}

/** Discord's global limit: 50 requests a second per bot. */
export function createDiscordRateGate(
  options: Pick<RateGateOptions, 'now' | 'sleep' | 'share'> = {},
): RateGate {
  return createRateGate({ perSecond: 50, windowMs: SERVICE_WINDOW_MS, smooth: true, ...options });
}
