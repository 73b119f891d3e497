/**
 * The rate budgets of one X API bearer token (shared by all handles).
 *
 * Every response's `x-rate-limit-*` headers are kept per endpoint, and `x-app-limit-24hour-*` for
 * the whole app. No request is sent while a budget is spent: `take` waits when the window resets
 * within `maxWaitMs`, else throws SourceError('rate_limited', ..., retryAfterMs). A 429 without a
 * usable reset header backs the endpoint off for 60 s, doubling per such 429 in a row (at most
 * 15 min), and nothing is sent to it meanwhile.
 */
import {
  SourceError,
  type EndpointBudget,
  type RateBudget,
  type RateStatus,
} from '../../domain/tweet-source.js';
import { sleep } from '../../lib/sleep.js';
import { headerNumber } from '../../lib/http-headers.js';

/** The rate-limit buckets this source uses (X counts each endpoint separately). */
export type XEndpoint = 'users/by/username' | 'users' | 'users/tweets' | 'tweets';

/** In the order rateStatus() lists them. */
const ENDPOINTS: readonly XEndpoint[] = ['users/tweets', 'tweets', 'users', 'users/by/username'];

/** Back-off after a 429 that does not say when the window resets; doubles per such 429 in a row. */
const HEADERLESS_BACKOFF_MS = 60_000;
const MAX_HEADERLESS_BACKOFF_MS = 15 * 60_000;
const DAY_MS = 24 * 3_600_000;

interface Budget {
  limit: number | null;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}

/** The back-off of an endpoint after 429s without a reset header. */
interface Penalty {
  /** Epoch ms. */
  until: number;
  /** Header-less 429s in a row (a success clears them). */
  strikes: number;
}

/** A budget from `<prefix>-limit/remaining/reset` headers (reset in epoch seconds), or null. */
function budgetFrom(headers: Headers, prefix: string): Budget | null {
  const limit = headerNumber(headers, `${prefix}-limit`);
  const remaining = headerNumber(headers, `${prefix}-remaining`);
  const reset = headerNumber(headers, `${prefix}-reset`);
  if (limit === null || remaining === null || reset === null) return null;
  return { limit, remaining, resetAt: reset * 1000 };
}

/**
 * Merges a budget a response told with the one known. Responses to concurrent requests can
 * arrive out of order: within one window the lowest remaining wins.
 */
function mergeBudget(known: Budget | null | undefined, told: Budget): Budget {
  const sameWindow = known != null && known.resetAt === told.resetAt;
  return sameWindow ? { ...told, remaining: Math.min(known.remaining, told.remaining) } : told;
}

function toRateBudget(budget: Budget): RateBudget {
  return {
    limit: budget.limit,
    remaining: budget.remaining,
    resetAt: new Date(budget.resetAt).toISOString(),
  };
}

/** The per-endpoint and 24-hour app budgets of one token, and the endpoints' back-offs. */
export class XRateLimits {
  private readonly budgets = new Map<XEndpoint, Budget>();
  private readonly penalties = new Map<XEndpoint, Penalty>();
  /** The app's 24-hour budget, when X sends `x-app-limit-24hour-*`. */
  private appDay: Budget | null = null;

  constructor(
    private readonly now: () => number,
    /** Wait for a spent budget when it resets within this many ms, else throw. */
    private readonly maxWaitMs: number,
  ) {}

  /** Keeps the budgets a response's headers tell. */
  record(endpoint: XEndpoint, headers: Headers): void {
    const told = budgetFrom(headers, 'x-rate-limit');
    if (told) this.budgets.set(endpoint, mergeBudget(this.budgets.get(endpoint), told));
    const day = budgetFrom(headers, 'x-app-limit-24hour');
    if (day) this.appDay = mergeBudget(this.appDay, day);
  }

  /** Ms until a spent budget's window resets; 0 when it is not spent (or unknown, or over). */
  private waitFor(budget: Budget | null | undefined): number {
    if (!budget || budget.remaining > 0) return 0;
    return Math.max(0, budget.resetAt - this.now());
  }

  /** Counts one request against a budget whose window is still running. */
  private spend(budget: Budget | null | undefined): void {
    if (budget && budget.resetAt > this.now() && budget.remaining > 0) budget.remaining -= 1;
  }

