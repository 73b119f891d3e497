/**
 * The cluster of scale-out mode (cluster.ts): Redis pub/sub for messages between nodes, locks a
 * node keeps renewing, sliding-window counters, shared values and rosters, all on Redis's keys.
 */
import { Redis } from 'ioredis';
import type { Cluster, ClusterLock } from './cluster.js';
import { newNodeId } from './node-id.js';

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
  return new RedisCluster({
    prefix: options.prefix ?? 'perch',
    nodeId,
    onError,
    commands,
    subscriber,
  });
}

/** A lock this node holds in Redis: stops its renewal, or gives it back. */
interface HeldLock {
  stop: () => void;
  release: () => Promise<void>;
}

/** The cluster over two connected Redis clients (createRedisCluster connects them). */
class RedisCluster implements Cluster {
  readonly shared = true;
  readonly nodeId: string;
  private readonly prefix: string;
  private readonly onError: (error: Error) => void;
  private readonly commands: Redis;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, ((message: unknown) => void)[]>();
  private readonly held = new Set<HeldLock>();
  private sequence = 0;

  constructor(parts: {
    prefix: string;
    nodeId: string;
    onError: (error: Error) => void;
    commands: Redis;
    subscriber: Redis;
  }) {
    this.prefix = parts.prefix;
    this.nodeId = parts.nodeId;
    this.onError = parts.onError;
    this.commands = parts.commands;
    this.subscriber = parts.subscriber;
    this.subscriber.on('message', (channel: string, text: string) => this.deliver(channel, text));
  }

  /** Hands a message received on `channel` to its handlers; one that is not JSON is dropped. */
  private deliver(channel: string, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    for (const handler of this.handlers.get(channel) ?? []) handler(message);
  }

  async publish(channel: string, message: unknown): Promise<void> {
    await this.commands.publish(`${this.prefix}:${channel}`, JSON.stringify(message));
  }

  async subscribe(channel: string, onMessage: (message: unknown) => void): Promise<void> {
    const name = `${this.prefix}:${channel}`;
    const list = this.handlers.get(name) ?? [];
    list.push(onMessage);
    this.handlers.set(name, list);
    if (list.length === 1) await this.subscriber.subscribe(name);
  }

  async tryLock(name: string, ttlMs: number, onLost?: () => void): Promise<ClusterLock | null> {
    const key = `${this.prefix}:lock:${name}`;
    const token = `${this.nodeId}:${++this.sequence}`;
    const taken = await this.commands.set(key, token, 'PX', ttlMs, 'NX');
    if (taken !== 'OK') return null;
    let isHeld = true;
    const lost = () => {
      if (!isHeld) return;
      isHeld = false;
      clearInterval(timer);
      this.held.delete(entry);
      onLost?.();
    };
    const timer = this.renewLock(key, token, ttlMs, lost);
    const entry: HeldLock = {
      stop: () => clearInterval(timer),
      release: async () => {
        if (!isHeld) return;
        isHeld = false;
        clearInterval(timer);
        this.held.delete(entry);
        await this.commands.eval(RELEASE, 1, key, token).catch(this.onError);
      },
    };
    this.held.add(entry);
    return {
      get held() {
        return isHeld;
      },
      release: entry.release,
    };
  }

  /** Renews a lock every third of `ttlMs`; calls `lost` when a renewal finds it taken. */
  private renewLock(key: string, token: string, ttlMs: number, lost: () => void): NodeJS.Timeout {
    const timer = setInterval(
      () => {
        this.commands
          .eval(RENEW, 1, key, token, String(ttlMs))
          .then((renewed) => {
            if (Number(renewed) !== 1) lost();
          })
          .catch(this.onError);
      },
      Math.max(50, Math.floor(ttlMs / 3)),
    );
    timer.unref();
    return timer;
  }

  async take(
    key: string,
    limit: number,
    windowMs: number,
  ): Promise<{ ok: boolean; retryInMs: number }> {
    const result = await this.commands.eval(
      TAKE,
      1,
      `${this.prefix}:window:${key}`,
      String(Date.now()),
      String(windowMs),
      String(limit),
      `${this.nodeId}:${++this.sequence}`,
    );
    const retry = Number(result);
    return retry < 0 ? { ok: true, retryInMs: 0 } : { ok: false, retryInMs: Math.max(1, retry) };
  }

  async remember(key: string, value: string, ttlMs: number): Promise<void> {
    await this.commands.set(`${this.prefix}:value:${key}`, value, 'PX', ttlMs);
  }

  recall(key: string): Promise<string | null> {
    return this.commands.get(`${this.prefix}:value:${key}`);
  }

  async forget(key: string): Promise<void> {
    await this.commands.del(`${this.prefix}:value:${key}`);
  }

  async enroll(key: string, member: string, limit: number, ttlMs: number): Promise<string[]> {
    const pushedOut = await this.commands.eval(
      ENROLL,
      2,
      `${this.prefix}:roster:${key}`,
      `${this.prefix}:roster-until:${key}`,
      member,
      String(ttlMs),
      String(limit),
    );
    return (pushedOut as string[]).map(String);
  }

  async keep(key: string, members: readonly string[], ttlMs: number): Promise<void> {
    if (members.length === 0) return;
    await this.commands.eval(
      KEEP,
      2,
      `${this.prefix}:roster:${key}`,
      `${this.prefix}:roster-until:${key}`,
      String(ttlMs),
      ...members,
    );
  }

  async withdraw(key: string, member: string): Promise<void> {
    await this.commands
      .multi()
      .zrem(`${this.prefix}:roster:${key}`, member)
      .hdel(`${this.prefix}:roster-until:${key}`, member)
      .exec();
  }

  async close(): Promise<void> {
    for (const entry of [...this.held]) await entry.release();
    this.handlers.clear();
    await Promise.allSettled([this.commands.quit(), this.subscriber.quit()]);
  }
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
