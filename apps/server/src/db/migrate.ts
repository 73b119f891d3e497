import { Migrator, sql } from 'kysely';
import type { Db } from './index.js';
import { migrations } from './migrations/index.js';

const SQLITE_BUSY_RETRIES = 20;

function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

async function currentSchema(db: Db['db']): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}

/**
 * Brings the schema up to date. Idempotent, and safe when several processes start at once:
 * Postgres serialises through Kysely's lock row; SQLite's writer lock makes a second starter
 * fail fast with SQLITE_BUSY, so it waits and tries again, then finds nothing left to do.
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
  for (let attempt = 0; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (dialect !== 'sqlite' || !isSqliteBusy(error) || attempt >= SQLITE_BUSY_RETRIES) throw error;
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
  }
}
