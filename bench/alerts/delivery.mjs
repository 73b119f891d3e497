// The webhook side of the alerts benchmark, in a child process of its own: `node
// bench/alerts/delivery.mjs <sqlite|postgres>`, forked by run.mjs with BENCH_RECEIVER set to the
// origin of the loopback receiver run.mjs hosts (so receiving does not share this event loop).
//
// 1. Raw client: the webhook client alone (createWebhookClient with the operator's address
//    policy and WEBHOOK_ALLOW_LOOPBACK), `send` in a loop: RAW_REQUESTS requests one at a time,
//    then DELIVERIES with 8 in flight (NOTIFY_CONCURRENCY's default, the worker's webhook
//    slots), to `/raw/<i>`.
// 2. Worker: ENDPOINTS users, each with one endpoint (`/worker/<i>`) and one handle followed with
//    webhooks on; POSTS_PER_HANDLE new posts of each handle stored as monitoring stores them, so
//    the fan-out queues DELIVERIES outbox rows on `webhook:<id>` channels. Then the delivery
//    worker, wired as main.ts wires it (createNotifyChannels from the config, its concurrency,
//    digest, age and lease settings, the alert pass), is started and runs until every row is
//    'sent'. Each `deliver` call (signing, connecting, the request and its answer) is timed
//    where the worker makes it, and the database's statements are counted (instruments.mjs).
import { statementTimer } from './instruments.mjs';
import { dist, openBenchDatabase, seedEndpoints, seedUsersAndHandles } from './world.mjs';
import { postMaker } from '../lib/subscribers.mjs';
import { percentile, sleep } from '../lib/stats.mjs';

const { upsertTweets } = await import(`${dist}/modules/tweets/tweets.repository.js`);
const { createNotifyChannels } = await import(`${dist}/notify/channels.js`);
const { DeliveryWorker } = await import(`${dist}/notify/delivery-worker.js`);
const { createAlertPass } = await import(`${dist}/alerts/evaluation.js`);
const { createWebhookClient } = await import(`${dist}/notify/webhook/webhook-sender.js`);
const { addressPolicyFrom } = await import(`${dist}/notify/webhook/address-policy.js`);
const { VERSION } = await import(`${dist}/lib/server-package.js`);

const dialect = process.argv[2] ?? 'sqlite';
const RECEIVER = process.env.BENCH_RECEIVER;
const ENDPOINTS = 20;
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2_000);
const POSTS_PER_HANDLE = Math.ceil(DELIVERIES / ENDPOINTS);
const RAW_REQUESTS = 500;
/** The worker must be done by then, or the run fails. */
const DEADLINE_MS = 120_000;

const round = (value, digits = 2) => (value === null ? null : Number(value.toFixed(digits)));
const latency = (samples) => ({
  samples: samples.length,
  p50: round(percentile(samples, 50)),
  p95: round(percentile(samples, 95)),
  max: round(Math.max(...samples)),
});
/** Wall-clock time with sub-millisecond precision, comparable across processes. */
const clock = () => performance.timeOrigin + performance.now();

/** A body shaped like the generic preset's post event. */
function rawPayload(i) {
  return {
    type: 'post',
    handle: `author${i % ENDPOINTS}`,
    post: {
      id: String(1_960_000_000_000_000_000n + BigInt(i)),
      url: `https://x.com/author${i % ENDPOINTS}/status/${i}`,
      text: `Notes from the week: shipping, hiring and a long read ${i}`,
      createdAt: new Date().toISOString(),
      metrics: { likes: 40, retweets: 5, replies: 3, quotes: 1 },
    },
    sentAt: new Date().toISOString(),
  };
}

/** `count` sends with `parallel` in flight at once; each one's time, and the wall time. */
async function sendLoop(client, count, parallel, secret) {
  const samples = [];
  let next = 0;
  let failed = 0;
  const started = clock();
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const at = performance.now();
      const result = await client.send(
        { url: `${RECEIVER}/raw/${i % ENDPOINTS}`, secret },
        rawPayload(i),
        { deliveryId: `raw-${parallel}-${i}` },
      );
      samples.push(performance.now() - at);
      if (!result.ok) failed += 1;
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  const seconds = (clock() - started) / 1000;
  return {
    requests: count,
    parallel,
    failed,
    seconds: round(seconds, 3),
    requestsPerSecond: round(count / seconds, 1),
    latencyMs: latency(samples),
  };
}

