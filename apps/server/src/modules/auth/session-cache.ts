/**
 * An in-process cache of resolved sessions, so that a signed-in request does not have to read
 * the sessions and users tables every time. API nodes stay stateless: the database holds the
 * truth, and every change that could make a cached answer wrong (a revoked session, a password
 * or role change) drops the affected entries here at once and on every other node through the
 * Cluster (Redis pub/sub in scale-out mode).
 *
 * Entries are keyed by the SHA-256 of the cookie value (the sessions table's id), never by the
 * cookie itself. An entry is used only until the earliest of: its short TTL, the session's own
 * expiry, and an invalidation message.
 *
 * "At once" on every node: the caches of a cluster know each other (each says hello when it
 * starts and every PRESENCE_MS), and an invalidation waits until every other live cache has
 * acknowledged dropping the entries, for at most ACK_TIMEOUT_MS. So when the request that
 * revoked a session answers, no node still answers that session from memory. The TTL only
 * matters when that fails: a message lost (Redis restarting, a subscriber reconnecting), a node
 * too slow to acknowledge, or a process without the cluster changing sessions (the CLI joins the
 * cluster to announce its changes only when REDIS_URL is set). It bounds how long such a change
 * can go unseen.
 */
import { randomBytes } from 'node:crypto';
import type { Cluster } from '../../cluster/cluster.js';
import type { AuthContext } from './auth-context.js';

/** The cluster channel invalidations travel on. */
export const SESSION_CACHE_CHANNEL = 'sessions';
/**
 * 5 s: a page load or a burst of dashboard calls reuses one lookup, while a change whose message
 * was lost still takes effect within seconds, before anyone could act on the old answer.
 */
export const SESSION_CACHE_TTL_MS = 5_000;
/** About 1-2 kB an entry: 10,000 sessions used within one TTL is a few MB at most. */
export const SESSION_CACHE_MAX_ENTRIES = 10_000;
/** How often a cache tells the others it is there; one not heard for three times that is gone. */
export const PRESENCE_MS = 10_000;
/** The longest an invalidation waits for the other caches to acknowledge it. */
export const ACK_TIMEOUT_MS = 250;

/** A resolved session, as the request path needs it. */
export interface CachedSession {
  auth: AuthContext;
  /** The session's own expiry (ms since the epoch): never used past it. */
  expiresAt: number;
  /** `last_seen_at` as this node last read or wrote it (ms), for the touch throttle. */
  lastSeenAt: number;
  /** The sign-in (ms): the absolute lifetime counts from it. */
  createdAt: number;
  rememberMe: boolean;
}

/** What code that revokes sessions or changes a signed-in user needs. */
export interface SessionInvalidator {
  /**
   * Drops one session (by the hash of its cookie value) here and on every node; resolves once
   * the other caches have acknowledged it (or ACK_TIMEOUT_MS). Never rejects.
   */
  invalidateSession(idHash: string): Promise<void>;
  /** Drops every session of a user here and on every node; as invalidateSession. */
  invalidateUser(userId: number): Promise<void>;
}

export interface SessionCacheOptions {
  /** Where invalidations are published and heard (createLocalCluster for one process). */
  cluster: Cluster;
  ttlMs?: number;
  maxEntries?: number;
  presenceMs?: number;
  ackTimeoutMs?: number;
  /** The clock (tests). */
  now?: () => number;
  /**
   * A publish that failed (Redis down) or went unacknowledged: the entries are gone here already,
   * and the TTL bounds how long another node may keep them.
   */
  onError?: (error: Error) => void;
}

export interface SessionCacheStats {
  entries: number;
  hits: number;
  misses: number;
  /** Invalidations published by this cache. */
  sent: number;
  /** Invalidations from other caches applied here. */
  received: number;
  /** Other caches of the cluster heard from lately. */
  peers: number;
}

type Entry = CachedSession & { userId: number; validUntil: number };

/** Everything on the channel comes from a cache: `from` is its origin. */
interface Message {
  from: string;
  /** An invalidation: its id (per sender), and a session or a user or both. */
  id?: string;
  session?: string;
  user?: number;
  /** An acknowledgment of invalidation `ack` sent by `to`. */
  ack?: string;
  to?: string;
  /** Presence: `hello` when there, `bye` when closing. */
  hello?: true;
  bye?: true;
}

