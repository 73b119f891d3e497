/**
 * What the processes of one Perch deployment share besides the database. Embedded mode (no
 * REDIS_URL) has one process: messages stay in it and every lock is granted. Scale-out mode
 * shares them through Redis: pub/sub for messages between nodes, and locks that one node holds
 * at a time and keeps renewing, which another node takes over once a holder stops renewing
 * (a crash) and the lock's time runs out. Rosters (bounded sets whose oldest members are pushed
 * out) lapse the same way: a member its node stops renewing stops counting.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import { Redis } from 'ioredis';

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

export function newNodeId(): string {
  return `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
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
  const windows = new Map<string, number[]>();
  const values = new Map<string, { value: string; until: number }>();
  return {
    ...createLocalRosters(),
    nodeId,
    shared: false,
    publish(channel, message) {
      bus.emit(channel, structuredClone(message));
      return Promise.resolve();
    },
    subscribe(channel, onMessage) {
      bus.on(channel, onMessage);
      return Promise.resolve();
    },
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
    close() {
      bus.removeAllListeners();
      locks.clear();
      values.clear();
      return Promise.resolve();
    },
  };
}

/** Renews a lock only while this node still holds it (compare-and-extend). */
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
/** Deletes a lock only while this node still holds it. */
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1]) else return 0 end`;
/** A sliding-window counter: drops old entries, counts, adds one when it fits. */
const TAKE = `redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1] - ARGV[2])
local count = redis.call('zcard', KEYS[1])
if count >= tonumber(ARGV[3]) then
  local oldest = redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1])
end
redis.call('zadd', KEYS[1], ARGV[1], ARGV[4])
redis.call('pexpire', KEYS[1], ARGV[2])
return -1`;
/**
 * A roster: a sorted set of members by when they enrolled, on Redis's clock (so the nodes'
 * clocks do not matter), and a hash of when each stops counting. Drops the lapsed members,
 * enrolls one, and answers (and drops) the oldest beyond the limit.
 */
const ENROLL = `local t = redis.call('time')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local lapsed = redis.call('hgetall', KEYS[2])
for i = 1, #lapsed, 2 do
  if tonumber(lapsed[i + 1]) <= now then
    redis.call('zrem', KEYS[1], lapsed[i])
    redis.call('hdel', KEYS[2], lapsed[i])
  end
end
redis.call('zadd', KEYS[1], now, ARGV[1])
redis.call('hset', KEYS[2], ARGV[1], now + tonumber(ARGV[2]) * 1000)
local excess = redis.call('zcard', KEYS[1]) - tonumber(ARGV[3])
local out = {}
if excess > 0 then
  out = redis.call('zrange', KEYS[1], 0, excess - 1)
  for _, member in ipairs(out) do
    redis.call('zrem', KEYS[1], member)
    redis.call('hdel', KEYS[2], member)
  end
end
redis.call('pexpire', KEYS[1], ARGV[2])
redis.call('pexpire', KEYS[2], ARGV[2])
return out`;
/** Renews the members still on a roster. */
const KEEP = `local t = redis.call('time')
local untilAt = tonumber(t[1]) * 1000000 + tonumber(t[2]) + tonumber(ARGV[1]) * 1000
for i = 2, #ARGV do
  if redis.call('zscore', KEYS[1], ARGV[i]) then redis.call('hset', KEYS[2], ARGV[i], untilAt) end
