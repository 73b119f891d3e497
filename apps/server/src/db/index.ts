import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase,
  type SqliteStatement,
  type Transaction,
} from 'kysely';
import type pgTypes from 'pg';
import type { Config } from '../config.js';
import { createPrivateFile, ensurePrivateDir, restrictFile } from '../lib/private-files.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer } from './sqlite-checkpointer.js';
import type { Database } from './types.js';

export type Dialect = 'sqlite' | 'postgres';

/** What a repository function runs its queries on: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Where the data lives, for logs (no credentials). */
  location: string;
  close(): Promise<void>;
}

let pgDriver: typeof pgTypes | undefined;

/**
 * The PostgreSQL driver, loaded the first time a PostgreSQL database is opened: a process on
 * SQLite (the default) never spends its start-up loading it.
 */
function loadPg(): typeof pgTypes {
  if (!pgDriver) {
    pgDriver = createRequire(import.meta.url)('pg') as typeof pgTypes;
    // COUNT(*) and BIGINT arrive as strings from pg; every count we keep fits in a JS number.
    pgDriver.types.setTypeParser(pgDriver.types.builtins.INT8, (value) =>
      Number.parseInt(value, 10),
    );
  }
  return pgDriver;
}

/**
 * How long PostgreSQL lets one of our sessions sit idle inside a transaction before it ends the
 * session, rolling the transaction back. A process stopped in the middle of one (SIGSTOP, a
 * paused VM or container, a debugger) would otherwise keep the rows it locked, such as a
 * handle's row during `upsertTweets`, until it wakes, and every other process that writes them
 * would wait as long. Our transactions send their statements back to back, so 10 s idle is
 * never a live one; it also bounds how long a frozen worker's handle stays locked, part of the
 * 30 s takeover (see HANDLE_LEASE_MS in collector/handle-lease.ts).
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;

/**
 * The idle-in-transaction limit that goes with a collector lease (COLLECTOR_LEASE_SECONDS): two
 * thirds of it, so a frozen worker's transaction ends before its lease does (10 s for the
 * default 15 s lease).
 */
export function idleTimeoutForLease(leaseSeconds: number): number {
  return Math.round((leaseSeconds * 1000 * 2) / 3);
}

export interface DbOptions {
  /** PostgreSQL: IDLE_IN_TRANSACTION_TIMEOUT_MS unless given (tests shorten it). */
  idleInTransactionTimeoutMs?: number;
  /**
   * SQLite: checkpoint the WAL from a thread of its own (sqlite-checkpointer.ts), for the
   * long-running server and worker, whose backfills write for minutes. A CLI command or a test's
   * database leaves checkpoints to SQLite's own, and does not pay for starting a thread.
   */
  checkpointer?: boolean;
}

/**
 * The comment that opens a statement PostgreSQL keeps prepared on each connection: parsed and
 * planned once per connection rather than on every run, which for a statement as long as the
 * alert claim is most of its cost. Only for statements whose text never changes with their
 * values (a list goes in as one array parameter), run often. Behind PgBouncer in transaction
 * mode this needs PgBouncer 1.21 or later with `max_prepared_statements` set (docs/deployment.md).
 * SQLite keeps every statement prepared anyway (`sqliteForKysely`).
 */
export const PREPARED_MARK = '/* prepared */';

/** Each prepared statement's name: from its text, so two texts never share one. */
const preparedNames = new Map<string, string>();

