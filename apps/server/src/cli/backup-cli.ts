/**
 * `backup <file>` and `restore <file>`. On SQLite they copy DATA_DIR/perch.db with SQLite's
 * backup API (see sqlite-backup.ts); on PostgreSQL they print the pg_dump and pg_restore commands
 * (see postgres-backup.ts). Neither opens the app's connection nor runs the migrations: a backup
 * must not change what it copies, and restore starts from an empty DATA_DIR.
 *
 * The database is not all there is to keep: the secret key (DATA_DIR/secret.key, or SECRET_KEY)
 * seals stored credentials, so backup reminds of it and restore warns when it is missing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { migrations } from '../db/migrations/index.js';
import { ensurePrivateDir } from '../lib/private-files.js';
import { CommandError, UsageError } from './cli-errors.js';
import { postgresBackupCommands, shellQuote } from './postgres-backup.js';
import {
  NotAPerchBackupError,
  SQLITE_FILE,
  inspectSqliteBackup,
  restoreSqlite,
  snapshotSqlite,
} from './sqlite-backup.js';

/** The key file in DATA_DIR, as lib/token-cipher.ts names it. */
const SECRET_KEY_FILE = 'secret.key';

/** What the secret key seals (lib/token-cipher.ts): what a lost key costs the users. */
const SEALED =
  'the credentials Perch keeps sealed (X tokens, X web accounts, two-factor secrets, feed links)';

/** Whether `args` name a command of this module. */
export function isBackupCommand(args: string[]): boolean {
  return args[0] === 'backup' || args[0] === 'restore';
}

/** What to keep besides the backup, as the configuration says. */
function secretKeyReminder(config: Pick<Config, 'SECRET_KEY' | 'DATA_DIR'>): string {
  if (config.SECRET_KEY) {
    return `Keep SECRET_KEY as well (it is not in the backup): without it, ${SEALED} cannot be read.`;
  }
  const keyFile = path.join(config.DATA_DIR, SECRET_KEY_FILE);
  if (fs.existsSync(keyFile)) {
    return `Keep ${keyFile} as well (it is not in the backup): without it, ${SEALED} cannot be read.`;
  }
  return `There is no ${keyFile} yet (Perch makes it when it first seals a credential); once there is, keep it as well.`;
}

/** A warning when the restored data will meet no secret key, or undefined. */
function missingSecretKeyWarning(config: Pick<Config, 'SECRET_KEY' | 'DATA_DIR'>) {
  if (config.SECRET_KEY) return undefined;
  const keyFile = path.join(config.DATA_DIR, SECRET_KEY_FILE);
  if (fs.existsSync(keyFile)) return undefined;
  return (
    `Warning: there is no ${keyFile} and SECRET_KEY is unset. Before starting Perch, put the ` +
    `secret.key kept with the backup there (or set SECRET_KEY as before): otherwise Perch makes ` +
    `a new key, and ${SEALED} cannot be read.`
  );
}

/** The password note, when the printed commands left one out. */
function passwordNote(passwordLeftOut: boolean): string[] {
  return passwordLeftOut
    ? ['The password is not shown: give it with PGPASSWORD or in ~/.pgpass.']
    : [];
}

function printPostgresBackup(config: Config, file: string): void {
  const commands = postgresBackupCommands(config.DATABASE_URL ?? '', file);
  console.log(
    [
      'DATABASE_URL is PostgreSQL: back up with pg_dump, which reads one consistent snapshot',
      'while Perch runs:',
      `  ${commands.dump}`,
      'Restore it into a new, empty database, with Perch stopped:',
      `  ${commands.restore}`,
      ...passwordNote(commands.passwordLeftOut),
      secretKeyReminder(config),
    ].join('\n'),
  );
}

function printPostgresRestore(config: Config, file: string): void {
  const commands = postgresBackupCommands(config.DATABASE_URL ?? '', file);
  console.log(
    [
      'DATABASE_URL is PostgreSQL: restore with pg_restore into a new, empty database (createdb),',
      'with Perch stopped; Perch applies newer migrations when it starts:',
      `  ${commands.restore}`,
      ...passwordNote(commands.passwordLeftOut),
    ].join('\n'),
  );
  const warning = missingSecretKeyWarning(config);
  if (warning) console.warn(warning);
}

