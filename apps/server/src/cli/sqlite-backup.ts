/**
 * Backups of the embedded database (DATA_DIR/perch.db) with SQLite's online backup API, and
 * their restore. The copy is taken in one backup step, which reads one snapshot under a single
 * read transaction: in WAL mode the running server keeps writing meanwhile, and the copy is the
 * database as it was at one instant. (Steps of a few pages each would restart whenever the
 * server writes between two of them, which under steady collection may be forever.)
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { PRIVATE_FILE_MODE } from '../lib/private-files.js';

/** The database file in DATA_DIR, as createDb (db/index.ts) names it. */
export const SQLITE_FILE = 'perch.db';

/** The table Kysely's migrator records applied migrations in. */
const MIGRATION_TABLE = 'kysely_migration';

/** Pages per backup step: all of them, so the copy is one snapshot (see the header). */
const ALL_PAGES = 0x7fffffff;

/** How long the copy waits for a lock SQLite holds briefly (WAL recovery, a checkpoint). */
const BUSY_TIMEOUT_MS = 5_000;

export interface SnapshotResult {
  /** When the snapshot was read (ISO 8601). */
  takenAt: string;
  /** Size of the backup file in bytes. */
  bytes: number;
}

/** A path next to `file` for the copy in progress, renamed to `file` once complete. */
function partialPath(file: string): string {
  return `${file}.${process.pid}.partial`;
}

/** Copies `source` into `destination` with the backup API, then `finish` on the copy. */
async function copyDatabase(
  source: SQLite.Database,
  destination: string,
  finish: (copy: SQLite.Database) => void,
): Promise<void> {
  const partial = partialPath(destination);
  try {
    // Made first, so the copy (password hashes, sessions, sealed credentials) is never readable
    // by others, not even while it is written.
    fs.writeFileSync(partial, '', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    fs.chmodSync(partial, PRIVATE_FILE_MODE);
    await source.backup(partial, { progress: () => ALL_PAGES });
    const copy = new SQLite(partial, { fileMustExist: true });
    try {
      finish(copy);
    } finally {
      copy.close();
    }
    // Checked again: a file made since the caller looked (a server started on an empty
    // DATA_DIR) is not replaced.
    if (fs.existsSync(destination)) throw new Error(`${destination} appeared meanwhile; kept it`);
    fs.renameSync(partial, destination);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * Writes a consistent copy of the SQLite database `source` to `destination` (which must not
 * exist), while other processes keep using it. The copy is one self-contained file (rollback
 * journal, no -wal beside it).
 */
export async function snapshotSqlite(source: string, destination: string): Promise<SnapshotResult> {
  const db = new SQLite(source, { fileMustExist: true });
  let takenAt = '';
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    takenAt = new Date().toISOString();
    await copyDatabase(db, destination, (copy) => {
      copy.pragma('journal_mode = DELETE');
    });
  } finally {
    db.close();
  }
  return { takenAt, bytes: fs.statSync(destination).size };
}

export interface BackupInspection {
  /** Migrations the backup records as applied, in order. */
  migrations: string[];
  /** Of those, the ones this build does not know: the backup comes from a newer Perch. */
  unknownMigrations: string[];
  /** What `pragma integrity_check` found: `['ok']` when nothing. */
  integrity: string[];
}

/** The file is not a SQLite database, or not Perch's. */
export class NotAPerchBackupError extends Error {}

function hasMigrationTable(db: SQLite.Database, file: string): boolean {
  try {
    const table = db
      .prepare("select 1 from sqlite_master where type = 'table' and name = ?")
      .get(MIGRATION_TABLE);
    return table !== undefined;
  } catch (error) {
    // SQLite reads the file's header only at the first query: SQLITE_NOTADB shows up here.
    throw new NotAPerchBackupError(
      `${file} is not a SQLite database (${(error as Error).message})`,
    );
  }
}

/**
 * Reads what restore must know of a backup file: its applied migrations (compared with
 * `knownMigrations`, this build's) and its integrity. Throws NotAPerchBackupError when the file
 * is not a SQLite database or not Perch's.
 */
export function inspectSqliteBackup(file: string, knownMigrations: string[]): BackupInspection {
  let db: SQLite.Database;
  try {
    db = new SQLite(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new NotAPerchBackupError(`${file} cannot be opened: ${(error as Error).message}`);
  }
  try {
    if (!hasMigrationTable(db, file)) {
      throw new NotAPerchBackupError(
        `${file} is a SQLite database but not Perch's (it has no ${MIGRATION_TABLE} table)`,
      );
    }
    const migrations = db
      .prepare(`select name from ${MIGRATION_TABLE} order by name`)
      .pluck()
      .all() as string[];
    const known = new Set(knownMigrations);
    const integrity = db.pragma('integrity_check', { simple: false }) as {
      integrity_check: string;
    }[];
    return {
      migrations,
      unknownMigrations: migrations.filter((name) => !known.has(name)),
      integrity: integrity.map((row) => row.integrity_check),
    };
  } finally {
    db.close();
  }
}

/**
 * Copies the backup `file` to `dataDir`/perch.db (which must not exist), with the backup API
 * too: it reads the backup through SQLite, whatever its journal mode.
 */
export async function restoreSqlite(file: string, dataDir: string): Promise<string> {
  const target = path.join(dataDir, SQLITE_FILE);
  const backup = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    await copyDatabase(backup, target, () => {});
  } finally {
    backup.close();
  }
  return target;
}
