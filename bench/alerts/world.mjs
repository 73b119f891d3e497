// The alerts benchmark's world, written straight through the built server's repositories and
// tables: a fresh database per run (SQLite in a temp DATA_DIR, or a private PostgreSQL schema),
// users with Telegram and one webhook endpoint each, the handles they follow with their alert
// rules, a month of history per handle and two days of profile snapshots.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPgSchema, dropPgSchema } from '../lib/pg-schema.mjs';

/** The built server; BENCH_SERVER_DIST points at another build (e.g. one with a change to try). */
export const dist = process.env.BENCH_SERVER_DIST
  ? pathToFileURL(path.resolve(process.env.BENCH_SERVER_DIST)).href
  : new URL('../../apps/server/dist', import.meta.url).href;

const server = async (module) => import(`${dist}/${module}`);
const { loadConfig } = await server('config.js');
const { createDb } = await server('db/index.js');
const { migrateToLatest } = await server('db/migrate.js');
const { insertUser } = await server('modules/users/users.repository.js');
const { upsertUserSettings } = await server('modules/settings/settings.repository.js');
const { insertHandle, insertLink, setLinkNotifications } = await server(
  'modules/handles/handles.repository.js',
);
const { createTokenCipher } = await server('lib/token-cipher.js');
// A build from before secrets were bound to their endpoint (BENCH_SERVER_DIST) has one context.
const secretModule = await server('notify/webhook/secret.js');
const secretContext = (endpointId) =>
  secretModule.webhookSecretContext?.(endpointId) ?? secretModule.WEBHOOK_SECRET_CONTEXT;

/** The stored-credentials key of every bench database (at least 32 characters). */
const SECRET_KEY = 'bench-alerts-secret-key-of-40-characters';
/** What each bench endpoint signs with. */
export const ENDPOINT_SECRET = 'whsec_bench-alerts-receiver';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Rows per multi-row INSERT: well under both databases' bound-parameter limits. */
const INSERT_ROWS = 1_000;

/**
 * A fresh database of `dialect` ('sqlite' or 'postgres', the latter in a private schema of
 * BENCH_DATABASE_URL), migrated, with the server's config for it. `close()` removes it all.
 */
export async function openBenchDatabase(dialect, env = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bench-alerts-'));
  const base = process.env.BENCH_DATABASE_URL;
  let schema;
  let databaseUrl;
  if (dialect === 'postgres') {
    schema = `bench_alerts_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    databaseUrl = await createPgSchema(base, schema);
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SECRET_KEY,
    ...env,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const db = createDb(config);
  await migrateToLatest(db);
  return {
    config,
    db,
    async close() {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropPgSchema(base, schema);
    },
  };
}

/** Inserts `rows` into `table` of `db` (a Kysely database) in multi-row statements. */
export async function insertRows(db, table, rows) {
  for (let start = 0; start < rows.length; start += INSERT_ROWS) {
    await db
      .insertInto(table)
      .values(rows.slice(start, start + INSERT_ROWS))
      .execute();
  }
}

/** A small seeded random number generator (mulberry32), so every run builds the same world. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * `count` users, each with Telegram connected and the bot running, and one handle each that the
 * user follows (handle `i` is followed by user `i` only), both collected and not due for a poll.
 * With `webhookEnabled`, new posts of the handle go to the user's webhooks too. Returns the ids.
 */
export async function seedUsersAndHandles(db, { count, webhookEnabled = false, now }) {
  const userIds = [];
  const handleIds = [];
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) {
      const user = await insertUser(trx, {
        username: `watcher${i}`,
        email: `watcher${i}@example.com`,
        passwordHash: 'not-used',
        isAdmin: false,
        isSuperAdmin: false,
        createdAt: now,
      });
      await upsertUserSettings(trx, user.id, {
        telegram_chat_id: String(700_000 + i),
        twitter_username: `watcher${i}_x`,
        bot_running: true,
        updated_at: now,
      });
      const handle = await insertHandle(trx, { username: `author${i}`, backfillDays: 30, now });
      await trx
        .updateTable('handles')
        .set({
          display_name: `Author ${i}`,
          x_user_id: String(5_000_000 + i),
          backfill_status: 'completed',
          initial_backfill_complete: true,
          next_poll_at: '2999-01-01T00:00:00.000Z',
        })
        .where('id', '=', handle.id)
        .execute();
      await insertLink(trx, { userId: user.id, handleId: handle.id, backfillDays: 30, now });
      if (webhookEnabled) {
        await setLinkNotifications(trx, user.id, handle.id, { webhook_enabled: true });
      }
      userIds.push(user.id);
      handleIds.push(handle.id);
    }
  });
  return { userIds, handleIds };
}

/** One webhook endpoint per user, at `urlOf(i)`, signing with ENDPOINT_SECRET. Returns the ids. */
export async function seedEndpoints(db, config, userIds, urlOf, now) {
  const cipher = createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR });
  await insertRows(
    db,
    'webhook_endpoints',
    userIds.map((userId, i) => ({
      user_id: userId,
      name: `Ops ${i}`,
      url: urlOf(i),
      preset: 'generic',
      secret_sealed: '',
      stopped_reason: null,
      created_at: now,
      updated_at: now,
    })),
  );
  const rows = await db.selectFrom('webhook_endpoints').select('id').orderBy('id').execute();
  // Each secret is sealed for its endpoint, whose id the insert gave.
  for (const { id } of rows) {
    await db
      .updateTable('webhook_endpoints')
      .set({ secret_sealed: cipher.encrypt(ENDPOINT_SECRET, secretContext(id)) })
      .where('id', '=', id)
      .execute();
  }
  return rows.map((row) => row.id);
}
