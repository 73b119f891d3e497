/**
 * Discord's rate limits as one client keeps them (discord-client.ts tells the whole story):
 * per bucket (the bucket hash Discord names plus the top-level resource, e.g. the channel),
 * from the `X-RateLimit-*` headers of every answer, and a global block after a global 429.
 * Requests whose answers are still on the way count against their bucket, and until a first
 * answer has described a bucket only one request at a time goes into it.
 */
import { headerSecondsMs, type HttpJsonReply } from '../http-json.js';
import { DeliveryError } from '../types.js';
import type { DiscordWireError } from './discord-errors.js';

/** What the client knows of one rate-limit bucket. */
export interface Bucket {
  /** Requests allowed per window (`X-RateLimit-Limit`); null until an answer said. */
  limit: number | null;
  /** Left in the current window: the lowest `X-RateLimit-Remaining` answered in it. */
  remaining: number;
  /** Epoch ms when the window ends, by our clock (a little after Discord's own reset). */
  resetAt: number;
  /** Discord's `X-RateLimit-Reset` of that window: answers naming the same one are merged. */
  window: number | null;
  /** Requests sent into the bucket whose answer has not come back yet. */
  inFlight: number;
  /** Waiting requests, woken whenever an answer (or a failure) frees something up. */
  waiters: Set<() => void>;
}

/**
 * A bucket's window is taken as over this long after its reset by our clock: the reset-after
 * header is rounded to the millisecond, and a request sent right at the reset could otherwise
 * still reach Discord inside the spent window.
 */
const RESET_MARGIN_MS = 25;

export interface DiscordRateLimitsOptions {
  /** Longest global rate-limit wait done inside a call; longer ones are reported. */
  maxWaitMs: number;
  /** The same for a spent bucket. */
  maxBucketWaitMs: number;
  /** How long a request waits for an answer in an unknown bucket before looking again. */
  requestTimeoutMs: number;
  /** Clock (epoch ms). */
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A bucket's new window from one answer's headers. */
interface BucketAnswer {
  hash: string;
  remaining: number;
  limit: number;
  window: number | null;
  resetAt: number;
}

export class DiscordRateLimits {
  /** Route ('POST /channels/:id/messages') -> the bucket hash Discord named for it. */
  private readonly routeBuckets = new Map<string, string>();
  /**
   * `${bucket hash}:${top-level resource}` -> its state; `route:${route}:${resource}` for a
   * bucket whose hash no answer has named yet.
   */
  private readonly buckets = new Map<string, Bucket>();
  private globalUntil = 0;

  constructor(private readonly options: DiscordRateLimitsOptions) {}

  private bucketKey(route: string, major: string): string {
    const hash = this.routeBuckets.get(route);
    return hash === undefined ? `route:${route}:${major}` : `${hash}:${major}`;
  }

