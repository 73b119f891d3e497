/**
 * Bounds on live event streams (GET /api/v1/events): at most MAX_STREAMS_PER_SESSION open in one
 * session and MAX_STREAMS_PER_USER for one user, whichever API node serves them. A new stream
 * always opens; the streams it pushes over a limit close, the longest open first, wherever they
 * are.
 *
 * Every node keeps its own streams in rosters of its own, so the limits hold on each node even
 * when Redis is away. In scale-out mode the same streams are also enrolled in the cluster's
 * shared rosters (Redis); a stream pushed out there that lives on another node is closed by that
 * node when it hears the stream's id on CLOSE_CHANNEL. A node that stops without closing its
 * streams stops renewing them, and after STREAM_LEASE_MS they no longer count.
 */
import type { Cluster, Rosters } from '../../cluster/cluster.js';
import { createLocalRosters } from '../../cluster/cluster.js';

/** Live streams one session may hold open (a tab holds one). */
export const MAX_STREAMS_PER_SESSION = 5;
/** Live streams one user may hold open over all their sessions. */
export const MAX_STREAMS_PER_USER = 10;
/** A stream counts this long after its node last renewed it (every third of it). */
export const STREAM_LEASE_MS = 60_000;
/** Where a node asks the others to close streams pushed out of the shared rosters. */
export const CLOSE_CHANNEL = 'events:close-streams';

export interface StreamLimits {
  perSession: number;
  perUser: number;
}

/** An open stream as the limits see it. */
export interface LimitedStream {
  /** Unique over the cluster (the node id and a counter). */
  id: string;
  sessionIdHash: string;
  userId: number;
  /** Ends the stream because a newer one took its place. */
  close(): void;
}

export interface StreamSlotsOptions {
  cluster: Cluster;
  limits?: StreamLimits;
  leaseMs?: number;
  /** A failure to reach the shared rosters (the node's own limits still hold). */
  onError?: (error: unknown) => void;
}

const rosterKeys = (stream: Pick<LimitedStream, 'sessionIdHash' | 'userId'>) =>
  [`live-streams:session:${stream.sessionIdHash}`, `live-streams:user:${stream.userId}`] as const;

function isCloseMessage(message: unknown): message is { streams: string[] } {
  const streams = (message as { streams?: unknown } | null)?.streams;
  return Array.isArray(streams) && streams.every((id) => typeof id === 'string');
}

/** The slots of one API node's live streams (see the file header). */
export class StreamSlots {
  private readonly open = new Map<string, LimitedStream>();
  private readonly local: Rosters = createLocalRosters();
  private readonly limits: StreamLimits;
  private readonly leaseMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly renewal: NodeJS.Timeout | undefined;
  /** Releases under way, so stopping waits for them before the cluster closes. */
  private readonly releasing = new Set<Promise<void>>();

  private constructor(private readonly options: StreamSlotsOptions) {
    this.limits = options.limits ?? {
      perSession: MAX_STREAMS_PER_SESSION,
      perUser: MAX_STREAMS_PER_USER,
    };
    this.leaseMs = options.leaseMs ?? STREAM_LEASE_MS;
    this.onError = options.onError ?? (() => {});
    if (options.cluster.shared) {
      this.renewal = setInterval(() => void this.renew(), Math.max(50, this.leaseMs / 3));
      this.renewal.unref();
    }
  }

  static async create(options: StreamSlotsOptions): Promise<StreamSlots> {
    const slots = new StreamSlots(options);
    if (options.cluster.shared) {
      await options.cluster.subscribe(CLOSE_CHANNEL, (message) => {
        if (isCloseMessage(message)) for (const id of message.streams) slots.closeHere(id);
      });
    }
    return slots;
  }

  /**
   * Counts a new stream in its session's and its user's slots, and closes the streams that this
   * pushes over a limit, the longest open first, on this node or any other.
   */
  async admit(stream: LimitedStream): Promise<void> {
    this.open.set(stream.id, stream);
    // This node's own rosters hold its streams for as long as they are open.
    const pushedOut = await this.enroll(this.local, stream, Number.POSITIVE_INFINITY);
    for (const id of pushedOut) this.closeHere(id);
    const shared = this.shared();
    if (!shared) return;
    try {
      const pushedOutShared = await this.enroll(shared, stream, this.leaseMs);
      const elsewhere = pushedOutShared.filter((id) => !this.closeHere(id));
      if (elsewhere.length > 0) await shared.publish(CLOSE_CHANNEL, { streams: elsewhere });
    } catch (error) {
      this.onError(error);
    }
  }

  /** Frees the slots of a stream that ended. */
  release(stream: Pick<LimitedStream, 'id' | 'sessionIdHash' | 'userId'>): Promise<void> {
    const releasing = this.withdraw(stream).finally(() => this.releasing.delete(releasing));
    this.releasing.add(releasing);
    return releasing;
  }

  /** Stops renewing and waits for the releases under way; the streams are ended by the route. */
  async stop(): Promise<void> {
    clearInterval(this.renewal);
    await Promise.all(this.releasing);
  }

  private async withdraw(stream: Pick<LimitedStream, 'id' | 'sessionIdHash' | 'userId'>) {
    this.open.delete(stream.id);
    const keys = rosterKeys(stream);
    for (const key of keys) await this.local.withdraw(key, stream.id);
    const shared = this.shared();
    if (!shared) return;
    try {
      for (const key of keys) await shared.withdraw(key, stream.id);
    } catch (error) {
      this.onError(error);
    }
  }

  /** The cluster when its rosters are shared with other nodes (it is not the local one). */
  private shared(): Cluster | null {
    return this.options.cluster.shared ? this.options.cluster : null;
  }

  /**
   * Enrolls the stream in its session's roster, then in its user's: what the session pushes out
   * leaves the user's roster first, so one new stream never closes more than it must.
   */
  private async enroll(rosters: Rosters, stream: LimitedStream, ttlMs: number): Promise<string[]> {
    const [sessionKey, userKey] = rosterKeys(stream);
    const { perSession, perUser } = this.limits;
    const fromSession = await rosters.enroll(sessionKey, stream.id, perSession, ttlMs);
    for (const id of fromSession) await rosters.withdraw(userKey, id);
    const fromUser = await rosters.enroll(userKey, stream.id, perUser, ttlMs);
    return [...fromSession, ...fromUser];
  }

  /** Closes the stream when it is open on this node; answers whether it was. */
  private closeHere(id: string): boolean {
    const stream = this.open.get(id);
    if (!stream) return false;
    stream.close();
    return true;
  }

  /** Keeps this node's open streams counted in the shared rosters. */
  private async renew(): Promise<void> {
    const shared = this.shared();
    if (!shared || this.open.size === 0) return;
    const byKey = new Map<string, string[]>();
    for (const stream of this.open.values()) {
      for (const key of rosterKeys(stream)) {
        const ids = byKey.get(key) ?? [];
        ids.push(stream.id);
        byKey.set(key, ids);
      }
    }
    try {
      for (const [key, ids] of byKey) await shared.keep(key, ids, this.leaseMs);
    } catch (error) {
      this.onError(error);
    }
  }
}
