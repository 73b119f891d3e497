import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { MESSAGES } from '@perch/shared';
import { createLocalCluster, type Cluster } from '../../cluster/cluster.js';
import type { CollectorEventMap, CollectorEvents } from '../../domain/collector-events.js';
import type { Db } from '../../db/index.js';
import { unauthorized } from '../../lib/errors.js';
import { currentAuth, requireAuth } from '../auth/auth.plugin.js';
import { followedHandles } from './events.service.js';
import { StreamSlots, type StreamLimits } from './stream-limits.js';

export interface EventsRoutesOptions {
  db: Db;
  events: CollectorEvents;
  /** Interval of the `: keep-alive` comment (default 15 s). */
  keepAliveMs?: number;
  /** How long a stream trusts its list of followed handles before reading it again (default 5 s). */
  followsMaxAgeMs?: number;
  /**
   * Scale-out: the cluster whose shared rosters bound the streams of a session and a user over
   * every API node. Without one, the limits hold in this process.
   */
  cluster?: Cluster;
  /** Streams per session and per user (default 5 and 10; see stream-limits.ts). */
  streamLimits?: StreamLimits;
}

type EventName = keyof CollectorEventMap;
type EventPayload = CollectorEventMap[EventName][0];

/** What the browser's EventSource waits before reconnecting. */
export const RETRY_MS = 5000;
const DEFAULT_KEEP_ALIVE_MS = 15_000;
const DEFAULT_FOLLOWS_MAX_AGE_MS = 5000;
/** A client that stops reading is dropped once this much is queued for it (it reconnects). */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const EVENT_NAMES = [
  'handle.progress',
  'handle.status',
  'tweet.new',
  'alert.fired',
] as const satisfies readonly EventName[];

/**
 * Sent to a stream just before it is closed because newer ones of the same session or user took
 * its place: the web client closes its EventSource then, rather than reconnecting and pushing
 * out another tab's stream in turn.
 */
export const STREAM_REPLACED_FRAME = 'event: stream.replaced\ndata: {}\n\n';

