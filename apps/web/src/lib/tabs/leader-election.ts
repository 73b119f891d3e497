import {
  TAB_CHANNEL_NAME,
  TAB_ELECTION_ANNOUNCE_WAIT_MS,
  TAB_ELECTION_PROPOSE_WAIT_MS,
  TAB_LEADER_DEAD_AFTER_MS,
  TAB_LEADER_HEARTBEAT_MS,
  TAB_LEADER_MONITOR_MS,
} from '@perch/shared';

/**
 * One leading tab (docs/spec-notes.md, Polling modes): the tabs of one origin elect a leader over
 * a BroadcastChannel; only the leader polls and sends the session heartbeat, the others follow.
 *
 * Protocol (all messages go to every other tab):
 * - A starting tab sends `announce` and waits 100 ms: a live leader answers with `leader`.
 * - Without an answer it sends `propose` and waits 600 ms for objections, then claims with
 *   `leader` and repeats `leader` every 5 s as its heartbeat.
 * - Rank: the tab that started earliest wins; between equal start times, the lower id. A tab in
 *   an election that hears a `propose` from a lower-ranked tab objects by proposing again; one
 *   that hears a higher-ranked `propose` stands down and waits for that tab's claim (and runs
 *   again if the claim does not arrive in time).
 * - Followers check every 10 s; a leader unheard for 15 s is dead and the follower that notices
 *   starts an election. So a silently killed leader is replaced between 15 s and 25 s after its
 *   last heartbeat, plus the 700 ms of the election.
 * - A leader that goes away (pagehide) sends `resign`: the others elect a successor at once,
 *   within the 700 ms of the election waits.
 * - Where the browser offers Web Locks (`navigator.locks`, secure contexts), a leader also holds
 *   a lock named after its id and says so in its `leader` messages; followers wait on that lock.
 *   The browser frees it when the leader's tab closes or crashes, even when `resign` never left
 *   (a crashed or killed tab runs no code), and the followers elect at once instead of after 15 s
 *   of silence. Without Web Locks the heartbeat alone finds a dead leader, as above.
 * - Two leaders hearing each other (a leader that was frozen, then wakes up): the lower-ranked
 *   steps down.
 *
 * Sharing query results: the leader may `broadcast` any structured-clonable payload and every
 * follower receives it through `onMessage`. For TanStack Query, a follower would write what it
 * receives with `queryClient.setQueryData(queryKey, data)` and keep its polling queries disabled
 * (`enabled: isLeader`). `@tanstack/query-broadcast-client-experimental` (not a dependency of
 * apps/web yet) does the same for the whole cache over its own BroadcastChannel, but it mirrors
 * every tab's cache to every other tab rather than leader-to-followers.
 */

export type TabRole = 'idle' | 'electing' | 'follower' | 'leader' | 'stopped';

export interface TabLeaderSnapshot {
  role: TabRole;
  isLeader: boolean;
  /** The leading tab's id when known (this tab's own id when it leads). */
  leaderId: string | null;
}

/** What the election needs of a BroadcastChannel (which satisfies it). */
export interface TabChannel {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  close(): void;
}

export type TimerHandle = ReturnType<typeof setTimeout>;

/** What the election needs of the Web Locks API (which `navigator.locks` satisfies). */
export interface TabLocks {
  request(
    name: string,
    options: { mode?: 'exclusive' | 'shared'; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<void> | void,
  ): Promise<unknown>;
}

/** Time and timers; the defaults are the globals (which vitest fake timers replace). */
export interface TabClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(callback: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
}

export const systemClock: TabClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle),
  setInterval: (callback, ms) => globalThis.setInterval(callback, ms),
  clearInterval: (handle) => globalThis.clearInterval(handle),
};

export interface TabLeaderElectionOptions {
  /** This tab's id; random by default. */
  id?: string;
  channelName?: string;
  /** Opens the channel; a BroadcastChannel by default. */
  createChannel?: (name: string) => TabChannel;
  clock?: TabClock;
  /** Web Locks; `navigator.locks` by default, null where the browser has none. */
  locks?: TabLocks | null;
}

/** What a tab shares with the others; `from` is the sender's id. */
export interface TabMessageMeta {
  from: string;
  /** True when the sender is the leader as this tab knows it. */
  fromLeader: boolean;
}