function parseMessage(message: unknown): Message | null {
  if (!message || typeof message !== 'object') return null;
  const { from, id, session, user, ack, to, hello, bye } = message as Record<string, unknown>;
  if (typeof from !== 'string') return null;
  const parsed: Message = { from };
  if (typeof id === 'string') parsed.id = id;
  if (typeof session === 'string') parsed.session = session;
  if (typeof user === 'number' && Number.isInteger(user)) parsed.user = user;
  if (typeof ack === 'string' && typeof to === 'string') {
    parsed.ack = ack;
    parsed.to = to;
  }
  if (hello === true) parsed.hello = true;
  if (bye === true) parsed.bye = true;
  return parsed;
}

interface PendingAck {
  waiting: Set<string>;
  settle: () => void;
}

export class SessionCache implements SessionInvalidator {
  readonly ttlMs: number;
  readonly maxEntries: number;
  /** Map order is recency order: the first key is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  /**
   * Counts invalidations heard or made here. A lookup that started before one may have read the
   * row before the change was committed, so `set` refuses what was read under an older count.
   */
  private generation = 0;
  /** This cache on the channel: several may share one cluster (tests, one process). */
  private readonly origin: string;
  /** The other caches: origin, and when last heard from. */
  private readonly peers = new Map<string, number>();
  private readonly pending = new Map<string, PendingAck>();
  private sequence = 0;
  private readonly presenceMs: number;
  private readonly ackTimeoutMs: number;
  private presenceTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly onError: (error: Error) => void;
  private closed = false;
  private readonly counts = { hits: 0, misses: 0, sent: 0, received: 0 };

  private constructor(
    private readonly cluster: Cluster,
    options: SessionCacheOptions,
  ) {
    this.ttlMs = options.ttlMs ?? SESSION_CACHE_TTL_MS;
    this.maxEntries = Math.max(1, options.maxEntries ?? SESSION_CACHE_MAX_ENTRIES);
    this.presenceMs = options.presenceMs ?? PRESENCE_MS;
    this.ackTimeoutMs = options.ackTimeoutMs ?? ACK_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    this.onError =
      options.onError ?? ((error) => console.error(`Session cache invalidation: ${error.message}`));
    this.origin = `${cluster.nodeId}/${randomBytes(4).toString('hex')}`;
  }

  /** A cache that hears invalidations from every node of `cluster`, and says it is there. */
  static async create(options: SessionCacheOptions): Promise<SessionCache> {
    const cache = new SessionCache(options.cluster, options);
    await options.cluster.subscribe(SESSION_CACHE_CHANNEL, (message) => cache.hear(message));
    await cache.send({ from: cache.origin, hello: true });
    cache.presenceTimer = setInterval(() => {
      void cache.send({ from: cache.origin, hello: true });
    }, cache.presenceMs);
    cache.presenceTimer.unref();
    return cache;
  }

  /** The live entry for a session, or undefined (never one past its TTL or the session's end). */
  get(idHash: string, now = this.now()): CachedSession | undefined {
    const entry = this.entries.get(idHash);
    if (entry === undefined) {
      this.counts.misses++;
      return undefined;
    }
    if (now >= entry.validUntil) {
      this.entries.delete(idHash);
      this.counts.misses++;
      return undefined;
    }
    // Most recently used goes last.
    this.entries.delete(idHash);
    this.entries.set(idHash, entry);
    this.counts.hits++;
    return entry;
  }

  /** Pass to `set`: taken before reading the database. */
  snapshot(): number {
    return this.generation;
  }

