// Child process of the tweet search benchmark: the built app on SQLite, or on a private schema of
// the PostgreSQL at BENCH_DATABASE_URL when BENCH_DIALECT=postgres, with one signed-in user
// following one handle that holds BENCH_TWEETS tweets (deterministic synthetic data, stored
// through upsertTweets as a backfill stores them, so the search index is filled by the same
// triggers or index updates as in production). Reports the port, the cookie and what the seed
// cost, then serves until the parent disconnects.
import { sql } from 'kysely';
import {
  insertHandle,
  insertLink,
} from '../../apps/server/dist/modules/handles/handles.repository.js';
import { upsertTweets } from '../../apps/server/dist/modules/tweets/tweets.repository.js';
import { findUserByLogin } from '../../apps/server/dist/modules/users/users.repository.js';
import { generateHandleData } from '../analytics/synthetic.mjs';
import { createPgSchema, dropPgSchema } from '../lib/pg-schema.mjs';
import { BENCH_USERNAME, startSignedInApp } from '../lib/signed-in-app.mjs';

const DIALECT = process.env.BENCH_DIALECT ?? 'sqlite';
const TWEETS = Number(process.env.BENCH_TWEETS ?? 100_000);
const DAYS = 90;
const HANDLE = 'bench_search';
/** Tweets per upsertTweets call: a backfill stores a page of 100 at a time. */
const BATCH = 100;

let schema;
const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
if (DIALECT === 'postgres') {
  schema = `bench_ts_${process.pid}`;
  process.env.DATABASE_URL = await createPgSchema(base, schema);
} else {
  delete process.env.DATABASE_URL;
}

async function dropSchema() {
  if (schema) await dropPgSchema(base, schema);
}

// Whatever fails from here on, the schema goes.
process.on('uncaughtException', async (error) => {
  console.error(error);
  await dropSchema().catch(() => undefined);
  process.exit(1);
});

const perch = await startSignedInApp({ tmpPrefix: 'perch-bench-search-' });
const db = perch.db;
const user = await findUserByLogin(db.db, BENCH_USERNAME);

// Posts plus about 11% retweets (synthetic.mjs): pick the post count that makes TWEETS in all.
const end = Date.now();
const data = generateHandleData({ posts: Math.round(TWEETS / 1.11), end, days: DAYS, seed: 2026 });
const tweets = data.tweets.slice(-TWEETS);
const now = new Date(end).toISOString();
const handle = await insertHandle(db.db, { username: HANDLE, backfillDays: DAYS, now });
await insertLink(db.db, { userId: user.id, handleId: handle.id, backfillDays: DAYS, now });
const seedStarted = performance.now();
// Newest first, a page at a time, as a backfill walks back through the timeline.
for (let stop = tweets.length; stop > 0; stop -= BATCH) {
  await upsertTweets(db.db, handle.id, tweets.slice(Math.max(0, stop - BATCH), stop), now);
}
const seedSeconds = (performance.now() - seedStarted) / 1000;
await db.db
  .updateTable('handles')
  .set({
    backfill_status: 'completed',
    backfill_progress: 100,
    initial_backfill_complete: true,
    total_tweets_collected: tweets.length,
    // Far ahead: nothing collects this handle meanwhile (no collector runs here anyway).
    next_poll_at: '2999-01-01T00:00:00.000Z',
  })
  .where('id', '=', handle.id)
  .execute();
// PostgreSQL's autovacuum vacuums and analyses tables this size within a minute of a load
// (inserts count since PostgreSQL 13); do it now rather than wait, so the planner's statistics
// and the visibility map are those of a running install.
if (DIALECT === 'postgres') {
  await sql`vacuum analyze tweets`.execute(db.db);
  await sql`vacuum analyze tweet_search`.execute(db.db);
}

const sizes =
  DIALECT === 'postgres'
    ? (
        await sql`
          select pg_total_relation_size('tweets') as total,
                 pg_total_relation_size('tweet_search') as search_index`.execute(db.db)
      ).rows[0]
    : (
        await sql`
          select (select sum(pgsize) from dbstat where name = 'tweets') as total,
                 (select sum(pgsize) from dbstat where name like 'tweets_fts%') as search_index`
          .execute(db.db)
          .catch(() => ({ rows: [{ total: null, search_index: null }] }))
      ).rows[0];

process.send({
  ready: true,
  dialect: DIALECT,
  port: perch.port,
  cookie: perch.cookie,
  handle: HANDLE,
  tweets: tweets.length,
  seedSeconds,
  tableBytes: sizes.total === null ? null : Number(sizes.total),
  searchIndexBytes: sizes.search_index === null ? null : Number(sizes.search_index),
});
process.on('disconnect', async () => {
  await perch.close();
  await dropSchema();
  process.exit(0);
});
