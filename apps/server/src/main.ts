import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createAlertPass, createPageAlerts, type PageAlerts } from './alerts/evaluation.js';
import { buildApp } from './app.js';
import { createLocalCluster, type Cluster } from './cluster/cluster.js';
import { relayEvents } from './cluster/event-relay.js';
import { ClusterRefusedError, joinCluster, type NodeMembership } from './modules/system/nodes.js';
import { Collector } from './collector/collector.js';
import { logHandleStatus } from './collector/status-log.js';
import type { Logger } from './lib/logger.js';
import { createTweetSource } from './sources/index.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createDb, idleTimeoutForLease, type Db } from './db/index.js';
import { migrateToLatest } from './db/migrate.js';
import type { BullMqJobQueue } from './jobs/bullmq-job-queue.js';
import { createMetrics, type Metrics } from './lib/metrics.js';
import { createTokenCipher } from './lib/token-cipher.js';
import { hashCostOf, meetsOwaspMinimum } from './modules/auth/passwords.js';
import { createSessionCache, type SessionCache } from './modules/auth/session-cache.js';
import { retentionPolicy } from './modules/retention/retention-policy.js';
import { RetentionJob } from './modules/retention/retention-job.js';
import { createXUsageMeter, type XUsageMeter } from './modules/x-usage/x-usage.service.js';
import { ensureBootstrapInvitation } from './modules/invitations/invitations.service.js';
import { bindWebhookSecrets } from './modules/webhooks/webhooks.service.js';
import { startReadyBots } from './modules/settings/settings.repository.js';
import {
  clusterDmChannelStore,
  createNotifyChannels,
  type NotifyChannels,
} from './notify/channels.js';
import type { CollectorEvents } from './domain/collector-events.js';
import {
  DEFAULT_STOP_GRACE_MS,
  deliveredChannels,
  DeliveryWorker,
} from './notify/delivery-worker.js';
import { TelegramUpdatesPoller } from './modules/settings/telegram-updates.js';

const SHUTDOWN_GRACE_MS = 10_000;

function printFirstStartBanner(url: string, code: string): void {
  const lines = [
    'Welcome to Perch! No account exists yet.',
    '',
    `1. Open ${url}/register`,
    `2. Use this invitation code: ${code}`,
    '',
    'That first account becomes the super admin.',
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const border = `+${'-'.repeat(width + 2)}+`;
  console.log(
    ['', border, ...lines.map((line) => `| ${line.padEnd(width)} |`), border, ''].join('\n'),
  );
}

/** What this process runs, for the shutdown to stop in order. */
interface Running {
  config: Config;
  db: Db;
  cluster: Cluster;
  membership: NodeMembership;
  app: FastifyInstance;
  collector: Collector;
  sessionCache?: SessionCache;
  background: BackgroundWork;
}

/** The background work of a working process (PERCH_ROLE all or worker): none on an API node. */
interface BackgroundWork {
  worker?: DeliveryWorker;
  retention?: RetentionJob;
  updates?: TelegramUpdatesPoller;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const db = createDb(config, {
    checkpointer: true,
    idleInTransactionTimeoutMs: idleTimeoutForLease(config.COLLECTOR_LEASE_SECONDS),
  });
  await migrateToLatest(db);
  // Webhook secrets sealed before each was bound to its endpoint are sealed for it (once).
  await bindWebhookSecrets(
    db,
    createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR }),
  );
  // Forwarding runs for every user whose X account and a channel are connected.
  await startReadyBots(db.db, new Date().toISOString());
  // Redis and BullMQ are loaded only in scale-out mode: a single process never pays for them.
  const cluster: Cluster = config.REDIS_URL
    ? await (
        await import('./cluster/redis-cluster.js')
      ).createRedisCluster({ url: config.REDIS_URL, prefix: config.REDIS_PREFIX })
    : createLocalCluster();
  const membership = await joinClusterOrExit(db, cluster, config.PERCH_ROLE);
  const running = await assemble({ config, db, cluster, membership });
  shutDownOnSignals(running);
  const origin = await listen(running.app, config);
  if (config.PERCH_ROLE !== 'api') await startBackgroundWork(running);
  if (config.PERCH_ROLE !== 'worker') await welcome(running, `${origin}/dashboard`);
  else {
    console.log(
      `Perch worker ${cluster.nodeId} is running (health: ${origin}/api/v1/health, metrics: ${origin}/metrics)`,
    );
  }
}

