import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type MigrationResultSet } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, createTestDb, type TestDb } from '../../test/helpers.js';
import { isUniqueViolation } from '../lib/errors.js';
import { createDb, type Db, type Dialect } from './index.js';
import { metCatalogRace, migrateToLatest } from './migrate.js';
import { migrations } from './migrations/index.js';

const TABLES = ['invitations', 'login_attempts', 'sessions', 'users'];

/** Where two fresh, unmigrated handles can point at the same database. */
interface Place {
  config: { DATA_DIR: string; DATABASE_URL: string | undefined };
  dispose(): Promise<void>;
}

async function freshPlace(dialect: Dialect): Promise<Place> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-db-test-'));
  if (dialect === 'sqlite') {
    return {
      config: { DATA_DIR: dataDir, DATABASE_URL: undefined },
      async dispose() {
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `m_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    config: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    async dispose() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Names of our tables (and Kysely's) as the database lists them, once per table. */
async function tableNames({ db, dialect }: Db): Promise<string[]> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and name not like 'sqlite_%'
      order by name`.execute(db);
    return rows.map((row) => row.name);
  }
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() order by table_name`.execute(db);
  return rows.map((row) => row.name);
}

async function appliedMigrations({ db }: Db): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

const now = () => new Date().toISOString();

describe.each(DIALECTS)('database [%s]', (dialect) => {
  const allMigrations = Object.keys(migrations(dialect));

  describe('migrations', () => {
    it('are idempotent: a second run applies nothing and changes nothing', async () => {
      const place = await freshPlace(dialect);
      const db = createDb(place.config);
      try {
        expect(await migrateToLatest(db)).toEqual(allMigrations);
        const tables = await tableNames(db);
        expect(tables).toEqual(expect.arrayContaining([...TABLES, 'kysely_migration']));
        expect(await migrateToLatest(db)).toEqual([]);
        expect(await tableNames(db)).toEqual(tables);
        expect(await appliedMigrations(db)).toEqual(allMigrations);
      } finally {
        await db.close();
        await place.dispose();
      }
    });

    it('are safe when several processes migrate the same database at once', async () => {
      const place = await freshPlace(dialect);
      const databases = [createDb(place.config), createDb(place.config), createDb(place.config)];
      try {
        const applied = await Promise.all(databases.map((database) => migrateToLatest(database)));
        // Exactly one of them applied each migration; the others found nothing left to do.
        expect(applied.flat().sort()).toEqual([...allMigrations].sort());
        const tables = await tableNames(databases[0]!);
        for (const table of TABLES) expect(tables.filter((name) => name === table)).toHaveLength(1);
        for (const database of databases)
          expect(await appliedMigrations(database)).toEqual(allMigrations);
      } finally {
        await Promise.all(databases.map((database) => database.close()));
        await place.dispose();
      }
    });

    it('keep databases that share a server apart (each gets its own bookkeeping)', async () => {
      const [one, two] = await Promise.all([freshPlace(dialect), freshPlace(dialect)]);
      const a = createDb(one.config);
      const b = createDb(two.config);
      try {
        expect(await migrateToLatest(a)).toEqual(allMigrations);
        // The second database must not mistake the first one's migration tables for its own.
        expect(await migrateToLatest(b)).toEqual(allMigrations);
        expect(await tableNames(b)).toEqual(expect.arrayContaining(TABLES));
      } finally {
        await a.close();
        await b.close();
        await one.dispose();
        await two.dispose();
      }
    });
  });

  it.runIf(dialect === 'postgres')(
    'migrate while other tenants of the server drop their schemas',
    async () => {
      // Kysely lists the tables of every schema; one dropped mid-listing fails it (3F000).
      const base = process.env.TEST_DATABASE_URL;
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      const place = await freshPlace(dialect);
      const database = createDb(place.config);
      const others = Array.from({ length: 40 }, (_, i) => `x_${process.pid}_${i}_drop`);
      let churning = true;
      const churn = (async () => {
        while (churning) {
          for (const name of others) {
            await admin.query(`create schema ${name}`);
            await admin.query(`create table ${name}.t (id serial primary key, note text)`);
          }
          for (const name of others) await admin.query(`drop schema ${name} cascade`);
        }
      })();
      try {
        for (let run = 0; run < 5; run++) {
          expect(await migrateToLatest(database)).toEqual(run === 0 ? allMigrations : []);
        }
      } finally {
        churning = false;
        await churn;
        for (const name of others) await admin.query(`drop schema if exists ${name} cascade`);
        await admin.end();
        await database.close();
        await place.dispose();
      }
    },
    60_000,
  );

  describe('constraints', () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await createTestDb(dialect);
    });
    afterAll(() => db.dispose());

    const insertUser = (username: string, email: string) =>
      db.db
        .insertInto('users')
        .values({
          username,
          email,
          password_hash: 'x',
          is_admin: false,
          is_super_admin: false,
          created_at: now(),
        })
        .execute();

    /** What `promise` was rejected with; undefined when it was fulfilled. */
    const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
      promise.then(
        () => undefined,
        (caught: unknown) => caught,
      );

    async function expectUniqueViolation(promise: Promise<unknown>) {
      const error = await rejectionOf(promise);
      expect(error, 'the insert should have failed').toBeDefined();
      expect(isUniqueViolation(error)).toBe(true);
    }

    it('keeps usernames unique regardless of case', async () => {
      await insertUser('MixedCase', 'mixed1@example.com');
      await expectUniqueViolation(insertUser('mixedcase', 'mixed2@example.com'));
      await expectUniqueViolation(insertUser('MIXEDCASE', 'mixed3@example.com'));
    });

    it('keeps emails unique regardless of case', async () => {
      await insertUser('mail_one', 'Same@Example.com');
      await expectUniqueViolation(insertUser('mail_two', 'same@example.COM'));
    });

    it('refuses an invitation used more often than allowed', async () => {
      const error = await rejectionOf(
        db.db
          .insertInto('invitations')
          .values({
            code_hash: 'OVERUSED',
            role: 'user',
            max_uses: 1,
            uses: 2,
            created_at: now(),
            expires_at: null,
            created_by: null,
          })
          .execute(),
      );
      expect(error).toBeDefined();
    });

    it('refuses a session of a user that does not exist (foreign keys are on)', async () => {
      const error = await rejectionOf(
        db.db
          .insertInto('sessions')
          .values({
            id: 'f'.repeat(64),
            user_id: 999_999,
            created_at: now(),
            last_seen_at: now(),
            expires_at: now(),
            ip: null,
            user_agent: null,
            remember_me: false,
          })
          .execute(),
      );
      expect(error).toBeDefined();
    });
  });
});

describe('SQLite file', () => {
  it('opens with WAL, foreign keys and a busy timeout', async () => {
    const db = await createTestDb('sqlite');
    try {
      const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db.db);
      expect(journal.rows[0]?.journal_mode).toBe('wal');
      const keys = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db.db);
      expect(keys.rows[0]?.foreign_keys).toBe(1);
      const busy = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db.db);
      expect(busy.rows[0]?.timeout).toBeGreaterThanOrEqual(1000);
      expect(fs.existsSync(path.join(db.config.DATA_DIR, 'perch.db'))).toBe(true);
    } finally {
      await db.dispose();
    }
  });
});

describe.runIf(DIALECTS.includes('postgres'))('PostgreSQL pool', () => {
  it('ends a transaction left idle by a stalled process, freeing its rows, and serves on', async () => {
    const place = await freshPlace('postgres');
    const stalling = createDb(place.config, { idleInTransactionTimeoutMs: 300 });
    const other = createDb(place.config);
    try {
      const setting = await sql<{
        idle_in_transaction_session_timeout: string;
      }>`show idle_in_transaction_session_timeout`.execute(other.db);
      expect(setting.rows).toEqual([{ idle_in_transaction_session_timeout: '10s' }]);
      await sql`create table counters (id int primary key, n int not null)`.execute(other.db);
      await sql`insert into counters values (1, 0)`.execute(other.db);
      let wake = () => {};
      let locked = () => {};
      const rowLocked = new Promise<void>((resolve) => (locked = resolve));
      const stalled = stalling.db.transaction().execute(async (trx) => {
        await sql`update counters set n = n + 1 where id = 1`.execute(trx);
        // Nothing more for as long as the test wants, as from a stopped process.
        const woken = new Promise<void>((resolve) => (wake = resolve));
        locked();
        await woken;
        await sql`update counters set n = n + 10 where id = 1`.execute(trx);
      });
      await rowLocked;
      const started = Date.now();
      await sql`update counters set n = n + 100 where id = 1`.execute(other.db);
      expect(Date.now() - started).toBeLessThan(5_000);

      // Woken up, its transaction is gone (rolled back) and the process goes on.
      wake();
      await expect(stalled).rejects.toThrow();
      const { rows } = await sql<{ n: number }>`select n from counters`.execute(other.db);
      expect(rows).toEqual([{ n: 100 }]);
      // The ended session left the pool: more queries than connections all get answers.
      const answers = await Promise.all(
        Array.from({ length: 12 }, () =>
          sql<{ one: number }>`select 1 as one`.execute(stalling.db),
        ),
      );
      expect(answers.map((answer) => answer.rows[0]?.one)).toEqual(Array(12).fill(1));
    } finally {
      await stalling.close();
      await other.close();
      await place.dispose();
    }
  });
});

describe("a migration run that met another session's DDL", () => {
  const failed = (code: string, results?: MigrationResultSet['results']): MigrationResultSet => ({
    error: Object.assign(new Error('catalog changed'), { code }),
    results,
  });
  const errored = [{ migrationName: '0023', direction: 'Up', status: 'Error' }] as const;

  it('is tried again when the listing before the migrations met it', () => {
    expect(metCatalogRace(failed('3F000'))).toBe(true);
    expect(metCatalogRace(failed('42703'))).toBe(true);
    expect(metCatalogRace(failed('42P01', []))).toBe(true);
  });

  it('is not when a migration of ours failed, or for another error', () => {
    expect(metCatalogRace(failed('42703', [...errored]))).toBe(false);
    expect(metCatalogRace(failed('42P01', [...errored]))).toBe(false);
    expect(metCatalogRace(failed('23505'))).toBe(false);
    expect(metCatalogRace({ error: new Error('no code') })).toBe(false);
    // A dropped schema is another session's wherever it is met.
    expect(metCatalogRace(failed('3F000', [...errored]))).toBe(true);
  });
});