  private bucketOf(route: string, major: string): Bucket {
    const key = this.bucketKey(route, major);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = {
        limit: null,
        remaining: 0,
        resetAt: 0,
        window: null,
        inFlight: 0,
        waiters: new Set(),
      };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  /** Waits for the bucket's next answer, or `ms` at most; rejects when the signal aborts. */
  private async untilAnswered(bucket: Bucket, ms: number, signal?: AbortSignal): Promise<void> {
    const answered = new Promise<void>((resolve) => bucket.waiters.add(resolve));
    const timer = new AbortController();
    const stop = signal ? AbortSignal.any([signal, timer.signal]) : timer.signal;
    try {
      await Promise.race([answered, this.options.sleep(ms, stop)]);
    } catch (error) {
      if (signal?.aborted) throw error;
    } finally {
      // The timer is not left running once the answer came.
      timer.abort();
    }
  }

  /**
   * Waits for room in the request's bucket (and for a global block to end), then counts the
   * request as in flight there; returns the bucket, to be released when the answer is in.
   * Refuses with rate_limited when the wait would be longer than allowed.
   */
  async takeSlot(route: string, major: string, signal?: AbortSignal): Promise<Bucket> {
    const { now, sleep, maxWaitMs, maxBucketWaitMs } = this.options;
    for (;;) {
      const at = now();
      const bucket = this.bucketOf(route, major);
      const live = bucket.resetAt > at;
      const globalWait = this.globalUntil - at;
      if (roomIn(bucket, live) > 0 && globalWait <= 0) {
        bucket.inFlight += 1;
        return bucket;
      }
      // Spent until its reset; or every slot taken by requests whose answers will tell more.
      const spent = live && bucket.remaining <= 0;
      const bucketWait = spent ? bucket.resetAt - at : 0;
      const wait = Math.max(globalWait, bucketWait);
      if (globalWait > maxWaitMs || bucketWait > maxBucketWaitMs) {
        throw new DeliveryError('rate_limited', `Discord: rate limit reached (${route})`, wait);
      }
      if (wait > 0) {
        await sleep(wait, signal);
        continue;
      }
      // Room may come back with the next answer, at the latest when the window ends.
      const untilMs = live ? bucket.resetAt - at : this.options.requestTimeoutMs;
      await this.untilAnswered(bucket, untilMs, signal);
    }
  }

  /** The request's answer is in (or it failed): its place in the bucket is free again. */
  release(bucket: Bucket): void {
    bucket.inFlight -= 1;
    const waiters = [...bucket.waiters];
    bucket.waiters.clear();
    for (const waiter of waiters) waiter();
  }

  /** What an answer says of its bucket; answers of one window keep the lowest `remaining`. */
  record(route: string, major: string, bucket: Bucket, headers: Headers): void {
    const answer = this.readAnswer(headers);
    if (!answer) return;
    // The first answer names the bucket: its state moves under that name.
    const key = `${answer.hash}:${major}`;
    const provisional = this.bucketKey(route, major);
    this.routeBuckets.set(route, answer.hash);
    let state = this.buckets.get(key);
    if (!state) {
      state = bucket;
      this.buckets.set(key, state);
    }
    if (provisional !== key && this.buckets.get(provisional) === bucket) {
      this.buckets.delete(provisional);
    }
    this.mergeWindow(state, answer);
  }

  private readAnswer(headers: Headers): BucketAnswer | undefined {
    const hash = headers.get('x-ratelimit-bucket');
    const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
    const resetAfterMs = headerSecondsMs(headers, 'x-ratelimit-reset-after');
    if (!hash || !Number.isFinite(remaining) || resetAfterMs === null) return undefined;
    const limit = Number(headers.get('x-ratelimit-limit') ?? Number.NaN);
    const windowHeader = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
    const window = Number.isFinite(windowHeader) ? windowHeader : null;
    const resetAt = this.options.now() + resetAfterMs + RESET_MARGIN_MS;
    return { hash, remaining, limit, window, resetAt };
  }

  /** Takes in an answer's window: the same one merged, a newer one replacing, an older ignored. */
  private mergeWindow(state: Bucket, answer: BucketAnswer): void {
    const { limit, window, resetAt, remaining } = answer;
    if (Number.isFinite(limit) && limit > 0) state.limit = limit;
    const sameWindow =
      window !== null && state.window !== null
        ? window === state.window
        : state.resetAt > this.options.now() && Math.abs(resetAt - state.resetAt) < 1000;
    const olderWindow = window !== null && state.window !== null && window < state.window;
    if (olderWindow) return;
    if (sameWindow) {
      state.remaining = Math.min(state.remaining, remaining);
      state.resetAt = Math.max(state.resetAt, resetAt);
    } else {
      state.remaining = remaining;
      state.resetAt = resetAt;
      state.window = window;
    }
  }

  /** Holds a bucket back until `ms` from now, as if spent. */
  block(route: string, major: string, ms: number): void {
    const bucket = this.bucketOf(route, major);
    bucket.remaining = 0;
    bucket.resetAt = Math.max(bucket.resetAt, this.options.now() + ms);
  }

  /** Records what a 429 blocks and for how long; returns the wait in ms. */
  blockAfter429(route: string, major: string, reply: HttpJsonReply, error: DiscordWireError) {
    const waitMs =
      typeof error.retry_after === 'number'
        ? Math.ceil(error.retry_after * 1000)
        : (headerSecondsMs(reply.headers, 'retry-after') ?? 1000);
    const global =
      error.global === true ||
      reply.headers.get('x-ratelimit-global') === 'true' ||
      reply.headers.get('x-ratelimit-scope') === 'global';
    if (global) this.globalUntil = Math.max(this.globalUntil, this.options.now() + waitMs);
    // A 429 without bucket headers still blocks its route, under the name it has so far.
    else this.block(route, major, waitMs);
    return waitMs;
  }
}

/** Requests the bucket can take now (those in flight counted). */
function roomIn(bucket: Bucket, live: boolean): number {
  if (live) return bucket.remaining - bucket.inFlight;
  if (bucket.limit !== null) return bucket.limit - bucket.inFlight;
  // Nothing known of this bucket yet: one request finds out its size for the others.
  return bucket.inFlight === 0 ? 1 : 0;
}
