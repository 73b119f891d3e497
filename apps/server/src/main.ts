import { buildApp } from './app.js';
import { Collector } from './collector/collector.js';
import { createTweetSource } from './collector/sources/index.js';
import { ConfigError, loadConfig } from './config.js';
import { createDb } from './db/index.js';
import { migrateToLatest } from './db/migrate.js';
import { createXUsageMeter } from './modules/x-usage/x-usage.service.js';
import { ensureBootstrapInvitation } from './modules/invitations/invitations.service.js';
import { createNotifyChannels } from './notify/channels.js';
import { DeliveryWorker } from './notify/delivery-worker.js';
import { TelegramUpdatesPoller } from './notify/telegram-updates.js';

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
  // Only the x-api source is billed: the meter counts what X charges and holds the spend limit.
  const xUsage = config.TWEET_SOURCE === 'x-api' ? createXUsageMeter(db, config) : undefined;
  const collector = new Collector({
    db,
    source: createTweetSource(config, {
      onBilledReads: xUsage && ((reads) => xUsage.record(reads)),
    }),
    monitorIntervalSeconds: config.MONITOR_INTERVAL_SECONDS,
    concurrency: config.COLLECTOR_CONCURRENCY,
    budget: xUsage,
    profileRefreshMinutes: config.PROFILE_REFRESH_MINUTES,
  });
  const channels = createNotifyChannels(config);
  // The worker logs through the app's logger, so it is made after the app; until then a
  // wake-up has nothing to wake.
  let wakeWorker = () => {};
  const app = await buildApp({
    config,
    db,
    collector,
    xUsage,
    notify: { channels, wakeWorker: () => wakeWorker() },
  });
  xUsage?.useLogger(app.log.child({ module: 'x-usage' }));
  collector.useLogger(app.log.child({ module: 'collector' }));
  const worker = new DeliveryWorker({
    db,
    channels,
    concurrency: config.NOTIFY_CONCURRENCY,
    maxAgeMs: config.NOTIFY_MAX_AGE_HOURS * 3_600_000,
    digestAfter: config.NOTIFY_DIGEST_AFTER,
    log: app.log.child({ module: 'notify' }),
  });
  wakeWorker = () => worker.wake();
  const updates = config.TELEGRAM_POLL_UPDATES
    ? new TelegramUpdatesPoller({
        db,
        channels,
        wakeWorker: () => wakeWorker(),
        log: app.log.child({ module: 'telegram-updates' }),
      })
    : undefined;
  // New tweets are fanned out at once rather than at the worker's next tick.
  collector.events.on('tweet.new', () => wakeWorker());
  const collectorLog = app.log.child({ module: 'collector' });
  collector.events.on('handle.status', ({ username, status, error }) =>
    collectorLog.info({ handle: username, status, error }, 'handle status'),
  );
  app.log.info({ database: db.location, source: config.TWEET_SOURCE }, 'database ready');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    // close() stops accepting and waits for requests in flight; a keep-alive connection whose
    // request finishes afterwards would hold it open until its timeout, so sweep those too.
    const sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
    try {
      await app.close();
      clearInterval(sweeper);
      // Running jobs save the page in hand and return; unfinished work resumes at next start.
      await collector.stop();
      // Sends in flight finish and are recorded; pending deliveries wait in the outbox.
      await updates?.stop();
      await worker.stop();
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
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}/dashboard`;

  await collector.start();
  await worker.start();
  updates?.start();

  const invitation = await ensureBootstrapInvitation(db);
  if (invitation) printFirstStartBanner(url, invitation.code);
  else console.log(`Sign in at ${url}/login (more accounts: npm run cli -- invite create)`);
  console.log(`Perch is running at ${url} (tweet source: ${config.TWEET_SOURCE})`);
}

main().catch((error: unknown) => {
  console.error('Perch failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