/** The process's parts, made and wired together; nothing is started yet. */
async function assemble(
  base: Pick<Running, 'config' | 'db' | 'cluster' | 'membership'>,
): Promise<Running> {
  const { config, db, cluster, membership } = base;
  const role = config.PERCH_ROLE;
  const works = role !== 'api';
  const metrics = createMetrics();
  const sessionCache =
    role !== 'worker'
      ? await createSessionCache({
          cluster,
          onError: (error) => console.warn(`Session cache: ${error.message}`),
        })
      : undefined;
  // Only the x-api source is billed: the meter counts what X charges and holds the spend limit.
  const xUsage = config.TWEET_SOURCE === 'x-api' ? createXUsageMeter(db, config) : undefined;
  const queues = config.REDIS_URL ? await import('./jobs/bullmq-job-queue.js') : undefined;
  // Each delivering process keeps to its share of Telegram's and Discord's overall limits, and
  // a user's Discord DM channel, once opened by any of them, is known to all.
  const channels = createNotifyChannels(config, {
    share: () => membership.workers(),
    dmChannelStore: cluster.shared ? clusterDmChannelStore(cluster) : undefined,
  });
  const collecting = createCollector({
    ...base,
    metrics,
    xUsage,
    Queue: queues?.BullMqJobQueue,
    // Pages of new posts meet their handle's alert rules as they are stored.
    alerts: createPageAlerts(db, () => deliveredChannels(channels)),
  });
  const { collector } = collecting;
  // The worker logs through the app's logger, so it is made after the app; until then a
  // wake-up has nothing to wake.
  let wakeWorker = () => {};
  const notify = { channels, wakeWorker: () => wakeWorker() };
  const app = await buildApp({ ...base, collector, xUsage, metrics, sessionCache, role, notify });
  xUsage?.useLogger(app.log.child({ module: 'x-usage' }));
  const collectorLog = app.log.child({ module: 'collector' });
  collector.useLogger(collectorLog);
  collecting.jobQueue()?.useLogger(app.log.child({ module: 'job-queue' }));
  // Events of the collectors reach the browsers of every API node (and wake every worker).
  if (cluster.shared) await relayCollectorEvents(cluster, collector, works, app.log);
  const background: BackgroundWork = works
    ? createBackgroundWork({
        ...base,
        channels,
        app,
        wakeWorker: notify.wakeWorker,
        events: collector.events,
      })
    : {};
  const { worker } = background;
  if (worker) wakeWorker = () => worker.wake();
  // New tweets are fanned out at once rather than at the worker's next tick.
  collector.events.on('tweet.new', () => wakeWorker());
  logHandleStatus(collector.events, collectorLog);
  app.log.info(
    {
      database: db.location,
      source: config.TWEET_SOURCE,
      role,
      node: cluster.nodeId,
      redis: cluster.shared,
    },
    'database ready',
  );
  const hashCost = hashCostOf(config);
  if (!meetsOwaspMinimum(hashCost)) {
    app.log.warn(
      hashCost,
      "password hashes cost less than OWASP's minimum for argon2id (19 MiB and 2 passes, or an equivalent): fit for tests, not for real accounts",
    );
  }
  return { ...base, app, collector, sessionCache, background };
}

