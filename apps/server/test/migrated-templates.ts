/**
 * Test databases start as copies of one database migrated per test process, rather than running
 * every migration anew for each: a SQLite file is copied, a PostgreSQL schema is made from the
 * SQL that pg_dump wrote of a migrated one. createTestDb checks each copy's migration history.
 *
 * A PostgreSQL schema a test is done with is kept for the next one of the same process when its
 * tables, columns, indexes and functions are still the template's: renamed, emptied and given
 * the template's rows again in one round trip, about 25 ms where making a schema and dropping it
 * took 270 ms (docs/benchmarks.md, "The whole suite"). The rename comes first, so a process a
 * test left behind, still working by the old name, finds nothing to write to.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { withClient } from './pg-client.js';

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
  /**
   * Empties a schema the template's SQL made and puts the template's rows and sequence values
   * back, in the schema named NAME; undefined when schemas are not kept (the database user is
   * not a superuser, which emptying with the triggers and foreign keys off needs).
   */
  refill: string | undefined;
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

/**
 * Connections to `base` for making, emptying and dropping schemas, kept between tests (opening
 * one costs about 20 ms); idle, they do not hold the test process open.
 */
const adminPools = new Map<string, pg.Pool>();

function admin(base: string): pg.Pool {
  let pool = adminPools.get(base);
  if (!pool) {
    pool = new pg.Pool({ connectionString: base, max: 1, allowExitOnIdle: true });
    // A connection the server ends while idle is opened again at the next query.
    pool.on('error', () => undefined);
    adminPools.set(base, pool);
  }
  return pool;
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
      const superuser = await withClient(
        base,
        async (client) =>
          (
            await client.query<{ super: boolean }>(
              'select rolsuper as super from pg_roles where rolname = current_user',
            )
          ).rows[0]?.super === true,
      );
      return { sql, name, refill: superuser ? refillScript(sql, name) : undefined };
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
export async function createMigratedSchema(
  base: string,
  schema: string,
  { fresh = false }: { fresh?: boolean } = {},
): Promise<boolean> {
  const script = await postgresScript(base);
  const kept = fresh ? undefined : spareSchemas.pop();
  if (kept && script?.refill) {
    try {
      // One implicit transaction: when anything fails, the kept schema is left as it was.
      await admin(base).query(
        `alter schema ${kept} rename to ${schema};\n${script.refill.split(NAME).join(schema)}`,
      );
      return true;
    } catch {
      await admin(base).query(`drop schema if exists ${kept} cascade`);
    }
  }
  await admin(base).query(
    script ? script.sql.split(script.name).join(schema) : `create schema ${schema}`,
  );
  if (script?.refill) madeCounts ??= (await stateOf(base, schema)).counts;
  return script !== undefined;
}

/**
 * Gives back a schema of `base` a test is done with (its connections closed): kept for the next
 * test of this process when it is as the template's SQL made it, bar its rows, and holds little;
 * else dropped.
 */
export async function releaseSchema(base: string, schema: string): Promise<void> {
  const script = await postgresTemplate;
  if (testRun() !== undefined && script?.refill && spareSchemas.length < MAX_SPARE_SCHEMAS) {
    const state = await stateOf(base, schema);
    if (state.versions === 1 && state.counts === madeCounts && state.bytes <= MAX_KEPT_BYTES) {
      spareSchemas.push(schema);
      return;
    }
  }

  await admin(base).query(`drop schema if exists ${schema} cascade`);
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's name (test/global-setup.ts): its schemas start with `t_<name>_`. */
    perchTestRun: string;
  }
}

/**
 * The run's name, when the server project's global setup gave one: schemas are kept between
 * tests only then, for its teardown drops what the test processes kept at the end.
 */
export function testRun(): string | undefined {
  try {
    return inject('perchTestRun');
  } catch {
    // Outside a test of a project with that setup (the scale-out config).
    return undefined;
  }
}

