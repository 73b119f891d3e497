import {
  RECONNECT_REFETCH_MAX_DELAY_MS,
  RECONNECT_REFETCH_MAX_FAILURES,
  RECONNECT_REFETCH_MIN_DELAY_MS,
  VISIBILITY_BACKGROUND_CANCEL_AFTER_MS,
  VISIBILITY_BACKGROUND_LOG_AFTER_MS,
  VISIBILITY_HIBERNATION_AFTER_MS,
  VISIBILITY_REFRESH_STALE_AFTER_MS,
} from '@perch/shared';
import {
  focusManager as defaultFocusManager,
  onlineManager as defaultOnlineManager,
  type Query,
  type QueryClient,
} from '@tanstack/react-query';
import { VISIBILITY_CHECK_INTERVAL_MS } from '@/lib/polling/intervals';

/** What to do when a hidden page comes back. */
export type ReturnAction = 'hibernation' | 'refresh-stale' | 'none';

/** Hidden over 30 s is hibernation (invalidate everything); over 5 s refreshes stale active queries. */
export function returnAction(hiddenMs: number): ReturnAction {
  if (hiddenMs > VISIBILITY_HIBERNATION_AFTER_MS) return 'hibernation';
  if (hiddenMs > VISIBILITY_REFRESH_STALE_AFTER_MS) return 'refresh-stale';
  return 'none';
}

/** What to do while a page stays hidden. */
export type BackgroundAction = 'cancel' | 'log' | 'none';

/** In the background over 10 min cancels every query; over 5 min is logged. */
export function backgroundAction(hiddenMs: number): BackgroundAction {
  if (hiddenMs > VISIBILITY_BACKGROUND_CANCEL_AFTER_MS) return 'cancel';
  if (hiddenMs > VISIBILITY_BACKGROUND_LOG_AFTER_MS) return 'log';
  return 'none';
}

/** A failed query with fewer than 3 failures is fetched again after a reconnect. */
export function shouldRefetchAfterReconnect(query: Query): boolean {
  return (
    query.state.status === 'error' && query.state.fetchFailureCount < RECONNECT_REFETCH_MAX_FAILURES
  );
}

/** A random wait of 1-3 s before the reconnect refetch; `random` returns a number in [0, 1). */
export function reconnectRefetchDelay(random: () => number = Math.random): number {
  const spread = RECONNECT_REFETCH_MAX_DELAY_MS - RECONNECT_REFETCH_MIN_DELAY_MS;
  return RECONNECT_REFETCH_MIN_DELAY_MS + Math.round(random() * spread);
}

/** The parts of TanStack's focus and online managers the controller listens to. */
interface ManagerLike {
  subscribe(listener: (value: boolean) => void): () => void;
}

export interface VisibilityControllerOptions {
  /** Milliseconds clock; defaults to Date.now. */
  now?: () => number;
  /** Random numbers in [0, 1) for the reconnect delay; defaults to Math.random. */
  random?: () => number;
  /** Where a long background stay is reported; defaults to console.info. */
  log?: (message: string) => void;
  /** Defaults to TanStack's focusManager (the page's visibility). */
  focusManager?: ManagerLike;
  /** Defaults to TanStack's onlineManager. */
  onlineManager?: ManagerLike;
}

/**
 * Applies the visibility and reconnect rules (docs/spec-notes.md, Resilience) to a QueryClient: on
 * return after hibernation every query is invalidated, after a short absence stale active queries
 * are refetched; a hidden page is checked every 60 s (logged after 5 min, queries cancelled after
 * 10 min, each once per absence); after a reconnect failed queries with fewer than 3 failures are
 * refetched after 1-3 s.
 */
export class VisibilityController {
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly log: (message: string) => void;
  private readonly focus: ManagerLike;
  private readonly online: ManagerLike;
  private hiddenSince: number | undefined;
  private logged = false;
  private cancelled = false;
  private checkTimer: ReturnType<typeof setInterval> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private unsubscribers: (() => void)[] = [];

  constructor(
    private readonly queryClient: QueryClient,
    options: VisibilityControllerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? ((message) => console.info(message));
    this.focus = options.focusManager ?? defaultFocusManager;
    this.online = options.onlineManager ?? defaultOnlineManager;
  }

  /** Starts listening; calling it twice does nothing. */
  start(): void {
    if (this.checkTimer !== undefined) return;
    this.unsubscribers = [
      this.focus.subscribe((focused) => (focused ? this.onVisible() : this.onHidden())),
      this.online.subscribe((online) => {
        if (online) this.onReconnect();
      }),
    ];
    this.checkTimer = setInterval(() => this.checkBackground(), VISIBILITY_CHECK_INTERVAL_MS);
  }

  /** Stops listening and drops any pending reconnect refetch. */
  stop(): void {
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.unsubscribers = [];
    clearInterval(this.checkTimer);
    this.checkTimer = undefined;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.hiddenSince = undefined;
  }

  private onHidden(): void {
    if (this.hiddenSince !== undefined) return;
    this.hiddenSince = this.now();
    this.logged = false;
    this.cancelled = false;
  }

  private onVisible(): void {
    if (this.hiddenSince === undefined) return;
    const hiddenMs = this.now() - this.hiddenSince;
    this.hiddenSince = undefined;
    const action = returnAction(hiddenMs);
    if (action === 'hibernation') void this.queryClient.invalidateQueries();
    else if (action === 'refresh-stale') {
      void this.queryClient.refetchQueries({ type: 'active', stale: true });
    }
  }

  private checkBackground(): void {
    if (this.hiddenSince === undefined) return;
    const hiddenMs = this.now() - this.hiddenSince;
    const action = backgroundAction(hiddenMs);
    if (action === 'none') return;
    if (!this.logged) {
      this.logged = true;
      this.log(`Page in the background for ${Math.round(hiddenMs / 60_000)} min`);
    }
    if (action === 'cancel' && !this.cancelled) {
      this.cancelled = true;
      void this.queryClient.cancelQueries();
    }
  }

  private onReconnect(): void {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.queryClient.refetchQueries({ predicate: shouldRefetchAfterReconnect });
    }, reconnectRefetchDelay(this.random));
  }
}