/** The configuration from the environment; a bad one is listed and the process exits. */
function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** Registers this process as a node; a cluster that refuses it ends the process. */
async function joinClusterOrExit(
  db: Db,
  cluster: Cluster,
  role: Config['PERCH_ROLE'],
): Promise<NodeMembership> {
  try {
    return await joinCluster({
      db,
      nodeId: cluster.nodeId,
      role,
      shared: cluster.shared,
      bus: cluster,
    });
  } catch (error) {
    if (error instanceof ClusterRefusedError) {
      console.error(`Perch will not start: ${error.message}`);
      await cluster.close();
      await db.close();
      process.exit(1);
    }
    throw error;
  }
}

/**
 * The collector over the configured source. Made before the app's logger exists: it is handed
 * that logger later, and so is its BullMQ queue (scale-out), which `jobQueue` gives once made.
 */
function createCollector(deps: {
  config: Config;
  db: Db;
  cluster: Cluster;
  membership: NodeMembership;
  metrics: Metrics;
  xUsage?: XUsageMeter;
  /** The BullMQ queue (loaded in scale-out mode only); without it jobs stay in this process. */
  Queue?: typeof BullMqJobQueue;
  alerts: PageAlerts;
}): { collector: Collector; jobQueue: () => BullMqJobQueue | undefined } {
  const { config, db, cluster, membership, metrics, xUsage, Queue, alerts } = deps;
  const redisUrl = config.REDIS_URL;
  // A worker's hold on a handle: its lease in the database and its BullMQ job's lock.
  const leaseMs = config.COLLECTOR_LEASE_SECONDS * 1000;
  let jobQueue: BullMqJobQueue | undefined;
  const collector = new Collector({
    db,
    source: createTweetSource(config, {
      onBilledReads: xUsage && ((reads) => xUsage.record(reads)),
      xRequestMetrics: metrics,
      db: db.db,
    }),
    monitorIntervalSeconds: config.MONITOR_INTERVAL_SECONDS,
    concurrency: config.COLLECTOR_CONCURRENCY,
    budget: xUsage,
    profileRefreshMinutes: config.PROFILE_REFRESH_MINUTES,
    metricRefresh: config.X_METRIC_REFRESH,
    nodeId: cluster.nodeId,
    leaseMs,
    alerts,
    jobMetrics: metrics,
    share: () => membership.workers(),
    // Scale-out: jobs go through BullMQ, so any worker takes them and an API node can queue.
    createQueue:
      redisUrl && Queue
        ? (handler) => {
            jobQueue = new Queue({
              handler,
              connection: redisUrl,
              prefix: config.REDIS_PREFIX,
              concurrency: config.COLLECTOR_CONCURRENCY,
              nodeId: cluster.nodeId,
              lockDurationMs: leaseMs,
            });
            return jobQueue;
          }
        : undefined,
  });
  return { collector, jobQueue: () => jobQueue };
}

/** Sends the collector's events to every node, and takes theirs (a worker only receives). */
async function relayCollectorEvents(
  cluster: Cluster,
  collector: Collector,
  publish: boolean,
  appLog: FastifyInstance['log'],
): Promise<void> {
  const clusterLog: Logger = appLog.child({ module: 'cluster' });
  await relayEvents({
    cluster,
    events: collector.events,
    publish,
    receive: true,
    onError: (error) => clusterLog.warn({ err: error }, 'could not relay an event'),
  });
}

