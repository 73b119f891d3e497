/**
 * Test databases start as copies of one database migrated per test process, rather than running
 * every migration anew for each: a SQLite file is copied, a PostgreSQL schema is made from the
 * SQL that pg_dump wrote of a migrated one. createTestDb checks each copy's migration history.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';

const run = promisify(execFile);

let sqliteTemplate: Promise<string> | undefined;

/** A SQLite database file at the latest migration, to copy (a millisecond). */
export function migratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-test-template-'));
    process.once('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const db = createDb(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '' }));
    await migrateToLatest(db);
    // Closing checkpoints the WAL into the file and removes it: the file alone is the database.
    await db.close();
    return db.location;
  })();
  return sqliteTemplate;
}

/** The template schema's SQL and the name it uses, or none where pg_dump is not at hand. */
interface SchemaScript {
  sql: string;
  name: string;
}

let postgresTemplate: Promise<SchemaScript | undefined> | undefined;

/**
 * A URL of `base` whose sessions work in `schema`. Their commits do not wait for the WAL to reach
 * the disk (`synchronous_commit=off`): what a session sees is the same, only a crash of the
 * PostgreSQL server itself could lose the last commits, and the PostgreSQL tests took 8% less
 * time (docs/benchmarks.md, "The whole suite").
 */
export function schemaUrl(base: string, schema: string): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
  return url.toString();
}

/** Runs `work` on a connection of its own to `base`, closed afterwards. */
export async function withClient<T>(
  base: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Migrates a schema of its own once, has pg_dump write it as SQL (its rows as INSERTs, among them
 * the migrator's history) and drops it again. Without pg_dump, or with one older than the server,
 * each schema is migrated as before.
 */
function postgresScript(base: string): Promise<SchemaScript | undefined> {
  postgresTemplate ??= (async () => {
    const name = `tpl_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    await withClient(base, (client) => client.query(`create schema ${name}`));
    try {
      const db = createDb(
        loadConfig({
          DATA_DIR: os.tmpdir(),
          LOG_LEVEL: 'silent',
          DATABASE_URL: schemaUrl(base, name),
        }),
      );
      try {
        await migrateToLatest(db);
      } finally {
        await db.close();
      }
      const { stdout } = await run(
        'pg_dump',
        ['--no-owner', '--no-privileges', '--inserts', `--schema=${name}`, base],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      // psql's own commands (\restrict) are not SQL; everything else runs as one statement list.
      const sql = stdout
        .split('\n')
        .filter((line) => !line.startsWith('\\'))
        .join('\n');
      return { sql, name };
    } catch {
      return undefined;
    } finally {
      await withClient(base, (client) => client.query(`drop schema if exists ${name} cascade`));
    }
  })();
  return postgresTemplate;
}

/**
 * Makes `schema` in the database of `base`: at the latest migration from the template's SQL, in
 * one round trip (one implicit transaction), and answers true; or, without a template, empty,
 * for the migrator to fill, and answers false.
 */
export async function createMigratedSchema(base: string, schema: string): Promise<boolean> {
  const script = await postgresScript(base);
  await withClient(base, (client) =>
    client.query(script ? script.sql.split(script.name).join(schema) : `create schema ${schema}`),
  );
  return script !== undefined;
}