type Wire =
  | { type: 'announce' | 'propose'; from: string; startedAt: number }
  /** `locked`: the leader holds its Web Lock, so a follower can wait on it. */
  | { type: 'leader'; from: string; startedAt: number; locked?: boolean }
  | { type: 'resign'; from: string }
  | { type: 'data'; from: string; payload: unknown };

const WIRE_TYPES = new Set(['announce', 'propose', 'leader', 'resign', 'data']);

function isWire(value: unknown): value is Wire {
  if (typeof value !== 'object' || value === null) return false;
  const { type, from, startedAt } = value as Record<string, unknown>;
  if (typeof type !== 'string' || !WIRE_TYPES.has(type) || typeof from !== 'string') return false;
  if (type === 'announce' || type === 'propose' || type === 'leader') {
    return typeof startedAt === 'number' && Number.isFinite(startedAt);
  }
  return true;
}

function randomTabId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function defaultChannel(name: string): TabChannel {
  return new BroadcastChannel(name);
}

function defaultLocks(): TabLocks | null {
  return (globalThis.navigator as Navigator | undefined)?.locks ?? null;
}

/** True when tab a outranks tab b: earlier start, then lower id. */
export function outranks(
  a: { startedAt: number; id: string },
  b: { startedAt: number; id: string },
): boolean {
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt;
  return a.id < b.id;
}

export class TabLeaderElection {
  readonly id: string;
  private readonly channelName: string;
  private readonly createChannel: (name: string) => TabChannel;
  private readonly clock: TabClock;
  private readonly locks: TabLocks | null;

  private channel: TabChannel | null = null;
  private startedAt = 0;
  private snapshot: TabLeaderSnapshot = { role: 'idle', isLeader: false, leaderId: null };
  private readonly listeners = new Set<() => void>();
  private readonly messageListeners = new Set<(payload: unknown, meta: TabMessageMeta) => void>();

  /** announce → propose → claim, or the wait for a higher-ranked tab's claim. */
  private electionTimer: TimerHandle | null = null;
  private proposing = false;
  private heartbeatTimer: TimerHandle | null = null;
  private monitorTimer: TimerHandle | null = null;
  private leaderSeenAt = 0;
  /** The rank stamp of the leader this tab follows, from its last `leader` message. */
  private leaderStartedAt: number | null = null;
  /** While this tab leads with Web Locks: lets go of its lock. */
  private releaseLeaderLock: (() => void) | null = null;
  /** The leader lock is granted (said in this tab's `leader` messages). */
  private leaderLockHeld = false;
  /** The leader whose lock this follower waits on, and how to stop waiting. */
  private watching: { leaderId: string; abort: AbortController } | null = null;

  constructor(options: TabLeaderElectionOptions = {}) {
    this.id = options.id ?? randomTabId();
    this.channelName = options.channelName ?? TAB_CHANNEL_NAME;
    this.createChannel = options.createChannel ?? defaultChannel;
    this.clock = options.clock ?? systemClock;
    this.locks = options.locks === undefined ? defaultLocks() : options.locks;
  }

  /** Joins the tabs: starts an election (a no-op while already running). */
  start(): void {
    if (this.channel) return;
    this.channel = this.createChannel(this.channelName);
    this.channel.addEventListener('message', this.handleEvent);
    this.startedAt = this.clock.now();
    this.elect();
  }

  /** Leaves the tabs; a leader first tells the others, who elect a successor at once. */
  resign(): void {
    if (!this.channel) return;
    if (this.snapshot.isLeader) this.post({ type: 'resign', from: this.id });
    this.stop();
  }

  /** Leaves without a word (what a crashed tab does); prefer resign(). */
  stop(): void {
    this.clearTimers();
    if (this.channel) {
      this.channel.removeEventListener('message', this.handleEvent);
      this.channel.close();
      this.channel = null;
    }
    this.setSnapshot('stopped', null);
  }

  /**
   * Takes the lead from the current leader: the tab the person is using becomes the one that
   * polls. The rank stamp drops just below the leader's, so the leader, hearing this tab's claim,
   * steps down by the usual rule (two leaders: the lower-ranked steps down).
   */
  takeOver(): void {
    if (!this.channel || this.snapshot.isLeader) return;
    if (this.leaderStartedAt !== null && this.leaderStartedAt <= this.startedAt) {
      this.startedAt = this.leaderStartedAt - 1;
    }
    this.claim();
  }