/** The delivery worker, the retention clean-up and the Telegram updates poller. */
function createBackgroundWork(deps: {
  config: Config;
  db: Db;
  cluster: Cluster;
  channels: NotifyChannels;
  app: FastifyInstance;
  wakeWorker: () => void;
  /** Where the alert pass announces new firings (to the browsers of every API node). */
  events: CollectorEvents;
}): BackgroundWork {
  const { config, db, cluster, channels, app, wakeWorker, events } = deps;
  const worker = new DeliveryWorker({
    db,
    channels,
    concurrency: config.NOTIFY_CONCURRENCY,
    maxAgeMs: config.NOTIFY_MAX_AGE_HOURS * 3_600_000,
    digestAfter: config.NOTIFY_DIGEST_AFTER,
    leaseMs: config.NOTIFY_LEASE_SECONDS * 1000,
    workerId: cluster.nodeId,
    log: app.log.child({ module: 'notify' }),
    evaluateAlerts: createAlertPass(db, {
      log: app.log.child({ module: 'alerts' }),
      onFired: (firings) => {
        for (const firing of firings) {
          events.emit('alert.fired', {
            handleId: firing.handleId,
            userId: firing.userId,
            firingId: firing.id,
          });
        }
      },
    }),
  });
  // Old rows of the log-like tables go once a day (RETENTION_*_DAYS), in one working process.
  const retention = new RetentionJob({
    db,
    policy: retentionPolicy(config),
    cluster,
    log: app.log.child({ module: 'retention' }),
  });
  const telegramToken = config.TELEGRAM_BOT_TOKEN;
  const updates = config.TELEGRAM_POLL_UPDATES
    ? new TelegramUpdatesPoller({
        db,
        channels,
        wakeWorker,
        log: app.log.child({ module: 'telegram-updates' }),
        // One poller per bot token across the nodes.
        lock:
          cluster.shared && telegramToken
            ? { cluster, name: `telegram-updates:${tokenDigest(telegramToken)}` }
            : undefined,
      })
    : undefined;
  return { worker, retention, updates };
}

/** A short digest of a bot token: names its lock without revealing it. */
function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

/** Starts collecting, delivering, polling Telegram and the clean-up. */
async function startBackgroundWork({ collector, background }: Running): Promise<void> {
  await collector.start();
  await background.worker?.start();
  background.updates?.start();
  background.retention?.start();
}

/** Listens where the config says; returns the origin it serves at. */
async function listen(app: FastifyInstance, config: Config): Promise<string> {
  await app.listen({ host: config.HOST, port: config.PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  return `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
}

/** Tells the operator where to sign in: the first start prints an invitation for the first account. */
async function welcome({ config, db }: Running, url: string): Promise<void> {
  const invitation = await ensureBootstrapInvitation(
    db,
    createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR }),
  );
  if (invitation) printFirstStartBanner(url, invitation.code);
  else console.log(`Sign in at ${url}/login (more accounts: npm run cli -- invite create)`);
  console.log(
    `Perch is running at ${url} (tweet source: ${config.TWEET_SOURCE}${config.PERCH_ROLE === 'api' ? ', API only' : ''})`,
  );
}

/** Shuts down gracefully on SIGTERM and SIGINT. */
function shutDownOnSignals(running: Running): void {
  let closing = false;
  const onSignal = (signal: string) => {
    if (closing) return;
    closing = true;
    void shutdown(running, signal);
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
}

/**
 * Finishes the requests in flight, then the background work, then leaves the cluster and
 * closes the database; exits 0, or 1 when that fails or takes too long.
 */
async function shutdown(running: Running, signal: string): Promise<void> {
  const { app, collector, background } = running;
  app.log.info({ signal }, 'shutting down: finishing in-flight requests');
  // Requests in flight, then the delivery worker's grace for its sends in flight.
  const force = setTimeout(() => {
    app.log.error('shutdown took too long; exiting');
    process.exit(1);
  }, SHUTDOWN_GRACE_MS + DEFAULT_STOP_GRACE_MS);
  force.unref();
  // close() stops accepting and waits for requests in flight; a keep-alive connection whose
  // request finishes afterwards would hold it open until its timeout, so sweep those too.
  const sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
  try {
    await app.close();
    clearInterval(sweeper);
    // Running jobs save the page in hand and return; unfinished work resumes at next start.
    // Sends in flight finish (within the worker's grace) and are recorded; pending
    // deliveries wait in the outbox.
    await Promise.all([
      collector.stop(),
      background.updates?.stop(),
      background.worker?.stop(),
      background.retention?.stop(),
    ]);
    await running.membership.leave();
    await running.sessionCache?.close();
    await running.cluster.close();
    await running.db.close();
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error('Perch failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
