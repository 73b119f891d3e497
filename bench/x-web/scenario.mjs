// One run of the x-web bench: the real collector with the x-web source and a pool of collector
// accounts, against the loopback fake of X's web API, on a virtual clock and a temp SQLite
// database, with `handles` typical handles of the x-budget world (10 posts a day).
//
// The clock: the fake takes one `now` for everything, its 15-minute windows and its check that a
// transaction id was made within 10 minutes of that `now`, while the package that makes the ids
// (x-client-transaction-id) stamps them with Date.now(). Neither the real clock for the fake
// (its windows would then last 15 real minutes) nor a virtual clock started at real now (it runs
// 10 virtual minutes ahead within seconds) works; so for the run Date.now() returns the virtual
// clock, and the fake, the source and the collector all read that one clock.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X_WEB_OPERATIONS } from '@perch/shared';
import { startFakeXWebServer } from '../../apps/server/test/fakes/fake-x-web-server.ts';
import { Collector } from '../../apps/server/src/collector/collector.ts';
import { createXWebSource } from '../../apps/server/src/sources/x-web/x-web-source.ts';
import { loadConfig } from '../../apps/server/src/config.ts';
import { createDb } from '../../apps/server/src/db/index.ts';
import { migrateToLatest } from '../../apps/server/src/db/migrate.ts';
import { createTokenCipher } from '../../apps/server/src/lib/token-cipher.ts';
import { addAccount } from '../../apps/server/src/modules/x-web/x-web-accounts.service.ts';
import { followedByBenchUsers } from '../lib/bench-users.mjs';
import { countingLog } from '../lib/counting-log.mjs';
import { tappedSource } from '../lib/source-tap.mjs';
import { populate } from '../x-budget/world.mjs';
import { createRequestLog } from './tally.mjs';

/** The fake's limits when a run lifts them: what the collector asks for is measured. */
const LIFTED = 1_000_000_000;
/**
 * The SQLite file goes to tmpfs where there is one: the bench counts requests, and the disk
 * should not set its pace.
 */
const TMP = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();

/** A post of the x-budget world's wire format as the x-web fake takes it. */
const sourceTweet = (wire) => ({
  id: wire.id,
  text: wire.text,
  createdAt: wire.created_at,
  lang: wire.lang,
  likeCount: 0,
  retweetCount: 0,
  replyCount: 0,
  quoteCount: 0,
  impressionCount: 0,
  conversationId: wire.conversation_id,
  inReplyToUserId: null,
  referencedTypes: [],
  hashtags: [],
  urls: [],
  media: [],
});

/** The x-web fake behind the x-budget world's feeder (which speaks the x-api fake's calls). */
const feedOf = (fake) => ({
  addUser: ({ username, id }) => fake.addUser({ username, id, tweetCount: 0 }),
  addTweets: (userId, posts) => fake.addSourceTweets(userId, posts.map(sourceTweet)),
});

/** How a source error came about: an account resting, every account busy, the pool paused. */
function errorKey(error) {
  const kind = error?.kind ?? error?.name ?? 'error';
  if (kind !== 'rate_limited') return kind;
  const message = String(error.message);
  if (message.includes('spent its')) return 'rate_limited: account resting';
  if (message.includes('in flight')) return 'rate_limited: accounts busy';
  return 'rate_limited: pool paused';
}

/** Wraps the source to note every error it threw, with the virtual instant. */
function noteErrors(source, now) {
  const errors = [];
  return {
    source: tappedSource(source, {
      onError: (name, error) => errors.push({ at: now(), method: name, key: errorKey(error) }),
    }),
    errors,
  };
}

/**
 * Runs the collector from `start` to `end` (virtual epoch ms) in steps of `stepMs` with
 * `handles` (x-budget world handles, added at `start` with `backfillDays`) and `accounts`
 * collector accounts; `lifted` lifts the fake's limits. Returns the request log, the errors,
 * when each handle's backfill was done and when each post was stored.
 */