  get isLeader(): boolean {
    return this.snapshot.isLeader;
  }

  /** For useSyncExternalStore. */
  getSnapshot = (): TabLeaderSnapshot => this.snapshot;

  /** For useSyncExternalStore: called on every role or leader change. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Sends a payload (structured-clonable) to every other tab, e.g. the leader's poll results. */
  broadcast(payload: unknown): void {
    this.post({ type: 'data', from: this.id, payload });
  }

  /** Payloads other tabs broadcast. */
  onMessage(listener: (payload: unknown, meta: TabMessageMeta) => void): () => void {
    this.messageListeners.add(listener);
    return () => {
      this.messageListeners.delete(listener);
    };
  }

  private post(message: Wire): void {
    try {
      this.channel?.postMessage(message);
    } catch {
      // A closed channel or an uncloneable payload: nothing to send.
    }
  }

  private setSnapshot(role: TabRole, leaderId: string | null): void {
    const current = this.snapshot;
    if (current.role === role && current.leaderId === leaderId) return;
    this.snapshot = { role, isLeader: role === 'leader', leaderId };
    this.syncLocks();
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * A leader holds its lock and watches none; a follower watches its leader's lock (once that
   * leader said it holds one); any other role neither holds nor watches.
   */
  private syncLocks(): void {
    if (!this.locks) return;
    const { role, leaderId } = this.snapshot;
    if (role === 'leader') this.holdLeaderLock();
    else if (this.releaseLeaderLock) {
      this.releaseLeaderLock();
      this.releaseLeaderLock = null;
      this.leaderLockHeld = false;
    }
    if (this.watching && (role !== 'follower' || this.watching.leaderId !== leaderId)) {
      this.watching.abort.abort();
      this.watching = null;
    }
  }

  private lockName(tabId: string): string {
    return `${this.channelName}:leader:${tabId}`;
  }

  private holdLeaderLock(): void {
    if (!this.locks || this.releaseLeaderLock) return;
    const abort = new AbortController();
    let letGo = () => {};
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const release = () => {
      abort.abort();
      letGo();
    };
    this.releaseLeaderLock = release;
    this.locks
      .request(this.lockName(this.id), { signal: abort.signal }, () => {
        if (this.releaseLeaderLock !== release) return;
        this.leaderLockHeld = true;
        // Tell the followers at once that there is a lock to wait on.
        this.sendLeaderBeat();
        return held;
      })
      .catch(() => {
        // Let go before it was granted: nothing held.
      });
  }

  /** Waits on the leader's lock: granted when its tab let go (closed, crashed, stepped down). */
  private watchLeaderLock(leaderId: string): void {
    if (!this.locks || this.watching?.leaderId === leaderId) return;
    this.watching?.abort.abort();
    const watch = { leaderId, abort: new AbortController() };
    this.watching = watch;
    this.locks
      .request(this.lockName(leaderId), { mode: 'shared', signal: watch.abort.signal }, () => {
        if (this.watching !== watch) return;
        this.watching = null;
        const { role, leaderId: following } = this.snapshot;
        if (role === 'follower' && following === leaderId) this.elect();
      })
      .catch(() => {
        // Stopped waiting: this tab left, leads, or follows another tab.
      });
  }

  private clearTimers(): void {
    if (this.electionTimer !== null) this.clock.clearTimeout(this.electionTimer);
    if (this.heartbeatTimer !== null) this.clock.clearInterval(this.heartbeatTimer);
    if (this.monitorTimer !== null) this.clock.clearInterval(this.monitorTimer);
    this.electionTimer = null;
    this.heartbeatTimer = null;
    this.monitorTimer = null;
    this.proposing = false;
  }

  private schedule(ms: number, then: () => void): void {
    if (this.electionTimer !== null) this.clock.clearTimeout(this.electionTimer);
    this.electionTimer = this.clock.setTimeout(() => {
      this.electionTimer = null;
      then();
    }, ms);
  }

  private elect(): void {
    this.clearTimers();
    this.setSnapshot('electing', null);
    this.post({ type: 'announce', from: this.id, startedAt: this.startedAt });
    this.schedule(TAB_ELECTION_ANNOUNCE_WAIT_MS, () => this.propose());
  }

  private propose(): void {
    this.proposing = true;
    this.post({ type: 'propose', from: this.id, startedAt: this.startedAt });
    this.schedule(TAB_ELECTION_PROPOSE_WAIT_MS, () => this.claim());
  }