/** Schemas kept for the next tests of this process. */
const spareSchemas: string[] = [];
/** What the template's SQL makes (SchemaState.counts), read from the first schema made. */
let madeCounts: string | undefined;
/** A test runs one or two databases at a time. */
const MAX_SPARE_SCHEMAS = 4;
/**
 * A schema that grew past this (a fresh one takes about 1 MB; a test stored thousands of posts) is
 * dropped rather than emptied: its deleted rows would slow the next test's reads until vacuumed.
 */
const MAX_KEPT_BYTES = 8 * 1024 * 1024;
/** Where the refill script names its schema. */
const NAME = '__perch_schema__';

/**
 * The statements that empty a schema the template's SQL made and refill it: every table's rows
 * deleted, with its triggers and foreign-key checks off meanwhile (`session_replication_role`,
 * superusers only), then pg_dump's TABLE DATA and SEQUENCE SET
 * entries of the template. A deleted row leaves dead space, which MAX_KEPT_BYTES bounds.
 */
function refillScript(sql: string, name: string): string {
  const tables: string[] = [];
  const data: string[] = [];
  let keep = false;
  for (const line of sql.split('\n')) {
    const entry = /^-- (?:Data for )?Name: ([^;]+); Type: ([^;]+); Schema:/.exec(line);
    if (entry) {
      if (entry[2] === 'TABLE') tables.push(entry[1]!);
      keep = entry[2] === 'TABLE DATA' || entry[2] === 'SEQUENCE SET';
      continue;
    }
    // Whole lines as pg_dump wrote them (a value may span lines); its comments are SQL ones.
    if (keep) data.push(line);
  }
  return [
    // Undone with the rest when a statement fails: the whole query is one transaction.
    'set session_replication_role = replica;',
    ...tables.map((table) => `delete from ${NAME}.${table};`),
    ...data.map((line) => line.split(`${name}.`).join(`${NAME}.`)),
    'set session_replication_role = default;',
  ].join('\n');
}

/** What releaseSchema looks at in a schema: one query of the catalogs. */
interface SchemaState {
  /** How many relations, columns, constraints, triggers and functions it has. */
  counts: string;
  /**
   * How many transactions wrote its catalog rows: 1 for a schema made in one and never altered
   * (a rename writes only the schema's own row; ANALYZE and VACUUM update rows in place). Any
   * DDL since (a migration down, an index dropped and made again) writes rows of its own.
   */
  versions: number;
  /** The bytes its tables take, indexes included. */
  bytes: number;
}

async function stateOf(base: string, schema: string): Promise<SchemaState> {
  const { rows } = await admin(base).query<{
    counts: string;
    versions: string;
    bytes: string | null;
  }>(
    `with rels as (select oid, xmin from pg_class where relnamespace = $1::regnamespace)
     select
       concat_ws('/',
         (select count(*) from rels),
         (select count(*) from pg_attribute
           where attrelid in (select oid from rels) and attnum > 0 and not attisdropped),
         (select count(*) from pg_constraint where connamespace = $1::regnamespace),
         (select count(*) from pg_trigger where tgrelid in (select oid from rels)),
         (select count(*) from pg_proc where pronamespace = $1::regnamespace)) as counts,
       (select count(distinct v) from (
         select xmin::text as v from rels
         union all select xmin::text from pg_attribute where attrelid in (select oid from rels)
         union all select xmin::text from pg_attrdef where adrelid in (select oid from rels)
         union all select xmin::text from pg_index where indexrelid in (select oid from rels)
         union all select xmin::text from pg_constraint where connamespace = $1::regnamespace
         union all select xmin::text from pg_trigger where tgrelid in (select oid from rels)
         union all select xmin::text from pg_proc where pronamespace = $1::regnamespace
       ) written) as versions,
       (select sum(pg_total_relation_size(oid)) from pg_class
         where relnamespace = $1::regnamespace and relkind = 'r') as bytes`,
    [schema],
  );
  const row = rows[0];
  return {
    counts: row?.counts ?? '',
    versions: Number(row?.versions ?? 0),
    bytes: Number(row?.bytes ?? 0),
  };
}