async function backupSqlite(config: Config, destination: string): Promise<void> {
  const source = path.join(config.DATA_DIR, SQLITE_FILE);
  if (!fs.existsSync(source)) {
    throw new CommandError(
      `there is no database at ${source}: set DATA_DIR to the folder the server uses`,
    );
  }
  if (fs.existsSync(destination)) {
    throw new CommandError(`${destination} exists: back up to a new file (a name with the date)`);
  }
  if (!fs.existsSync(path.dirname(destination))) {
    throw new CommandError(`the folder ${path.dirname(destination)} does not exist`);
  }
  const { takenAt, bytes } = await snapshotSqlite(source, destination);
  console.log(
    [
      `Backed up ${source} as it was at ${takenAt} to ${destination} (${megabytes(bytes)}).`,
      secretKeyReminder(config),
      `Restore with: npm run cli -- restore ${shellQuote(destination)} (into an empty DATA_DIR)`,
    ].join('\n'),
  );
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/** Refuses a DATA_DIR holding anything but the secret key: restore never overwrites. */
function checkEmptyDataDir(dataDir: string): void {
  if (!fs.existsSync(dataDir)) return;
  const present = fs.readdirSync(dataDir).filter((name) => name !== SECRET_KEY_FILE);
  if (present.length === 0) return;
  const shown = present.slice(0, 5).join(', ') + (present.length > 5 ? ', ...' : '');
  throw new CommandError(
    `DATA_DIR ${dataDir} is not empty (${shown}). Restore goes only into an empty DATA_DIR ` +
      `(secret.key may be there already), so nothing is overwritten: set DATA_DIR to a new ` +
      `folder, or stop Perch and move these files away.`,
  );
}

function inspectOrRefuse(file: string, known: string[]) {
  try {
    return inspectSqliteBackup(file, known);
  } catch (error) {
    if (error instanceof NotAPerchBackupError) throw new CommandError(error.message);
    throw error;
  }
}

/** The backup's migrations, checked against this build's; throws when it cannot be restored. */
function checkSqliteBackup(file: string) {
  const known = Object.keys(migrations('sqlite'));
  const inspection = inspectOrRefuse(file, known);
  if (inspection.unknownMigrations.length > 0) {
    throw new CommandError(
      `${file} comes from a newer Perch: this one does not know its migrations ` +
        `${inspection.unknownMigrations.join(', ')}. Restore it with that version or a later one.`,
    );
  }
  if (inspection.integrity.join() !== 'ok') {
    throw new CommandError(
      `${file} is damaged (integrity_check: ${inspection.integrity.slice(0, 3).join('; ')})`,
    );
  }
  return { pending: known.length - inspection.migrations.length };
}

async function restoreSqliteBackup(config: Config, backup: string): Promise<void> {
  if (!fs.existsSync(backup)) throw new CommandError(`there is no file ${backup}`);
  checkEmptyDataDir(config.DATA_DIR);
  const { pending } = checkSqliteBackup(backup);
  ensurePrivateDir(config.DATA_DIR);
  const target = await restoreSqlite(backup, config.DATA_DIR);
  console.log(
    [
      `Restored ${backup} into ${target}.`,
      ...(pending > 0 ? [`Perch applies the ${pending} newer migration(s) when it starts.`] : []),
    ].join('\n'),
  );
  const warning = missingSecretKeyWarning(config);
  if (warning) console.warn(warning);
}

/**
 * Runs `backup <file>` or `restore <file>` (args as given to the CLI). A relative file name is
 * taken from `cwd`: where the operator typed the command, which `npm run` passes as INIT_CWD
 * while it runs the CLI in Perch's folder.
 */
export async function runBackupCommand(config: Config, args: string[], cwd: string): Promise<void> {
  const [command, ...rest] = args;
  const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
  const [name] = positionals;
  if (!name || positionals.length > 1) throw new UsageError(`${command} needs one file name`);
  // pg_dump and pg_restore run in the operator's shell: they get the name as typed.
  const postgres = config.DATABASE_URL !== undefined;
  const file = path.resolve(cwd, name);
  if (command === 'backup' && postgres) printPostgresBackup(config, name);
  else if (command === 'backup') await backupSqlite(config, file);
  else if (postgres) printPostgresRestore(config, name);
  else await restoreSqliteBackup(config, file);
}