  private claim(): void {
    this.clearTimers();
    this.setSnapshot('leader', this.id);
    this.sendLeaderBeat();
    this.heartbeatTimer = this.clock.setInterval(
      () => this.sendLeaderBeat(),
      TAB_LEADER_HEARTBEAT_MS,
    );
  }

  private sendLeaderBeat(): void {
    this.post({
      type: 'leader',
      from: this.id,
      startedAt: this.startedAt,
      ...(this.leaderLockHeld ? { locked: true } : {}),
    });
  }

  private follow(leaderId: string): void {
    if (this.snapshot.role !== 'follower') {
      this.clearTimers();
      this.monitorTimer = this.clock.setInterval(() => this.monitor(), TAB_LEADER_MONITOR_MS);
    }
    this.leaderSeenAt = this.clock.now();
    this.setSnapshot('follower', leaderId);
  }

  private monitor(): void {
    if (this.clock.now() - this.leaderSeenAt >= TAB_LEADER_DEAD_AFTER_MS) this.elect();
  }

  /** A follower whose leader is silent past the limit is as good as in an election. */
  private leaderAlive(): boolean {
    return (
      this.snapshot.role === 'follower' &&
      this.clock.now() - this.leaderSeenAt < TAB_LEADER_DEAD_AFTER_MS
    );
  }

  private readonly handleEvent = (event: MessageEvent): void => {
    const message: unknown = event.data;
    if (!isWire(message) || message.from === this.id || !this.channel) return;
    this.handle(message);
  };

  private handle(message: Wire): void {
    const me = { id: this.id, startedAt: this.startedAt };
    switch (message.type) {
      case 'data': {
        const meta = { from: message.from, fromLeader: message.from === this.snapshot.leaderId };
        for (const listener of [...this.messageListeners]) listener(message.payload, meta);
        return;
      }
      case 'resign':
        if (message.from === this.snapshot.leaderId && !this.snapshot.isLeader) this.elect();
        return;
      case 'leader': {
        const other = { id: message.from, startedAt: message.startedAt };
        if (this.snapshot.isLeader) {
          // Two leaders: the lower-ranked steps down, the other reasserts itself.
          if (outranks(other, me)) {
            this.leaderStartedAt = message.startedAt;
            this.follow(message.from);
            if (message.locked === true) this.watchLeaderLock(message.from);
          } else this.sendLeaderBeat();
          return;
        }
        this.leaderStartedAt = message.startedAt;
        this.follow(message.from);
        if (message.locked === true) this.watchLeaderLock(message.from);
        return;
      }
      case 'announce':
        if (this.snapshot.isLeader) this.sendLeaderBeat();
        return;
      case 'propose': {
        if (this.snapshot.isLeader) {
          this.sendLeaderBeat();
          return;
        }
        if (this.leaderAlive()) return;
        const other = { id: message.from, startedAt: message.startedAt };
        if (outranks(me, other)) {
          // Object: a higher-ranked proposal makes the other tab stand down.
          if (this.snapshot.role !== 'electing') {
            this.clearTimers();
            this.setSnapshot('electing', null);
          }
          if (this.proposing) {
            this.post({ type: 'propose', from: this.id, startedAt: this.startedAt });
          } else {
            this.propose();
          }
          return;
        }
        // Stand down; run again if the higher-ranked tab never claims.
        if (this.snapshot.role !== 'electing') {
          this.clearTimers();
          this.setSnapshot('electing', null);
        }
        this.proposing = false;
        this.schedule(TAB_ELECTION_ANNOUNCE_WAIT_MS + TAB_ELECTION_PROPOSE_WAIT_MS, () =>
          this.elect(),
        );
        return;
      }
    }
  }
}

/** Hooks the election to the page: resign on pagehide, rejoin when restored from bfcache. */
export function bindPageLifecycle(
  election: Pick<TabLeaderElection, 'start' | 'resign'>,
  target: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
): () => void {
  const handlePageHide = () => election.resign();
  const handlePageShow = (event: Event) => {
    if ((event as PageTransitionEvent).persisted) election.start();
  };
  target.addEventListener('pagehide', handlePageHide);
  target.addEventListener('pageshow', handlePageShow);
  return () => {
    target.removeEventListener('pagehide', handlePageHide);
    target.removeEventListener('pageshow', handlePageShow);
  };
}
