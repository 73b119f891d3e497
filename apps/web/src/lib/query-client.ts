import {
  QueryCache,
  QueryClient,
  type DefaultError,
  type DefaultedQueryObserverOptions,
  type InvalidateOptions,
  type InvalidateQueryFilters,
  type QueryKey,
  type QueryObserverOptions,
} from '@tanstack/react-query';
import { ApiError } from './api-client';
import type { AnyQuery, PollGate } from './polling/poll-gate';
import { ErrorStormDetector } from './resilience/error-storm';
import {
  decideRetry,
  globalRetryBudget,
  retryDelayMs,
  type RetryBudget,
} from './resilience/retry-policy';

/** A query's own retry rule, where it differs from its failure category's. */
export interface QueryRetryLimit {
  /** Most retries, in place of the category's limit. */
  maxRetries?: number;
}

export interface QueryRetryOptions {
  /** The retry allowance drawn on; defaults to the app-wide budget. */
  budget?: RetryBudget;
  /** Source of jitter, for tests; returns [0, 1). */
  random?: () => number;
  /**
   * Decides every polling interval (leader only, modes, preferences, circuit); without it a
   * query polls at the interval it asks for.
   */
  pollGate?: PollGate;
  /** Spots error storms; a pattern in a storm is not retried. */
  stormDetector?: ErrorStormDetector;
  /** Where an error storm is reported (once per storm); console.warn by default. */
  onErrorStorm?: (pattern: string, error: Error) => void;
}

type RefetchInterval = number | false | ((query: AnyQuery) => number | false | undefined);

/** Marks the interval functions the gate already wraps, so options defaulted twice stay put. */
const gated = new WeakSet<object>();

/**
 * A QueryClient whose queries poll through the poll gate: the interval a query asks for (a
 * number or a function of the query) becomes the gate's decision for it. Every observer's
 * options pass through `defaultQueryOptions`, so no query polls around the gate.
 */
class GatedQueryClient extends QueryClient {
  constructor(
    config: ConstructorParameters<typeof QueryClient>[0],
    private readonly pollGate: PollGate,
  ) {
    super(config);
  }

  override defaultQueryOptions<
    TQueryFnData = unknown,
    TError = DefaultError,
    TData = TQueryFnData,
    TQueryData = TQueryFnData,
    TQueryKey extends QueryKey = QueryKey,
    TPageParam = never,
  >(
    options:
      | QueryObserverOptions<TQueryFnData, TError, TData, TQueryData, TQueryKey, TPageParam>
      | DefaultedQueryObserverOptions<TQueryFnData, TError, TData, TQueryData, TQueryKey>,
  ): DefaultedQueryObserverOptions<TQueryFnData, TError, TData, TQueryData, TQueryKey> {
    const defaulted = super.defaultQueryOptions(options);
    const wanted = defaulted.refetchInterval as RefetchInterval | undefined;
    if (wanted === undefined || wanted === false) return defaulted;
    if (typeof wanted === 'function' && gated.has(wanted)) return defaulted;
    const gate = this.pollGate;
    type Interval = typeof defaulted.refetchInterval;
    const interval: Interval = (query) => {
      // The gate reads no typed data; the query's own generic types do not matter to it.
      const anyQuery = query as unknown as AnyQuery;
      return gate.interval(typeof wanted === 'function' ? wanted(anyQuery) : wanted, anyQuery);
    };
    gated.add(interval);
    return { ...defaulted, refetchInterval: interval };
  }

  /**
   * In a following tab an invalidation only marks queries stale: the leading tab fetches and its
   * result reaches this tab (lib/tabs/query-sync.ts), so ten tabs reacting to the same change
   * (a finished backfill) send one request, not ten.
   */
  override invalidateQueries<TTaggedQueryKey extends QueryKey = QueryKey>(
    filters?: InvalidateQueryFilters<TTaggedQueryKey>,
    options?: InvalidateOptions,
  ): Promise<void> {
    if (this.pollGate.leading) return super.invalidateQueries(filters, options);
    return super.invalidateQueries({ ...filters, refetchType: 'none' }, options);
  }
}