function preparedName(text: string): string {
  let name = preparedNames.get(text);
  if (!name) {
    name = `perch_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    preparedNames.set(text, name);
  }
  return name;
}

/**
 * Has a connection run the statements that open with PREPARED_MARK as named prepared
 * statements (pg prepares a name once per connection). Kysely runs every query as
 * `query(text, values)`.
 */
function keepMarkedPrepared(client: pgTypes.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const run = (...args: unknown[]) => {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && text.startsWith(PREPARED_MARK)) {
      return query({ name: preparedName(text), text, values });
    }
    return query(...args);
  };
  client.query = run as typeof client.query;
}

/** Whether queries on `db` (the database or a transaction) go to PostgreSQL. */
export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** better-sqlite3 cannot bind booleans; SQLite stores them as 0 and 1. */
function bindable(parameters: ReadonlyArray<unknown>): unknown[] {
  return parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
}

/**
 * What Kysely's SQLite dialect sees of the database. Kysely prepares every query anew, and
 * preparing costs more than running our small queries, so statements are kept per SQL text
 * (Kysely runs them one at a time and never iterates lazily); and boolean parameters are bound
 * as 0/1 here, at the one place every query passes.
 */
function sqliteForKysely(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        const prepared = sqlite.prepare(text);
        statement = {
          reader: prepared.reader,
          all: (parameters) => prepared.all(bindable(parameters)),
          run: (parameters) => prepared.run(bindable(parameters)),
          iterate: (parameters) => prepared.iterate(bindable(parameters)),
        };
        if (statements.size >= 500) statements.clear();
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/** The SQLite database file and the two that WAL mode keeps beside it. */
export function sqliteFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`];
}

/**
 * Opens the database named by the config: PostgreSQL when DATABASE_URL is set, otherwise the
 * SQLite file DATA_DIR/perch.db (WAL, foreign keys, busy timeout), which with its -wal and -shm
 * only Perch's user may read (0600; DATA_DIR 0700 when Perch creates it).
 */
export function createDb(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>,
  options: DbOptions = {},
): Db {
  if (config.DATABASE_URL) {
    const pool = new (loadPg().Pool)({ connectionString: config.DATABASE_URL, max: 10 });
    // An idle client whose connection drops (a PostgreSQL restart, a network cut) emits 'error'
    // on the pool; unhandled, that would end the process. The pool drops that client and the
    // next query opens a new connection, so it is only worth a line on stderr.
    pool.on('error', (error) => {
      console.error(`PostgreSQL: an idle connection failed (${error.message}); it is replaced`);
    });
    // A client in use whose session PostgreSQL ends between two statements (the idle timeout
    // below, seen once its process wakes; a restart) emits 'error' on itself, where the pool
    // does not listen: that would end the process too. The next statement on it fails instead,
    // and the pool drops the client when it comes back, so there is nothing to add here.
    pool.on('connect', (client) => {
      client.on('error', () => {});
      keepMarkedPrepared(client);
    });
    const idleTimeout = `${options.idleInTransactionTimeoutMs ?? IDLE_IN_TRANSACTION_TIMEOUT_MS}ms`;
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool,
        // Set by a query on each new connection rather than as a startup parameter, which
        // connection poolers such as PgBouncer refuse unless told to ignore it.
        onCreateConnection: async (connection) => {
          await connection.executeQuery(
            CompiledQuery.raw(
              "select set_config('idle_in_transaction_session_timeout', $1, false)",
              [idleTimeout],
            ),
          );
        },
      }),
    });
    const { host, pathname } = new URL(config.DATABASE_URL);
    return {
      db,
      dialect: 'postgres',
      location: `postgres://${host}${pathname}`,
      close: () => db.destroy(),
    };
  }
  ensurePrivateDir(config.DATA_DIR);
  const file = path.join(config.DATA_DIR, 'perch.db');
  // SQLite makes the -wal and -shm files with the mode of the database file, so that one is
  // owner-only before SQLite first opens it; files left by an earlier version are narrowed too.
  createPrivateFile(file);
  for (const part of sqliteFiles(file)) restrictFile(part);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  // With a checkpointer, SQLite's own checkpoint inside a commit is only the fallback.
  if (options.checkpointer) sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  for (const part of sqliteFiles(file)) restrictFile(part);
  const checkpointer = options.checkpointer ? startCheckpointer(file) : undefined;
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: sqliteForKysely(sqlite) }),
  });
  return {
    db,
    dialect: 'sqlite',
    location: file,
    // The server's connection closes last: it checkpoints what is left and removes the WAL.
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

export type { Database } from './types.js';