async function main() {
  const bench = await openBenchDatabase(dialect, { WEBHOOK_ALLOW_LOOPBACK: 'true' });
  const { db, config } = bench;
  try {
    // 1. The client alone.
    const client = createWebhookClient({ policy: addressPolicyFrom(config), version: VERSION });
    const raw = [
      await sendLoop(client, RAW_REQUESTS, 1, 'whsec_raw'),
      await sendLoop(client, DELIVERIES, config.NOTIFY_CONCURRENCY, 'whsec_raw'),
    ];

    // 2. The worker.
    const now = new Date().toISOString();
    const { userIds, handleIds } = await seedUsersAndHandles(db.db, {
      count: ENDPOINTS,
      webhookEnabled: true,
      now,
    });
    await seedEndpoints(db.db, config, userIds, (i) => `${RECEIVER}/worker/${i}`, now);
    const makePost = postMaker(1_970_000_000_000_000_000n, (id) => `New post ${id}`);
    const storeStarted = performance.now();
    for (const handleId of handleIds) {
      const base = Date.now();
      const posts = Array.from({ length: POSTS_PER_HANDLE }, (_, i) =>
        makePost(new Date(base - (POSTS_PER_HANDLE - i) * 1000).toISOString()),
      );
      await upsertTweets(db.db, handleId, posts, now, { markForFanout: true });
    }
    const storeMs = performance.now() - storeStarted;

    const channels = createNotifyChannels(config);
    const samples = [];
    const deliver = channels.webhook.client.deliver;
    let failures = 0;
    channels.webhook.client.deliver = async (...args) => {
      const at = performance.now();
      try {
        return await deliver(...args);
      } catch (error) {
        failures += 1;
        throw error;
      } finally {
        samples.push(performance.now() - at);
      }
    };
    const timer = statementTimer();
    timer.phase = 'worker';
    const timed = { ...db, db: db.db.withPlugin(timer.plugin) };
    const worker = new DeliveryWorker({
      db: timed,
      channels,
      concurrency: config.NOTIFY_CONCURRENCY,
      maxAgeMs: config.NOTIFY_MAX_AGE_HOURS * 3_600_000,
      digestAfter: config.NOTIFY_DIGEST_AFTER,
      leaseMs: config.NOTIFY_LEASE_SECONDS * 1000,
      evaluateAlerts: createAlertPass(timed),
    });
    const startedAt = clock();
    await worker.start();
    const countSent = async () =>
      Number(
        (
          await db.db
            .selectFrom('notification_outbox')
            .select((eb) => eb.fn.countAll().as('count'))
            .where('status', '=', 'sent')
            .executeTakeFirstOrThrow()
        ).count,
      );
    // Watch the client's answers (free), and ask the database only once they are all in.
    while (samples.length < DELIVERIES && clock() - startedAt < DEADLINE_MS) await sleep(20);
    let sent = await countSent();
    while (sent < DELIVERIES && clock() - startedAt < DEADLINE_MS) {
      await sleep(20);
      sent = await countSent();
    }
    const allSentAt = clock();
    await worker.stop();
    const outbox = await db.db
      .selectFrom('notification_outbox')
      .select(['status'])
      .select((eb) => eb.fn.countAll().as('count'))
      .groupBy('status')
      .execute();
    const statements = Object.entries(timer.byPhase.worker ?? {})
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(([label, s]) => ({
        label,
        perDelivery: round(s.count / DELIVERIES, 2),
        msPerDelivery: round(s.ms / DELIVERIES, 3),
      }));
    return {
      dialect,
      endpoints: ENDPOINTS,
      deliveries: DELIVERIES,
      concurrency: config.NOTIFY_CONCURRENCY,
      raw,
      worker: {
        storeMs: round(storeMs, 1),
        startedAt,
        allSentAt,
        secondsToAllSent: round((allSentAt - startedAt) / 1000, 3),
        requests: samples.length,
        failures,
        latencyMs: latency(samples),
        outbox: Object.fromEntries(outbox.map((row) => [row.status, Number(row.count)])),
        statements,
      },
    };
  } finally {
    await bench.close();
  }
}

try {
  process.send({ ok: true, result: await main() });
} catch (error) {
  process.send({ ok: false, error: String(error?.stack ?? error) });
}
process.disconnect();