function pathOf(error: unknown): string | undefined {
  return error instanceof ApiError ? error.path : undefined;
}

/**
 * Whether a failed query should be tried again: a retryable failure (no response,
 * 408, 409, 429, 5xx) under its category's limit (or `limit.maxRetries`), with a retry left in
 * the shared budget. `failureCount` is the retries already made, as TanStack Query passes it.
 */
export function shouldRetryQuery(
  failureCount: number,
  error: unknown,
  budget: RetryBudget = globalRetryBudget,
  storms?: ErrorStormDetector,
  limit: QueryRetryLimit = {},
): boolean {
  if (storms && error instanceof Error && storms.isStorm(stormKeyOf(error))) return false;
  return decideRetry({
    path: pathOf(error),
    error,
    retriesSoFar: failureCount,
    budget,
    maxRetries: limit.maxRetries,
  }).retry;
}

/** The budget and storm detector of each client made by `createQueryClient`. */
const retrySettings = new WeakMap<
  QueryClient,
  { budget: RetryBudget; storms: ErrorStormDetector }
>();

/**
 * A query's own `retry` option: the retry policy with at most `maxRetries` retries in place of
 * the failure category's limit; still never a final failure, and never past the shared budget.
 * A query-level `retry` replaces the client's, so given the QueryClient it draws on that
 * client's budget and error storms like every other query; without it, on the app-wide budget.
 */
export function retryUpTo(
  maxRetries: number,
  queryClient?: QueryClient,
): (failureCount: number, error: DefaultError) => boolean {
  return (failureCount, error) => {
    const settings = queryClient ? retrySettings.get(queryClient) : undefined;
    return shouldRetryQuery(
      failureCount,
      error,
      settings?.budget ?? globalRetryBudget,
      settings?.storms,
      { maxRetries },
    );
  };
}

/** Wait before the next retry: 1 s doubling to 30 s with jitter; a 429's Retry-After wins. */
export function queryRetryDelay(
  failureCount: number,
  error: unknown,
  random: () => number = Math.random,
): number {
  return retryDelayMs(failureCount, error, random);
}

function stormKeyOf(error: Error): { message: string; status?: number } {
  return error instanceof ApiError
    ? { message: error.message, status: error.status }
    : { message: error.message };
}

/**
 * Query cache defaults (stale 10 s, kept 5 min, retries by the retry policy, no
 * retries for an error storm), with polling through the poll gate when one is given.
 */
export function createQueryClient(options: QueryRetryOptions = {}): QueryClient {
  const budget = options.budget ?? globalRetryBudget;
  const random = options.random ?? Math.random;
  const storms = options.stormDetector ?? new ErrorStormDetector();
  const onErrorStorm =
    options.onErrorStorm ??
    ((pattern: string) => console.warn(`Error storm: "${pattern}" repeated in the last minute`));
  const queryCache = new QueryCache({
    onError: (error) => {
      const key = stormKeyOf(error);
      const wasStorm = storms.isStorm(key);
      if (storms.record(key) && !wasStorm) onErrorStorm(key.message, error);
    },
  });
  const config: ConstructorParameters<typeof QueryClient>[0] = {
    queryCache,
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        gcTime: 5 * 60_000,
        retry: (failureCount, error) => shouldRetryQuery(failureCount, error, budget, storms),
        retryDelay: (failureCount, error) => queryRetryDelay(failureCount, error, random),
        refetchOnWindowFocus: true,
        networkMode: 'online',
      },
      mutations: { retry: false },
    },
  };
  const queryClient = options.pollGate
    ? new GatedQueryClient(config, options.pollGate)
    : new QueryClient(config);
  retrySettings.set(queryClient, { budget, storms });
  return queryClient;
}
