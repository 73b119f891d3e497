import { Migrator, sql, type Kysely, type MigrationResultSet } from 'kysely';
import type { Database, Db } from './index.js';
import { migrations } from './migrations/index.js';
import { commitOrRollback } from './queries.js';

/** How long a starter waits for another process's SQLite migration before giving up. */
const SQLITE_LOCK_WAIT_MS = 30_000;

function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(
    db,
  );
  return rows[0]?.schema ?? undefined;
}

async function runMigrator(migrator: Migrator): Promise<string[]> {
  return applied(await migrator.migrateToLatest());
}

/** The names of the migrations a run applied; throws its error when it failed. */
function applied({ error, results }: MigrationResultSet): string[] {
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Kysely takes no lock on SQLite (it assumes one connection per database), so two processes
 * starting at once would both run the same DDL. The whole run happens inside BEGIN IMMEDIATE,
 * the database-wide writer lock: a second starter waits for it, then finds nothing left to do.
 * The busy timeout is lifted meanwhile, because better-sqlite3 waits for a lock synchronously
 * and would block the event loop (and the holder, when both live in one process).
 */
async function migrateSqlite(db: Kysely<Database>, migrator: Migrator): Promise<string[]> {
  const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db);
  const busyTimeout = rows[0]?.timeout ?? 0;
  await sql`pragma busy_timeout = 0`.execute(db);
  try {
    const deadline = Date.now() + SQLITE_LOCK_WAIT_MS;
    for (;;) {
      try {
        await sql`begin immediate`.execute(db);
        break;
      } catch (error) {
        if (!isSqliteBusy(error) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25 + Math.random() * 50));
      }
    }
    return await commitOrRollback(db, () => runMigrator(migrator));
  } finally {
    await sql.raw(`pragma busy_timeout = ${Number(busyTimeout)}`).execute(db);
  }
}

/**
 * Brings the schema up to date and returns the names of the migrations it applied. Idempotent,
 * and safe when several processes start at once: Postgres serialises through Kysely's advisory
 * lock, SQLite through its writer lock (see migrateSqlite).
 */
export async function migrateToLatest({ db, dialect }: Db): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(dialect) },
    // Kysely looks for its bookkeeping tables in every schema unless told which one: with a
    // search_path of its own (one database, several Perch schemas) it would find another
    // schema's tables and never create its own. Pin them to the schema the app writes to.
    migrationTableSchema: dialect === 'postgres' ? await currentSchema(db) : undefined,
  });
  return dialect === 'sqlite' ? migrateSqlite(db, migrator) : migratePostgres(migrator);
}

/** Tries of a PostgreSQL migration that met a schema dropped under it (see below). */
const POSTGRES_SCHEMA_RACE_TRIES = 20;

/**
 * What PostgreSQL answers a listing of its catalog that another session's DDL changed under it:
 * a schema dropped ('schema ... does not exist', 3F000), a table renamed or dropped, or its
 * columns changed (42P01, 42703).
 */
const CATALOG_RACE_CODES = new Set(['3F000', '42P01', '42703']);

/**
 * Kysely's migrator lists the tables and columns of every schema it may see, and PostgreSQL
 * fails that listing when another tenant of the database drops its schema, or migrates its own
 * tables, in the middle of it. Nothing of ours changed then (the migrations run in one
 * transaction, and the listing comes before them), so the run is simply tried again.
 */
async function migratePostgres(migrator: Migrator): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest();
    if (result.error && metCatalogRace(result) && attempt < POSTGRES_SCHEMA_RACE_TRIES) continue;
    return applied(result);
  }
}

/**
 * Whether a failed run met another session's DDL rather than a fault of its own: a schema
 * dropped wherever it was met, or a table or column changed under the listing that comes
 * before any migration runs (a migration of ours that fails is not retried).
 */
export function metCatalogRace({ error, results }: MigrationResultSet): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === '3F000') return true;
  return (
    typeof code === 'string' &&
    CATALOG_RACE_CODES.has(code) &&
    !(results ?? []).some((result) => result.status === 'Error')
  );
}