export async function runScenario({
  handles,
  accounts,
  lifted = false,
  start,
  end,
  stepMs,
  backfillDays,
  progress = () => {},
}) {
  const started = performance.now();
  let clock = start;
  const now = () => clock;
  const realDateNow = Date.now;
  Date.now = now;
  const dataDir = fs.mkdtempSync(path.join(TMP, 'perch-bench-x-web-'));
  const fake = await startFakeXWebServer({ now });
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    TWEET_SOURCE: 'x-web',
    X_WEB_BASE_URL: fake.baseUrl,
    X_WEB_API_BASE_URL: fake.baseUrl,
  });
  const db = createDb(config);
  try {
    await migrateToLatest(db);
    if (lifted) for (const operation of X_WEB_OPERATIONS) fake.setLimit(operation, LIFTED);
    const releaseUntil = populate(feedOf(fake), handles);
    releaseUntil(clock);

    const cipher = createTokenCipher({ dataDir });
    const accountNames = Array.from({ length: accounts }, (_, i) => `collector_${i + 1}`);
    for (const username of accountNames) {
      fake.addAccount({ username, password: 'unused', email: `${username}@example.com` });
      const session = fake.issueSession(username);
      await addAccount(
        { config, db: db.db, cipher, now },
        { method: 'cookies', username, auth_token: session.authToken, ct0: session.ct0 },
      );
    }

    await followedByBenchUsers(db, handles, { backfillDays, clock });

    const noted = noteErrors(
      createXWebSource({
        db: db.db,
        cipher,
        baseUrl: fake.baseUrl,
        apiBaseUrl: fake.baseUrl,
        operationsRecheckMs: config.X_WEB_OPERATIONS_RECHECK_SECONDS * 1000,
        timeoutMs: config.X_REQUEST_TIMEOUT_SECONDS * 1000,
        now,
        // Retries of transient errors sleep in real time: short, as the clock stands still.
        retryBaseMs: 1,
      }),
      now,
    );
    const { logged, log: collectorLog } = countingLog();
    const collector = new Collector({
      db,
      source: noted.source,
      now: () => new Date(clock),
      tickMs: stepMs,
      monitorIntervalSeconds: config.MONITOR_INTERVAL_SECONDS,
      concurrency: config.COLLECTOR_CONCURRENCY,
      profileRefreshMinutes: config.PROFILE_REFRESH_MINUTES,
      log: collectorLog,
    });
    const backfillDoneAt = new Map();
    collector.events.on('handle.status', ({ username, status }) => {
      if (status === 'completed' && !backfillDoneAt.has(username)) {
        backfillDoneAt.set(username, clock);
      }
    });
    const storedAt = new Map();
    collector.events.on('tweet.new', ({ tweet }) => {
      if (!storedAt.has(tweet.id)) storedAt.set(tweet.id, clock);
    });

    const log = createRequestLog();
    await collector.start();
    // The scheduler is driven by hand: its own timer would fire in real time.
    clearTimeout(collector.timer);
    await collector.idle();
    log.drain(fake, clock);
    let lastReport = performance.now();
    for (clock = start + stepMs; clock < end; clock += stepMs) {
      releaseUntil(clock);
      await collector.tick();
      clearTimeout(collector.timer);
      await collector.idle();
      log.drain(fake, clock);
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        progress(`${new Date(clock).toISOString()} virtual`);
      }
    }
    await collector.stop();
    // What X's headers told the pool, per account (rateStatus sums the accounts).
    const limitsSeen = Object.fromEntries(
      noted.source.rateStatus().endpoints.map((e) => [e.endpoint, e.limit / accounts]),
    );
    // A request gives its account's lease back when it ends: any row left was never released.
    const leasesLeft = (await db.db.selectFrom('x_web_leases').selectAll().execute()).length;
    return {
      wallSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      entries: log.entries,
      errors: noted.errors,
      logged,
      accounts: accountNames,
      handles: handles.map((h) => ({
        username: h.username,
        xUserId: h.xUserId,
        backfillDoneAt: backfillDoneAt.get(h.username) ?? null,
      })),
      storedAt: [...storedAt],
      leasesLeft,
      limitsSeen,
    };
  } finally {
    Date.now = realDateNow;
    await fake.close();
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