end
redis.call('pexpire', KEYS[1], ARGV[1])
redis.call('pexpire', KEYS[2], ARGV[1])
return 0`;

export interface RedisClusterOptions {
  /** REDIS_URL. */
  url: string;
  /** Key and channel prefix (default 'perch'); tests isolate themselves with their own. */
  prefix?: string;
  nodeId?: string;
  /** Connection errors (Redis down): logged, the client reconnects by itself. */
  onError?: (error: Error) => void;
}

/** Scale-out: Redis, with one connection for commands and one for subscriptions. */
export async function createRedisCluster(options: RedisClusterOptions): Promise<Cluster> {
  const prefix = options.prefix ?? 'perch';
  const nodeId = options.nodeId ?? newNodeId();
  const onError = options.onError ?? ((error: Error) => console.error(`Redis: ${error.message}`));
  const commands = new Redis(options.url, { lazyConnect: true, connectionName: nodeId });
  const subscriber = new Redis(options.url, { lazyConnect: true, connectionName: nodeId });
  commands.on('error', onError);
  subscriber.on('error', onError);
  try {
    await Promise.all([commands.connect(), subscriber.connect()]);
  } catch (error) {
    commands.disconnect();
    subscriber.disconnect();
    throw new Error(
      `Redis at ${redactedUrl(options.url)} cannot be reached: ${(error as Error).message}`,
    );
  }
  const handlers = new Map<string, ((message: unknown) => void)[]>();
  subscriber.on('message', (channel: string, text: string) => {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    for (const handler of handlers.get(channel) ?? []) handler(message);
  });
  const held = new Set<{ stop: () => void; release: () => Promise<void> }>();
  let sequence = 0;

  return {
    nodeId,
    shared: true,
    async publish(channel, message) {
      await commands.publish(`${prefix}:${channel}`, JSON.stringify(message));
    },
    async subscribe(channel, onMessage) {
      const name = `${prefix}:${channel}`;
      const list = handlers.get(name) ?? [];
      list.push(onMessage);
      handlers.set(name, list);
      if (list.length === 1) await subscriber.subscribe(name);
    },
    async tryLock(name, ttlMs, onLost) {
      const key = `${prefix}:lock:${name}`;
      const token = `${nodeId}:${++sequence}`;
      const taken = await commands.set(key, token, 'PX', ttlMs, 'NX');
      if (taken !== 'OK') return null;
      let isHeld = true;
      const timer = setInterval(
        () => {
          commands
            .eval(RENEW, 1, key, token, String(ttlMs))
            .then((renewed) => {
              if (Number(renewed) === 1 || !isHeld) return;
              isHeld = false;
              clearInterval(timer);
              held.delete(entry);
              onLost?.();
            })
            .catch(onError);
        },
        Math.max(50, Math.floor(ttlMs / 3)),
      );
      timer.unref();
      const entry = {
        stop: () => clearInterval(timer),
        release: async () => {
          if (!isHeld) return;
          isHeld = false;
          clearInterval(timer);
          held.delete(entry);
          await commands.eval(RELEASE, 1, key, token).catch(onError);
        },
      };
      held.add(entry);
      return {
        get held() {
          return isHeld;
        },
        release: entry.release,
      };
    },
    async take(key, limit, windowMs) {
      const now = Date.now();
      const result = await commands.eval(
        TAKE,
        1,
        `${prefix}:window:${key}`,
        String(now),
        String(windowMs),
        String(limit),
        `${nodeId}:${++sequence}`,
      );
      const retry = Number(result);
      return retry < 0 ? { ok: true, retryInMs: 0 } : { ok: false, retryInMs: Math.max(1, retry) };
    },
    async remember(key, value, ttlMs) {
      await commands.set(`${prefix}:value:${key}`, value, 'PX', ttlMs);
    },
    recall(key) {
      return commands.get(`${prefix}:value:${key}`);
    },
    async forget(key) {
      await commands.del(`${prefix}:value:${key}`);
    },
    async enroll(key, member, limit, ttlMs) {
      const [members, lapses] = [`${prefix}:roster:${key}`, `${prefix}:roster-until:${key}`];
      const pushedOut = await commands.eval(
        ENROLL,
        2,
        members,
        lapses,
        member,
        String(ttlMs),
        String(limit),
      );
      return (pushedOut as string[]).map(String);
    },
    async keep(key, members, ttlMs) {
      if (members.length === 0) return;
      await commands.eval(
        KEEP,
        2,
        `${prefix}:roster:${key}`,
        `${prefix}:roster-until:${key}`,
        String(ttlMs),
        ...members,
      );
    },
    async withdraw(key, member) {
      await commands
        .multi()
        .zrem(`${prefix}:roster:${key}`, member)
        .hdel(`${prefix}:roster-until:${key}`, member)
        .exec();
    },
    async close() {
      for (const entry of [...held]) await entry.release();
      handlers.clear();
      await Promise.allSettled([commands.quit(), subscriber.quit()]);
    },
  };
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'REDIS_URL';
  }
}
