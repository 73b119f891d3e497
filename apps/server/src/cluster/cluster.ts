/**
 * What the processes of one Perch deployment share besides the database. Embedded mode (no
 * REDIS_URL) has one process: messages stay in it and every lock is granted. Scale-out mode
 * shares them through Redis: pub/sub for messages between nodes, and locks that one node holds
 * at a time and keeps renewing, which another node takes over once a holder stops renewing
 * (a crash) and the lock's time runs out. Rosters (bounded sets whose oldest members are pushed
 * out) lapse the same way: a member its node stops renewing stops counting.
 */
import { EventEmitter } from 'node:events';
import { newNodeId } from './node-id.js';

export { newNodeId };

/** A lock held by this node; `held` turns false when it was lost or released. */
export interface ClusterLock {
  readonly held: boolean;
  release(): Promise<void>;
}

export interface Cluster {
  /** This process's name: host, pid and a random part (logs, lock owners, message senders). */
  readonly nodeId: string;
  /** Whether other processes may share the work (Redis is configured). */
  readonly shared: boolean;
  /** Sends `message` (JSON) to every node subscribed to `channel`, this one included. */
  publish(channel: string, message: unknown): Promise<void>;
  /** Calls `onMessage` with each message published on `channel` by any node. */
  subscribe(channel: string, onMessage: (message: unknown) => void): Promise<void>;
  /**
   * Takes the named lock when no other node holds it, and renews it every third of `ttlMs`
   * until released; `onLost` is called if a renewal finds it taken (this node stalled for
   * longer than `ttlMs`). Null when another node holds it.
   */
  tryLock(name: string, ttlMs: number, onLost?: () => void): Promise<ClusterLock | null>;
  /**
   * Counts one event under `key` in a window of `windowMs` shared by every node, and says
   * whether it fits in `limit`; when not, how long until it would (ms).
   */
  take(key: string, limit: number, windowMs: number): Promise<{ ok: boolean; retryInMs: number }>;
  /**
   * A small value every node can read (e.g. a Discord DM channel id), kept for `ttlMs`; a
   * shared cache, never the only copy of anything.
   */
  remember(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value stored under `key`, or null when none is (or it expired). */
  recall(key: string): Promise<string | null>;
  forget(key: string): Promise<void>;
  /**
   * Adds `member` to the bounded roster `key`, shared by every node, and answers the members it
   * pushes out, longest enrolled first, so that at most `limit` remain. A member counts for
   * `ttlMs` unless `keep` renews it: the members of a node that stopped leave by themselves.
   */
  enroll(key: string, member: string, limit: number, ttlMs: number): Promise<string[]>;
  /** Renews the members of roster `key` that are still on it for another `ttlMs`. */
  keep(key: string, members: readonly string[], ttlMs: number): Promise<void>;
  /** Takes `member` off roster `key`. */
  withdraw(key: string, member: string): Promise<void>;
  /** Releases the locks and closes the connections. */
  close(): Promise<void>;
}

/** The rosters of one process (`Cluster.enroll`, `keep`, `withdraw`), in memory. */
export type Rosters = Pick<Cluster, 'enroll' | 'keep' | 'withdraw'>;

/** Rosters in memory: the local cluster's, and a node's own view beside a shared one. */
export function createLocalRosters(now: () => number = Date.now): Rosters {
  // Each roster's members in the order they enrolled (a Map keeps insertion order).
  const rosters = new Map<string, Map<string, number>>();
  return {
    enroll(key, member, limit, ttlMs) {
      const at = now();
      const roster = rosters.get(key) ?? new Map<string, number>();
      rosters.set(key, roster);
      for (const [name, until] of roster) if (until <= at) roster.delete(name);
      roster.delete(member);
      roster.set(member, at + ttlMs);
      const pushedOut = [...roster.keys()].slice(0, Math.max(0, roster.size - limit));
      for (const name of pushedOut) roster.delete(name);
      return Promise.resolve(pushedOut);
    },
    keep(key, members, ttlMs) {
      const roster = rosters.get(key);
      const until = now() + ttlMs;
      for (const member of members) if (roster?.has(member)) roster.set(member, until);
      return Promise.resolve();
    },
    withdraw(key, member) {
      const roster = rosters.get(key);
      roster?.delete(member);
      if (roster?.size === 0) rosters.delete(key);
      return Promise.resolve();
    },
  };
}

/** One process: messages go to its own subscribers, locks and counters live in memory. */
export function createLocalCluster(nodeId = newNodeId()): Cluster {
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  const locks = new Set<string>();
  const values = new Map<string, { value: string; until: number }>();
  return {
    ...createLocalRosters(),
    ...localMessages(bus),
    ...localLocks(locks),
    ...localWindows(),
    ...localValues(values),
    nodeId,
    shared: false,
    close() {
      bus.removeAllListeners();
      locks.clear();
      values.clear();
      return Promise.resolve();
    },
  };
}

/** Messages of one process: each goes to its subscribers, as a copy (as if sent as JSON). */
function localMessages(bus: EventEmitter): Pick<Cluster, 'publish' | 'subscribe'> {
  return {
    publish(channel, message) {
      bus.emit(channel, structuredClone(message));
      return Promise.resolve();
    },
    subscribe(channel, onMessage) {
      bus.on(channel, onMessage);
      return Promise.resolve();
    },
  };
}

/** Locks of one process: granted unless taken, never lost. */
function localLocks(locks: Set<string>): Pick<Cluster, 'tryLock'> {
  return {
    tryLock(name) {
      if (locks.has(name)) return Promise.resolve(null);
      locks.add(name);
      let held = true;
      return Promise.resolve({
        get held() {
          return held;
        },
        release() {
          held = false;
          locks.delete(name);
          return Promise.resolve();
        },
      });
    },
  };
}

/** Sliding-window counters of one process. */
function localWindows(): Pick<Cluster, 'take'> {
  const windows = new Map<string, number[]>();
  return {
    take(key, limit, windowMs) {
      const now = Date.now();
      const times = (windows.get(key) ?? []).filter((at) => at > now - windowMs);
      if (times.length >= limit) {
        windows.set(key, times);
        return Promise.resolve({ ok: false, retryInMs: times[0]! + windowMs - now });
      }
      times.push(now);
      windows.set(key, times);
      return Promise.resolve({ ok: true, retryInMs: 0 });
    },
  };
}

/** Values of one process, each kept until its time runs out. */
function localValues(
  values: Map<string, { value: string; until: number }>,
): Pick<Cluster, 'remember' | 'recall' | 'forget'> {
  return {
    remember(key, value, ttlMs) {
      values.set(key, { value, until: Date.now() + ttlMs });
      return Promise.resolve();
    },
    recall(key) {
      const entry = values.get(key);
      if (entry && entry.until <= Date.now()) values.delete(key);
      return Promise.resolve(entry && entry.until > Date.now() ? entry.value : null);
    },
    forget(key) {
      values.delete(key);
      return Promise.resolve();
    },
  };
}
