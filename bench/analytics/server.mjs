// Child process of the analytics benchmark: the built app on SQLite (no collector, so nothing
// changes the data), one signed-in user following handles whose tweets, metric snapshots and
// profile snapshots are stored through the repository functions. Reports the port, the
// session cookie and the handles, then answers the parent's requests over IPC:
//   { type: 'bump', handle }      marks the handle's data as changed (the next request recomputes)
//   { type: 'parts', handle }     times the parts of an uncached request in this process
import {
  computeBlocks,
  prepareWindow,
  topPosts,
  wholeUtcDays,
} from '../../apps/server/dist/analytics/index.js';
import {
  listMetricSnapshots,
  listProfileSnapshots,
  listWindowTweets,
} from '../../apps/server/dist/modules/analytics/analytics.repository.js';
import {
  findHandleByName,
  insertHandle,
  insertLink,
  updateHandle,
} from '../../apps/server/dist/modules/handles/handles.repository.js';
import {
  insertMetricSnapshots,
  insertProfileSnapshot,
  listTweetTexts,
  upsertTweets,
} from '../../apps/server/dist/modules/tweets/tweets.repository.js';
import { wordCountsOfDays } from '../../apps/server/dist/modules/tweets/word-days.repository.js';
import { findUserByLogin } from '../../apps/server/dist/modules/users/users.repository.js';
import { BENCH_USERNAME, startSignedInApp } from '../lib/signed-in-app.mjs';
import { generateHandleData } from './synthetic.mjs';

const DAY_MS = 86_400_000;
const SIZES = JSON.parse(process.env.BENCH_SIZES ?? '[1000,10000,100000]');
const TIMEZONE = process.env.BENCH_TIMEZONE ?? 'America/New_York';
const PERIOD = 30;
const X_USER_ID = '4242424242';

const perch = await startSignedInApp({ tmpPrefix: 'perch-bench-analytics-' });
const db = perch.db;
const user = await findUserByLogin(db.db, BENCH_USERNAME);

/** Stores one handle with `posts` posts in the last 30 days, as a finished backfill left it. */
async function seedHandle(username, posts, seed) {
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const data = generateHandleData({ posts, end: nowMs, seed, xUserId: X_USER_ID });
  const started = performance.now();
  const handle = await insertHandle(db.db, { username, backfillDays: PERIOD, now });
  await upsertTweets(db.db, handle.id, data.tweets, now);
  await db.db.transaction().execute(async (trx) => {
    // The metric refresh stores one batch per reading time.
    const byTick = new Map();
    for (const { takenAt, tweet } of data.metricSnapshots) {
      if (!byTick.has(takenAt)) byTick.set(takenAt, []);
      byTick.get(takenAt).push(tweet);
    }
    for (const [takenAt, list] of byTick) {
      await insertMetricSnapshots(trx, handle.id, list, takenAt);
    }
    for (const { takenAt, profile } of data.profileSnapshots) {
      await insertProfileSnapshot(trx, handle.id, profile, takenAt);
    }
  });
  const latest = data.profileSnapshots.at(-1).profile;
  await updateHandle(db.db, handle.id, {
    x_user_id: X_USER_ID,
    display_name: username,
    backfill_status: 'completed',
    backfill_progress: 100,
    initial_backfill_complete: true,
    backfill_completed_at: now,
    backfill_target_start: new Date(nowMs - PERIOD * DAY_MS).toISOString(),
    backfill_window_end: now,
    oldest_covered_at: data.tweets[0].createdAt,
    newest_tweet_id: data.tweets.at(-1).id,
    total_tweets_collected: data.tweets.length,
    followers_count: latest.followersCount,
    following_count: latest.followingCount,
    tweet_count: latest.tweetCount,
    like_count: latest.likeCount,
    updated_at: now,
  });
  await insertLink(db.db, { userId: user.id, handleId: handle.id, backfillDays: PERIOD, now });
  return {
    username,
    posts,
    tweets: data.tweets.length,
    metricSnapshots: data.metricSnapshots.length,
    profileSnapshots: data.profileSnapshots.length,
    seedSeconds: Math.round((performance.now() - started) / 10) / 100,
  };
}

const handles = [];
for (const [index, posts] of SIZES.entries()) {
  handles.push(await seedHandle(`bench_${posts}`, posts, 100 + index));
}

/**
 * What an uncached `complete` request does after finding the handle, step by step, timed in
 * this process as the service does it (analytics.service.ts, `prepare`): the loads (run with
 * Promise.all; the tweets come parsed, without the texts of the window's whole UTC days, whose
 * words come from the counts kept per day), the texts of the top posts, and the engine.
 */
async function parts(username) {
  const handle = await findHandleByName(db.db, username);
  const end = Date.now();
  const window = { start: end - PERIOD * DAY_MS, end };
  const since = new Date(window.start).toISOString();
  const days = wholeUtcDays(window);
  const textless = {
    start: new Date(days.start).toISOString(),
    end: new Date(days.end).toISOString(),
  };
  const t0 = performance.now();
  const [tweets, profileSnapshots, metricSnapshots, wordDays] = await Promise.all([
    listWindowTweets(db.db, handle.id, since, textless),
    listProfileSnapshots(db.db, handle.id, since),
    listMetricSnapshots(db.db, handle.id, since),
    wordCountsOfDays(db.db, handle.id, days),
  ]);
  const t2 = performance.now();
  const prepared = prepareWindow({
    handle: handle.username,
    xUserId: handle.x_user_id,
    tweets,
    profileSnapshots,
    metricSnapshots,
    window,
    timezone: TIMEZONE,
    wordDays,
  });
  const top = topPosts(prepared).filter((post) => post.tweet.text === null);
  const texts = await listTweetTexts(
    db.db,
    handle.id,
    top.map((post) => post.tweet.id),
  );
  for (const post of top) post.tweet.text = texts.get(post.tweet.id) ?? '';
  computeBlocks(prepared);
  const t3 = performance.now();
  return { posts: prepared.posts.length, loadMs: t2 - t0, engineMs: t3 - t2 };
}

process.on('message', async (message) => {
  try {
    if (message.type === 'bump') {
      await db.db
        .updateTable('handles')
        .set((eb) => ({ data_version: eb('data_version', '+', 1) }))
        .where('username', '=', message.handle)
        .execute();
      process.send({ ok: true });
    } else if (message.type === 'parts') {
      process.send({ ok: true, result: await parts(message.handle) });
    }
  } catch (error) {
    process.send({ ok: false, error: String(error?.stack ?? error) });
  }
});

process.send({
  ready: true,
  port: perch.port,
  cookie: perch.cookie,
  handles,
  timezone: TIMEZONE,
  period: PERIOD,
});
process.on('disconnect', async () => {
  await perch.close();
  process.exit(0);
});