  /**
   * Waits for, or refuses, a request while the endpoint backs off or a budget (the endpoint's,
   * the app's 24 hours) is spent; reserves one request of each otherwise.
   */
  async take(endpoint: XEndpoint, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const penalty = this.penalties.get(endpoint);
      if (penalty && penalty.until > this.now()) {
        throw new SourceError(
          'rate_limited',
          `X API rate limit reached (${endpoint}), backing off`,
          penalty.until - this.now(),
        );
      }
      const dayWait = this.waitFor(this.appDay);
      const wait = Math.max(dayWait, this.waitFor(this.budgets.get(endpoint)));
      if (wait <= 0) {
        this.spend(this.appDay);
        this.spend(this.budgets.get(endpoint));
        return;
      }
      if (wait > this.maxWaitMs) {
        const what = dayWait > 0 ? '24-hour app limit' : endpoint;
        throw new SourceError('rate_limited', `X API rate limit reached (${what})`, wait);
      }
      // A little past the reset instant, so our clock and X's agree the window is over.
      await sleep(wait + 50, signal);
    }
  }

  /**
   * The error of a 429 and when to try again: a usage cap waits a day, a spent 24-hour app budget
   * its reset, a spent window its `x-rate-limit-reset`. Without a usable reset header the endpoint
   * backs off 60 s, doubling per such 429 in a row (at most 15 min), so a proxy or an X hiccup
   * that drops the headers cannot turn the retries into a storm.
   */
  rateLimitedError(
    endpoint: XEndpoint,
    headers: Headers,
    usageCapped: boolean,
    message: string,
  ): SourceError {
    // Usage caps (monthly) answer 429 with budget left: no point retrying this window.
    if (usageCapped) return new SourceError('rate_limited', message, DAY_MS);
    const dayWait = this.waitFor(this.appDay);
    const reset = headerNumber(headers, 'x-rate-limit-reset');
    const resetAt = reset === null ? null : reset * 1000;
    if (resetAt !== null && resetAt > this.now()) {
      const known = this.budgets.get(endpoint);
      const limit = known?.limit ?? headerNumber(headers, 'x-rate-limit-limit');
      this.budgets.set(endpoint, { limit, remaining: 0, resetAt });
      const wait = Math.max(1_000, dayWait, resetAt - this.now());
      return new SourceError('rate_limited', message, wait);
    }
    if (dayWait > 0) return new SourceError('rate_limited', message, Math.max(1_000, dayWait));
    return new SourceError('rate_limited', message, this.backOff(endpoint));
  }

  /** Starts (or doubles) the back-off of an endpoint after a header-less 429; returns its ms. */
  private backOff(endpoint: XEndpoint): number {
    const strikes = (this.penalties.get(endpoint)?.strikes ?? 0) + 1;
    const backoffMs = Math.min(
      MAX_HEADERLESS_BACKOFF_MS,
      HEADERLESS_BACKOFF_MS * 2 ** Math.min(strikes - 1, 10),
    );
    this.penalties.set(endpoint, { until: this.now() + backoffMs, strikes });
    return backoffMs;
  }

  /** A success ends a run of header-less 429s. */
  succeeded(endpoint: XEndpoint): void {
    this.penalties.delete(endpoint);
  }

  /** The timeline endpoint's budget (TweetSource.rateBudget). */
  rateBudget(): RateBudget {
    const budget = this.budgets.get('users/tweets');
    if (!budget) return { limit: null, remaining: null, resetAt: null };
    return toRateBudget(budget);
  }

  /** Every endpoint with a known budget or a running back-off, and the app's 24 hours. */
  rateStatus(): RateStatus {
    const endpoints: EndpointBudget[] = [];
    for (const endpoint of ENDPOINTS) {
      const budget = this.budgets.get(endpoint);
      const penalty = this.penalties.get(endpoint);
      const backingOff = penalty !== undefined && penalty.until > this.now();
      if (!budget && !backingOff) continue;
      // A back-off holds the endpoint as if its budget were spent until it ends.
      const resetAt = Math.max(budget?.resetAt ?? 0, backingOff ? penalty.until : 0);
      endpoints.push({
        endpoint,
        limit: budget?.limit ?? null,
        remaining: backingOff ? 0 : (budget?.remaining ?? null),
        resetAt: new Date(resetAt).toISOString(),
      });
    }
    return { endpoints, appDay: this.appDay ? toRateBudget(this.appDay) : null };
  }
}
