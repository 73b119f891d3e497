import { createHash } from 'node:crypto';
import { buildApp } from './app.js';
import { createLocalCluster, createRedisCluster, type Cluster } from './cluster/cluster.js';
import { relayEvents } from './cluster/event-relay.js';
import { ClusterRefusedError, joinCluster } from './modules/system/nodes.js';
import { Collector } from './collector/collector.js';
import { logHandleStatus } from './collector/status-log.js';
import { createTweetSource } from './sources/index.js';
import { ConfigError, loadConfig } from './config.js';
import { createDb } from './db/index.js';
import { migrateToLatest } from './db/migrate.js';
import { BullMqJobQueue } from './jobs/bullmq-job-queue.js';
import { createMetrics } from './lib/metrics.js';
import { createTokenCipher } from './lib/token-cipher.js';
import { createSessionCache } from './modules/auth/session-cache.js';
import { retentionPolicy } from './modules/retention/retention-policy.js';
import { RetentionJob } from './modules/retention/retention-job.js';
import { createXUsageMeter } from './modules/x-usage/x-usage.service.js';
import { ensureBootstrapInvitation } from './modules/invitations/invitations.service.js';
import { startReadyBots } from './modules/settings/settings.repository.js';
import { clusterDmChannelStore, createNotifyChannels } from './notify/channels.js';
import { DEFAULT_STOP_GRACE_MS, DeliveryWorker } from './notify/delivery-worker.js';
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

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const db = createDb(config);
  await migrateToLatest(db);
  // Forwarding runs for every user whose X account and a channel are connected.
  await startReadyBots(db.db, new Date().toISOString());
  const role = config.PERCH_ROLE;
  const works = role !== 'api';
  const serves = role !== 'worker';
  const cluster: Cluster = config.REDIS_URL
    ? await createRedisCluster({ url: config.REDIS_URL, prefix: config.REDIS_PREFIX })
    : createLocalCluster();
  let membership;
  try {
    membership = await joinCluster({
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
  const metrics = createMetrics();
  const sessionCache = serves
    ? await createSessionCache({
        cluster,
        onError: (error) => console.warn(`Session cache: ${error.message}`),
      })
    : undefined;
  // Only the x-api source is billed: the meter counts what X charges and holds the spend limit.
  const xUsage = config.TWEET_SOURCE === 'x-api' ? createXUsageMeter(db, config) : undefined;
  const redisUrl = config.REDIS_URL;
  // Made with the collector, before the app's logger exists: it is handed that logger later.
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
    nodeId: cluster.nodeId,
    jobMetrics: metrics,
    share: () => membership.workers(),
    // Scale-out: jobs go through BullMQ, so any worker takes them and an API node can queue.
    createQueue: redisUrl
      ? (handler) => {
          jobQueue = new BullMqJobQueue({
            handler,
            connection: redisUrl,
            prefix: config.REDIS_PREFIX,
            concurrency: config.COLLECTOR_CONCURRENCY,
            nodeId: cluster.nodeId,
          });
          return jobQueue;
        }
      : undefined,
  });
  // Each delivering process keeps to its share of Telegram's and Discord's overall limits, and
  // a user's Discord DM channel, once opened by any of them, is known to all.
  const channels = createNotifyChannels(config, {
    share: () => membership.workers(),
    dmChannelStore: cluster.shared ? clusterDmChannelStore(cluster) : undefined,
  });
  // The worker logs through the app's logger, so it is made after the app; until then a
  // wake-up has nothing to wake.
  let wakeWorker = () => {};
  const app = await buildApp({
    config,
    db,
    collector,
    xUsage,
    metrics,
    sessionCache,
    cluster,
    role,
    notify: { channels, wakeWorker: () => wakeWorker() },
  });
  xUsage?.useLogger(app.log.child({ module: 'x-usage' }));
  const collectorLog = app.log.child({ module: 'collector' });
  collector.useLogger(collectorLog);
  jobQueue?.useLogger(app.log.child({ module: 'job-queue' }));
  const clusterLog = app.log.child({ module: 'cluster' });
  // Events of the collectors reach the browsers of every API node (and wake every worker).
  if (cluster.shared) {
    await relayEvents({
      cluster,
      events: collector.events,
      publish: works,
      receive: true,
      onError: (error) => clusterLog.warn({ err: error }, 'could not relay an event'),
    });
  }
  const worker = works
    ? new DeliveryWorker({
        db,
        channels,
        concurrency: config.NOTIFY_CONCURRENCY,
        maxAgeMs: config.NOTIFY_MAX_AGE_HOURS * 3_600_000,
        digestAfter: config.NOTIFY_DIGEST_AFTER,
        workerId: cluster.nodeId,
        log: app.log.child({ module: 'notify' }),
      })
    : undefined;
  if (worker) wakeWorker = () => worker.wake();
  // Old rows of the log-like tables go once a day (RETENTION_*_DAYS), in one working process.
  const retention = works
    ? new RetentionJob({
        db,
        policy: retentionPolicy(config),
        cluster,
        log: app.log.child({ module: 'retention' }),
      })
    : undefined;
  const telegramToken = config.TELEGRAM_BOT_TOKEN;
  const updates =
    works && config.TELEGRAM_POLL_UPDATES
      ? new TelegramUpdatesPoller({
          db,
          channels,
          wakeWorker: () => wakeWorker(),
          log: app.log.child({ module: 'telegram-updates' }),
          // One poller per bot token across the nodes.
          lock:
            cluster.shared && telegramToken
              ? {
                  cluster,
                  name: `telegram-updates:${createHash('sha256').update(telegramToken).digest('hex').slice(0, 16)}`,
                }
              : undefined,
        })
      : undefined;
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

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
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
      await Promise.all([collector.stop(), updates?.stop(), worker?.stop(), retention?.stop()]);
      await membership.leave();
      await sessionCache?.close();
      await cluster.close();
      await db.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ host: config.HOST, port: config.PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const origin = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
  const url = `${origin}/dashboard`;

  if (works) {
    await collector.start();
    await worker?.start();
    updates?.start();
    retention?.start();
  }

  if (!serves) {
    console.log(
      `Perch worker ${cluster.nodeId} is running (health: ${origin}/api/v1/health, metrics: ${origin}/metrics)`,
    );
    return;
  }
  const invitation = await ensureBootstrapInvitation(
    db,
    createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR }),
  );
  if (invitation) printFirstStartBanner(url, invitation.code);
  else console.log(`Sign in at ${url}/login (more accounts: npm run cli -- invite create)`);
  console.log(
    `Perch is running at ${url} (tweet source: ${config.TWEET_SOURCE}${role === 'api' ? ', API only' : ''})`,
  );
}

main().catch((error: unknown) => {
  console.error('Perch failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
