/**
 * The running processes of one database. Every process writes a row and keeps it fresh; a
 * start without REDIS_URL refuses when another live process works on the same database (both
 * would collect every handle and send every notification), and so does a start with Redis
 * beside a process without it. Rows of processes that are gone are cleared at start: on this
 * host when their pid no longer runs, anywhere when not seen for STALE_AFTER_MS. Their handle
 * leases go with them, so a restart after a crash resumes at once.
 */
import os from 'node:os';
import type { Db } from '../../db/index.js';
import type { Cluster } from '../../cluster/cluster.js';
import { releaseHandleLeasesOfNode } from '../handles/handles.repository.js';
import { deleteNode, insertNode, listNodes, touchNode, type NodeRow } from './nodes.repository.js';

/** How often a node says it is alive. */
export const HEARTBEAT_MS = 10_000;
/** A node not seen for this long counts as gone (three missed heartbeats). */
export const LIVE_WITHIN_MS = 3 * HEARTBEAT_MS;
/** Its row is removed after this long. */
const STALE_AFTER_MS = 5 * 60_000;

export class ClusterRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterRefusedError';
  }
}

export interface NodeMembership {
  /** Other live nodes, read now. */
  peers(): Promise<NodeRow[]>;
  /**
   * Live nodes that collect and deliver (role all or worker), this one included when it does,
   * as of the last heartbeat; at least 1. Each keeps to this share of the shared limits.
   */
  workers(): number;
  /** Stops the heartbeat and removes this node's row. */
  leave(): Promise<void>;
}

export interface JoinOptions {
  db: Db;
  nodeId: string;
  role: string;
  /** Redis is configured: the node shares jobs, events and limits with the others. */
  shared: boolean;
  now?: () => Date;
  /** Whether a process of this host still runs (tests replace it). */
  isRunning?: (pid: number) => boolean;
  log?: { warn: (object: object, message: string) => void };
  /**
   * Where joins and leaves are announced, so every node recounts the workers at once rather
   * than at its next heartbeat: until then a node that started first would keep to a share
   * sized for fewer workers, and the cluster would overshoot the services' overall limits.
   */
  bus?: Pick<Cluster, 'publish' | 'subscribe'>;
}

/** The cluster channel joins and leaves are announced on. */
export const NODES_CHANNEL = 'nodes';

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const describe = (node: NodeRow, now: number) =>
  `${node.role} process ${node.id} (pid ${node.pid} on ${node.host}, seen ${Math.round(
    (now - Date.parse(node.seen_at)) / 1000,
  )} s ago)`;

/** Registers this process, or throws ClusterRefusedError when it would double the work. */
export async function joinCluster(options: JoinOptions): Promise<NodeMembership> {
  const now = options.now ?? (() => new Date());
  const host = os.hostname();
  const at = now().getTime();
  const live = await clearGoneNodes(options, host, at);
  refuseDoubleWork(options, live, at);
  return startMembership(options, now, host);
}

/**
 * Removes the rows of processes that are gone (on this host when their pid no longer runs,
 * anywhere when stale) and frees their handles; returns the live ones.
 */
async function clearGoneNodes(options: JoinOptions, host: string, at: number): Promise<NodeRow[]> {
  const { db } = options;
  const isRunning = options.isRunning ?? pidRuns;
  const live: NodeRow[] = [];
  for (const node of await listNodes(db.db)) {
    const seen = Date.parse(node.seen_at);
    const gone =
      (node.host === host && node.pid !== process.pid && !isRunning(node.pid)) ||
      at - seen > STALE_AFTER_MS;
    if (gone) {
      await deleteNode(db.db, node.id);
      const released = await releaseHandleLeasesOfNode(db.db, node.id);
      if (released > 0) {
        options.log?.warn(
          { node: node.id, handles: released },
          'freed the handles of a gone process',
        );
      }
      continue;
    }
    if (at - seen <= LIVE_WITHIN_MS) live.push(node);
  }
  return live;
}

/** Throws when this start and a live process would both do the same work. */
function refuseDoubleWork(options: JoinOptions, live: NodeRow[], at: number): void {
  if (!options.shared && live.length > 0) {
    throw new ClusterRefusedError(
      [
        `Another Perch process works on this database: ${describe(live[0]!, at)}.`,
        'Two processes without Redis would both collect every handle and send every notification.',
        'Stop the other process, or run several with REDIS_URL set (scale-out mode, see docs/deployment.md).',
      ].join('\n'),
    );
  }
  const unshared = live.find((node) => !node.shared);
  if (options.shared && unshared) {
    throw new ClusterRefusedError(
      [
        `A Perch process without REDIS_URL works on this database: ${describe(unshared, at)}.`,
        'It would do the same work as this one. Stop it, or give it REDIS_URL too.',
      ].join('\n'),
    );
  }
}

/** Writes this node's row, counts the workers, and keeps both fresh until `leave`. */
async function startMembership(
  options: JoinOptions,
  now: () => Date,
  host: string,
): Promise<NodeMembership> {
  const { db, nodeId } = options;
  const register = () =>
    insertNode(db.db, {
      id: nodeId,
      role: options.role,
      host,
      pid: process.pid,
      shared: options.shared,
      now: now().toISOString(),
    });
  await register();
  const workers = await workerCount(options, now);
  const announce = await joinBus(
    options,
    () =>
      void workers
        .count()
        .catch((error: unknown) =>
          options.log?.warn({ err: error }, 'could not count the workers'),
        ),
  );
  const timer = setInterval(() => {
    touchNode(db.db, nodeId, now().toISOString())
      .then(async (present) => {
        // Removed as stale (this process was suspended for minutes): say so again.
        if (!present) await register();
        await workers.count();
      })
      .catch((error: unknown) => options.log?.warn({ err: error }, 'node heartbeat failed'));
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    workers: workers.current,
    async peers() {
      const since = now().getTime() - LIVE_WITHIN_MS;
      return (await listNodes(db.db)).filter(
        (node) => node.id !== nodeId && Date.parse(node.seen_at) >= since,
      );
    },
    async leave() {
      clearInterval(timer);
      await deleteNode(db.db, nodeId);
      await announce('left');
    },
  };
}

/** The live nodes that collect and deliver, this one included when it does: counted now. */
async function workerCount(options: JoinOptions, now: () => Date) {
  const works = (role: string) => role === 'all' || role === 'worker';
  let workers = 1;
  const count = async () => {
    const since = now().getTime() - LIVE_WITHIN_MS;
    const others = (await listNodes(options.db.db)).filter(
      (node) => node.id !== options.nodeId && works(node.role) && Date.parse(node.seen_at) >= since,
    );
    workers = Math.max(1, others.length + (works(options.role) ? 1 : 0));
  };
  await count();
  return { current: () => workers, count };
}

/**
 * Recounts when another node joins or leaves, and announces this one's join; returns how to
 * announce its leave. Without a bus, nothing is sent.
 */
async function joinBus(options: JoinOptions, recount: () => void) {
  const { bus, nodeId } = options;
  const announce = (what: 'joined' | 'left') =>
    bus
      ?.publish(NODES_CHANNEL, { [what]: nodeId })
      .catch((error: unknown) => options.log?.warn({ err: error }, 'could not announce the node'));
  if (bus) {
    await bus.subscribe(NODES_CHANNEL, (message) => {
      const from = (message as { joined?: string; left?: string } | null) ?? {};
      if (from.joined !== nodeId && from.left !== nodeId) recount();
    });
    await announce('joined');
  }
  return announce;
}
