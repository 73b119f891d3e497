import {
  POLL_ACTIVITY_FAST_WITHIN_MS,
  POLL_ACTIVITY_NORMAL_WITHIN_MS,
  POLL_ACTIVITY_SLOW_WITHIN_MS,
  POLL_PRIORITIES,
  type NetworkQuality,
  type PollPriority,
} from '@perch/shared';
import {
  replaceEqualDeep,
  type Query,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import { activitySpeed, nextPollInterval } from './polling-modes';

/** What the gate reads of the tab and the app; each is read when an interval is computed. */
export interface PollGateSources {
  /** This tab leads the others (only the leader polls). */
  isLeader(): boolean;
  online(): boolean;
  /** The page is visible. */
  visible(): boolean;
  /** The page has the keyboard focus. */
  focused(): boolean;
  networkQuality(): NetworkQuality;
  /** The person's "Auto refresh" preference. */
  autoRefresh(): boolean;
  /** The API client's retry circuit refuses calls. */
  circuitOpen(): boolean;
  now(): number;
}

/** Any query of the cache, whatever its data and error types. */
export type AnyQuery = Query<unknown, unknown, unknown, QueryKey>;

/** Before the client runtime binds its sources: this tab does not lead, so nothing polls. */
const UNBOUND: PollGateSources = {
  isLeader: () => false,
  online: () => true,
  visible: () => true,
  focused: () => true,
  networkQuality: () => 'good',
  autoRefresh: () => true,
  circuitOpen: () => false,
  now: () => Date.now(),
};

/** How a query asks to be polled, in its `meta.poll` (priority `normal` when absent). */
export interface PollMeta {
  priority?: PollPriority;
  /**
   * A probe (the health check): polls at exactly its own interval in the leading tab, through an
   * open retry circuit and with auto refresh off, never stretched by modes, network or growth,
   * since it is how the app notices the server is back.
   */
  probe?: boolean;
}

/** The `meta` of a query polled at the given priority. */
export function pollMeta(
  priority: PollPriority,
  extra: Omit<PollMeta, 'priority'> = {},
): { poll: PollMeta } {
  return { poll: { priority, ...extra } };
}

function pollMetaOf(query: AnyQuery): PollMeta {
  const poll = (query.meta as { poll?: unknown } | undefined)?.poll;
  return typeof poll === 'object' && poll !== null ? (poll as PollMeta) : {};
}

function priorityOf(meta: PollMeta): PollPriority {
  const priority = meta.priority;
  return priority && POLL_PRIORITIES.includes(priority) ? priority : 'normal';
}

/** A query's own wish: a number of ms, or false/undefined/0 for no polling. */
type BaseInterval = number | false | undefined;

const ACTIVITY_THRESHOLDS_MS = [
  POLL_ACTIVITY_FAST_WITHIN_MS,
  POLL_ACTIVITY_NORMAL_WITHIN_MS,
  POLL_ACTIVITY_SLOW_WITHIN_MS,
];

/**
 * Decides every query's polling interval (docs/spec-notes.md, Polling modes), on top of the
 * interval the query itself asks for:
 * - only the leading tab polls; the others are fed by its results (see query-sync);
 * - nothing polls offline or while the retry circuit is open, and with "Auto refresh" off only
 *   high-priority polls (a running backfill's progress) go on; a probe (the health check) polls
 *   at its own interval whatever the conditions, as long as the tab leads and is online;
 * - the interval starts from the longer of the query's own and the polling mode's interval for the
 * person's recent activity (fast under 10 s, normal under 60 s, slow under 5 min, else idle)
 * (active, background for an unfocused page, slow or minimal on a
 *   slow or poor network), times the network multiplier, stretched after unchanged polls, and
 *   tripled on a hidden page for normal and high priority.
 * A hidden page does not poll at all unless a query asks to poll in the background (TanStack's
 * `refetchIntervalInBackground`, off by default), so the tripling only concerns those.
 */
export class PollGate {
  private sources: PollGateSources;
  private readonly listeners = new Set<() => void>();
  private lastActivityAt: number;
  private speedTimer: ReturnType<typeof setTimeout> | undefined;
  /** Per query: the data of its last poll and how many polls in a row brought nothing new. */
  private readonly unchanged = new WeakMap<AnyQuery, { data: unknown; count: number }>();

  /** Without sources, nothing polls until `bind` (the client runtime) supplies them. */
  constructor(sources: PollGateSources = UNBOUND) {
    this.sources = sources;
    this.lastActivityAt = sources.now();
  }

  /** Reads the tab and the app from `sources` from now on. */
  bind(sources: PollGateSources): void {
    this.sources = sources;
    this.changed();
  }

  /** Whether this tab leads (and so polls for the others). */
  get leading(): boolean {
    return this.sources.isLeader();
  }

  /** Called whenever the intervals may have changed; returns its removal. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Something the gate reads changed (leadership, visibility, network, preferences, circuit). */
  changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** The person did something on the page; polling speeds up to `fast`. */
  recordActivity(at: number = this.sources.now()): void {
    const before = activitySpeed(this.sources.now() - this.lastActivityAt);
    this.lastActivityAt = at;
    this.scheduleSpeedChange();
    if (before !== 'fast') this.changed();
  }

  /** Time since the last activity, for the activity speed. */
  sinceActivityMs(): number {
    return Math.max(0, this.sources.now() - this.lastActivityAt);
  }

  /** Counts a finished poll of a query: same data as the last one, or something new. */
  recordResult(query: AnyQuery): void {
    const data = query.state.data;
    const previous = this.unchanged.get(query);
    const same = previous !== undefined && replaceEqualDeep(previous.data, data) === previous.data;
    this.unchanged.set(query, { data, count: same ? previous.count + 1 : 0 });
  }

  /** Polls in a row of this query that brought nothing new. */
  unchangedPolls(query: AnyQuery): number {
    return this.unchanged.get(query)?.count ?? 0;
  }

  /** The interval a query polls at now, or false for none. */
  interval(base: BaseInterval, query: AnyQuery): number | false {
    if (base === undefined || base === false || base <= 0 || !Number.isFinite(base)) return false;
    const sources = this.sources;
    const meta = pollMetaOf(query);
    if (!sources.isLeader() || !sources.online()) return false;
    if (meta.probe) return base;
    if (sources.circuitOpen()) return false;
    const priority = priorityOf(meta);
    if (!sources.autoRefresh() && priority !== 'high') return false;
    const next = nextPollInterval({
      online: sources.online(),
      visible: sources.visible(),
      focused: sources.focused(),
      networkQuality: sources.networkQuality(),
      sinceActivityMs: this.sinceActivityMs(),
      unchangedPolls: this.unchangedPolls(query),
      priority,
      // The mode's table never goes below the query's own interval (the network multiplier and
      // the growth apply after).
      floorMs: base,
    });
    return next ?? false;
  }

  /** Stops the activity timer. */
  dispose(): void {
    clearTimeout(this.speedTimer);
    this.listeners.clear();
  }

  /** Re-evaluates when the activity speed drops a step (at 10 s, 60 s and 5 min). */
  private scheduleSpeedChange(): void {
    clearTimeout(this.speedTimer);
    const since = this.sinceActivityMs();
    const next = ACTIVITY_THRESHOLDS_MS.find((threshold) => threshold > since);
    if (next === undefined) return;
    this.speedTimer = setTimeout(() => {
      this.changed();
      this.scheduleSpeedChange();
    }, next - since);
  }
}

/**
 * Keeps a QueryClient's polling in step with the gate: every observer's interval is computed
 * again when the gate changes, and every successful fetch is counted for the adaptive growth.
 */
export function connectPollGate(queryClient: QueryClient, gate: PollGate): () => void {
  const cache = queryClient.getQueryCache();
  // setOptions with the observer's own options computes its interval again (and nothing else).
  const recompute = (query: AnyQuery) => {
    for (const observer of query.observers) observer.setOptions(observer.options);
  };
  const unsubscribeGate = gate.subscribe(() => {
    for (const query of cache.getAll()) recompute(query as unknown as AnyQuery);
  });
  const unsubscribeCache = cache.subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'success' && !event.action.manual) {
      const query = event.query as unknown as AnyQuery;
      gate.recordResult(query);
      // The observers set their timers before the cache told its listeners: again, with the count.
      recompute(query);
    }
  });
  return () => {
    unsubscribeGate();
    unsubscribeCache();
  };
}