  /**
   * Keeps a session read from the database at `snapshot` time, unless an invalidation was made or
   * heard since (the read may predate it) or the session is already over.
   */
  set(idHash: string, session: CachedSession, snapshot: number, now = this.now()): void {
    if (this.closed || snapshot !== this.generation) return;
    const validUntil = Math.min(now + this.ttlMs, session.expiresAt);
    if (validUntil <= now) return;
    const auth = Object.freeze({
      ...session.auth,
      user: Object.freeze({ ...session.auth.user }),
    });
    this.entries.delete(idHash);
    this.entries.set(idHash, { ...session, auth, userId: auth.user.id, validUntil });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  invalidateSession(idHash: string): Promise<void> {
    this.dropSession(idHash);
    return this.invalidateEverywhere({ session: idHash });
  }

  invalidateUser(userId: number): Promise<void> {
    this.dropUser(userId);
    return this.invalidateEverywhere({ user: userId });
  }

  stats(): SessionCacheStats {
    return { entries: this.entries.size, ...this.counts, peers: this.livePeers().length };
  }

  /** Empties the cache, stops using it and tells the others (the subscription is the cluster's). */
  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.presenceTimer);
    await this.send({ from: this.origin, bye: true });
    this.closed = true;
    this.generation++;
    this.entries.clear();
    for (const pending of this.pending.values()) pending.settle();
  }

  private dropSession(idHash: string): void {
    this.generation++;
    this.entries.delete(idHash);
  }

  private dropUser(userId: number): void {
    this.generation++;
    for (const [idHash, entry] of this.entries) {
      if (entry.userId === userId) this.entries.delete(idHash);
    }
  }

  private livePeers(): string[] {
    const since = this.now() - 3 * this.presenceMs;
    return [...this.peers].filter(([, heardAt]) => heardAt >= since).map(([origin]) => origin);
  }

  private hear(raw: unknown): void {
    const message = parseMessage(raw);
    if (!message || message.from === this.origin || this.closed) return;
    const { from } = message;
    if (message.bye) {
      this.peers.delete(from);
      for (const [id, pending] of this.pending) this.acknowledged(id, pending, from);
      return;
    }
    const known = this.peers.has(from);
    this.peers.set(from, this.now());
    // A newcomer learns of this cache at once, not at its next hello.
    if (message.hello && !known) void this.send({ from: this.origin, hello: true });
    if (message.ack !== undefined && message.to === this.origin) {
      const pending = this.pending.get(message.ack);
      if (pending) this.acknowledged(message.ack, pending, from);
    }
    if (message.session === undefined && message.user === undefined) return;
    if (message.session !== undefined) this.dropSession(message.session);
    if (message.user !== undefined) this.dropUser(message.user);
    this.counts.received++;
    if (message.id !== undefined) void this.send({ from: this.origin, ack: message.id, to: from });
  }

  private acknowledged(id: string, pending: PendingAck, from: string): void {
    pending.waiting.delete(from);
    if (pending.waiting.size > 0) return;
    this.pending.delete(id);
    pending.settle();
  }

  /** Publishes an invalidation and waits for the other live caches to acknowledge it. */
  private async invalidateEverywhere(what: { session?: string; user?: number }): Promise<void> {
    if (this.closed) return;
    const id = String(++this.sequence);
    const waiting = new Set(this.livePeers());
    let settle = () => {};
    const acknowledged = new Promise<void>((resolve) => (settle = resolve));
    // Registered before publishing: on a local cluster the acknowledgments come back within it.
    if (waiting.size > 0) this.pending.set(id, { waiting, settle });
    if (!(await this.send({ from: this.origin, id, ...what }))) {
      this.pending.delete(id);
      return;
    }
    this.counts.sent++;
    if (waiting.size === 0) return;
    const timer = setTimeout(settle, this.ackTimeoutMs);
    await acknowledged;
    clearTimeout(timer);
    this.pending.delete(id);
    if (waiting.size > 0 && !this.closed) {
      this.onError(
        new Error(
          `not acknowledged within ${this.ackTimeoutMs} ms by ${[...waiting].join(', ')}; ` +
            `they drop it when the message arrives, or within ${this.ttlMs} ms`,
        ),
      );
    }
  }

  /** Publishes on the channel; false (and reported) when that failed. */
  private async send(message: Message): Promise<boolean> {
    try {
      await this.cluster.publish(SESSION_CACHE_CHANNEL, message);
      return true;
    } catch (error) {
      this.onError(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  }
}

/** A cache that hears invalidations from every node of `options.cluster`. */
export function createSessionCache(options: SessionCacheOptions): Promise<SessionCache> {
  return SessionCache.create(options);
}