function frame(name: EventName, payload: EventPayload): string {
  // JSON.stringify without indentation never writes a newline, so one data line is enough.
  return `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** One open stream: the events of the handles its user follows at the time of each event. */
class LiveStream {
  readonly body = new PassThrough();
  private follows: Set<number>;
  private loadedAt = Date.now();
  private queue: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly options: {
      db: Db;
      sessionIdHash: string;
      /** The signed-in user: an alert is heard by its rule's owner only. */
      userId: number;
      follows: Set<number>;
      keepAliveMs: number;
      followsMaxAgeMs: number;
      onError: (error: unknown) => void;
    },
  ) {
    this.follows = options.follows;
    this.write(`retry: ${RETRY_MS}\n\n`);
    this.timer = setInterval(() => {
      this.write(': keep-alive\n\n');
      // Also notices a signed-out or revoked session while no event arrives.
      if (this.stale()) this.enqueue(() => this.reload());
    }, options.keepAliveMs);
    this.body.once('close', () => clearInterval(this.timer));
  }

  get open(): boolean {
    return !this.body.destroyed && !this.body.writableEnded;
  }

  /**
   * Sends the event when the user follows its handle (an alert: when the user owns its rule);
   * events keep their order.
   */
  deliver(name: EventName, payload: EventPayload): void {
    if (name === 'alert.fired') {
      if ('userId' in payload && payload.userId === this.options.userId) {
        this.enqueue(async () => this.write(frame(name, payload)));
      }
      return;
    }
    this.enqueue(async () => {
      // A status change of a handle not in the list may be one the user just added.
      if (this.stale() || (name === 'handle.status' && !this.follows.has(payload.handleId))) {
        await this.reload();
      }
      if (this.follows.has(payload.handleId)) this.write(frame(name, payload));
    });
  }

  /** Ends the stream (the client sees the end and reconnects after RETRY_MS). */
  end(): void {
    clearInterval(this.timer);
    if (this.open) this.body.end();
  }

  /** Ends the stream for good: newer streams took its place (the client does not come back). */
  replace(): void {
    this.write(STREAM_REPLACED_FRAME);
    this.end();
  }

  private stale(): boolean {
    return Date.now() - this.loadedAt >= this.options.followsMaxAgeMs;
  }

  private enqueue(work: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (!this.open) return;
      try {
        await work();
      } catch (error) {
        this.options.onError(error);
      }
    });
  }

  private async reload(): Promise<void> {
    const { db, sessionIdHash } = this.options;
    const follows = await followedHandles(db, sessionIdHash);
    this.loadedAt = Date.now();
    if (follows === null) {
      // Signed out or revoked elsewhere: the reconnect gets a 401 and EventSource gives up.
      this.end();
      return;
    }
    this.follows = follows;
  }

  private write(chunk: string): void {
    if (!this.open) return;
    this.body.write(chunk);
    if (this.body.writableLength > MAX_BUFFERED_BYTES) this.body.destroy();
  }
}

/**
 * Live updates as Server-Sent Events: the collector's `handle.progress`,
 * `handle.status` and `tweet.new` for the handles the signed-in user follows, and
 * `alert.fired` for the user's own alert rules. Every open stream
 * ends when the app closes, so shutdown never waits for a client.
 */
export const eventsRoutes: FastifyPluginAsyncZod<EventsRoutesOptions> = async (
  app,
  {
    db,
    events,
    keepAliveMs = DEFAULT_KEEP_ALIVE_MS,
    followsMaxAgeMs = DEFAULT_FOLLOWS_MAX_AGE_MS,
    cluster = createLocalCluster(),
    streamLimits,
  },
) => {
  const streams = new Set<LiveStream>();
  const slots = await StreamSlots.create({
    cluster,
    limits: streamLimits,
    onError: (error) => app.log.warn({ err: error }, 'live events: shared stream limits failed'),
  });
  let streamSequence = 0;

  // One listener per event for all streams (not one per stream: no max-listener warnings).
  const listeners = EVENT_NAMES.map((name) => {
    const listener = (payload: EventPayload) => {
      for (const stream of streams) stream.deliver(name, payload);
    };
    events.on(name, listener);
    return () => events.off(name, listener);
  });

  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end();
  });
  app.addHook('onClose', async () => {
    for (const remove of listeners) remove();
    await slots.stop();
  });

  app.get(
    '/events',
    {
      exposeHeadRoute: false,
      preHandler: requireAuth,
      schema: {
        tags: ['events'],
        description:
          'Server-Sent Events (text/event-stream): handle.progress, handle.status and tweet.new ' +
          'for the handles the signed-in user follows, alert.fired for their own alert rules, ' +
          'with a keep-alive comment every 15 s. ' +
          'At most 5 streams per session and 10 per user: a new one closes the oldest beyond ' +
          'that, which receives stream.replaced first. 401 with the error envelope when signed out.',
      },
    },
    async (request, reply) => {
      const { sessionIdHash } = currentAuth(request);
      const follows = await followedHandles(db, sessionIdHash);
      if (follows === null) throw unauthorized(MESSAGES.notAuthenticated);

      const stream = new LiveStream({
        db,
        sessionIdHash,
        userId: currentAuth(request).user.id,
        follows,
        keepAliveMs,
        followsMaxAgeMs,
        onError: (error) => request.log.error({ err: error }, 'live events: follow check failed'),
      });
      streams.add(stream);
      const slot = {
        id: `${cluster.nodeId}:${++streamSequence}`,
        sessionIdHash,
        userId: currentAuth(request).user.id,
        close: () => stream.replace(),
      };
      // Fastify destroys the body when the client goes away.
      stream.body.once('close', () => {
        streams.delete(stream);
        void slots.release(slot);
      });
      await slots.admit(slot);

      // Sent as a stream so the onRequest headers and onSend cookies still apply.
      return reply
        .code(200)
        .headers({
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          'x-accel-buffering': 'no',
          // The socket serves only this stream; closing it with the stream lets shutdown finish.
          connection: 'close',
        })
        .send(stream.body);
    },
  );
};
