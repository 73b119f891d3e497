/**
 * The operator CLI's backup and restore, on real files: a backup taken by a CLI process while
 * the app collects and delivers, its restore into an empty DATA_DIR, and every refusal.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDb, type TestDb } from '../../test/helpers.js';
import { createDb } from '../db/index.js';
import { migrateToLatest } from '../db/migrate.js';
import { findUserByLogin } from '../modules/users/users.repository.js';
import {
  buildNotifyTestApp,
  handleFollowedBy,
  monitorFinds,
  outboxCounts,
  tweetsInOrder,
  userWithChannels,
  waitUntil,
  type NotifyTestApp,
} from '../../test/notify-helpers.js';
import { runCli } from './run-cli.js';

const exec = promisify(execFile);
const serverDir = fileURLToPath(new URL('../..', import.meta.url));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in this process with exactly `env`; returns what it printed. */
async function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const keep =
    (into: string[]) =>
    (...parts: unknown[]) =>
      void into.push(parts.join(' '));
  const spies = [
    vi.spyOn(console, 'log').mockImplementation(keep(out)),
    vi.spyOn(console, 'warn').mockImplementation(keep(err)),
    vi.spyOn(console, 'error').mockImplementation(keep(err)),
  ];
  try {
    const code = await runCli(args, { LOG_LEVEL: 'silent', ...env });
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** Runs the CLI as its own process, as an operator does beside the running server. */
async function cliProcess(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await exec(
      process.execPath,
      ['--conditions=@perch/source', '--import', 'tsx', 'src/cli.ts', ...args],
      { cwd: serverDir, env: { ...process.env, DATABASE_URL: '', SECRET_KEY: '', ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-backup-test-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every table of a SQLite file: its schema, and its rows (as JSON, sorted). */
function contentsOf(file: string) {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const schema = db
      .prepare('select type, name, tbl_name, sql from sqlite_master order by type, name')
      .all() as { type: string; name: string }[];
    const rows: Record<string, string[]> = {};
    for (const { name } of schema.filter((entry) => entry.type === 'table')) {
      rows[name] = db
        .prepare(`select * from "${name}"`)
        .all()
        .map((row) => JSON.stringify(row))
        .sort();
    }
    return { schema, rows };
  } finally {
    db.close();
  }
}

/** What SQLite's own checks say of a file: integrity, and rows whose foreign keys dangle. */
function checksOf(file: string) {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      danglingForeignKeys: db.pragma('foreign_key_check'),
    };
  } finally {
    db.close();
  }
}

/** A value of one row of one table, read from a SQLite file. */
function scalar(file: string, query: string): number {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(query).pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('backup while Perch collects and delivers, restore into an empty DATA_DIR [sqlite]', () => {
  let t: NotifyTestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('copies one instant of the database, and the restore holds exactly that copy', async () => {
    t = await buildNotifyTestApp('sqlite', { fast: true });
    const app = t;
    // Delivery: a Telegram reader of a handle whose new tweets keep arriving.
    const { client, userId } = await userWithChannels(app, 'reader', { telegram: '500001' });
    expect((await client.post('/api/v1/bot/start')).statusCode).toBe(200);
    const watchedId = await handleFollowedBy(app, 'busy_author', [userId], { telegram: true });
    await app.worker.start();
    // Collection: the demo source's backfill of handles that post 2,000 tweets a day.
    const collect = async (username: string) => {
      const added = await client.post('/api/v1/handles', { username, backfill_days: 3 });
      expect(added.statusCode, added.body).toBe(201);
    };
    await collect('bench_before');

    // A pair of tables the test writes in one transaction per step: a copy of one instant has
    // as many probe rows as the counter says.
    await sql`create table backup_probe (seq integer primary key, at text not null)`.execute(
      app.db.db,
    );
    await sql`create table backup_probe_count (n integer not null)`.execute(app.db.db);
    await sql`insert into backup_probe_count (n) values (0)`.execute(app.db.db);
    let written = 0;
    let writing = true;
    let copied = 0;
    const writer = (async () => {
      while (writing) {
        await app.db.db.transaction().execute(async (trx) => {
          await sql`insert into backup_probe (seq, at) values (${written + 1}, ${new Date().toISOString()})`.execute(
            trx,
          );
          await sql`update backup_probe_count set n = n + 1`.execute(trx);
        });
        written += 1;
        if (written % 20 === 1) await monitorFinds(app, watchedId, tweetsInOrder(1));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();

    try {
      const liveTweets = () =>
        app.db.db
          .selectFrom('tweets')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
      await waitUntil(async () => (await liveTweets()).n > 1_000, 30_000, 'collection');
      await waitUntil(async () => ((await outboxCounts(app)).sent ?? 0) > 0, 30_000, 'delivery');

      const marker = written;
      // A second backfill runs while the backup process starts and copies.
      await collect('bench_during');
      const backupFile = path.join(tempDir(), 'perch-backup.db');
      const backup = await cliProcess({ DATA_DIR: app.config.DATA_DIR }, 'backup', backupFile);
      const afterBackup = written;
      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout).toContain(`to ${backupFile}`);
      expect(backup.stdout).toMatch(/secret\.key/);

      // Writing went on all along, and the copy holds one instant between the marker and now.
      expect(afterBackup).toBeGreaterThan(marker);
      expect(fs.statSync(backupFile).mode & 0o777).toBe(0o600);
      expect(checksOf(backupFile)).toEqual({ integrity: 'ok', danglingForeignKeys: [] });
      copied = scalar(backupFile, 'select count(*) from backup_probe');
      expect(copied).toBe(scalar(backupFile, 'select n from backup_probe_count'));
      expect(copied).toBe(scalar(backupFile, 'select max(seq) from backup_probe'));
      expect(copied).toBeGreaterThanOrEqual(marker);
      expect(copied).toBeLessThanOrEqual(afterBackup);
      expect(scalar(backupFile, 'select count(*) from tweets')).toBeGreaterThan(1_000);
      expect(
        scalar(backupFile, "select count(*) from notification_outbox where status = 'sent'"),
      ).toBeGreaterThan(0);
      // A file of its own: no -wal or -shm beside it.
      expect(fs.readdirSync(path.dirname(backupFile))).toEqual(['perch-backup.db']);

      const target = path.join(tempDir(), 'data');
      const restored = await cli({ DATA_DIR: target }, 'restore', backupFile);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toContain(`into ${path.join(target, 'perch.db')}`);
      expect(restored.stderr).toContain('Warning: there is no');
      expect(fs.readdirSync(target)).toEqual(['perch.db']);

      const copy = contentsOf(backupFile);
      const restoredFile = path.join(target, 'perch.db');
      expect(contentsOf(restoredFile)).toEqual(copy);
      expect(checksOf(restoredFile)).toEqual({ integrity: 'ok', danglingForeignKeys: [] });
      expect(Object.keys(copy.rows)).toEqual(
        expect.arrayContaining(['tweets', 'handles', 'users', 'notification_outbox']),
      );

      // Into a DATA_DIR in use, or one just restored: refused, nothing touched.
      for (const dataDir of [app.config.DATA_DIR, target]) {
        const refused = await cli({ DATA_DIR: dataDir }, 'restore', backupFile);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain(`DATA_DIR ${dataDir} is not empty (`);
        expect(refused.stderr).toContain('perch.db');
      }
      expect(contentsOf(restoredFile)).toEqual(copy);

      // Perch starts on it: nothing left to migrate, the reader is there.
      const reopened = createDb({ DATA_DIR: target, DATABASE_URL: undefined });
      try {
        expect(await migrateToLatest(reopened)).toEqual([]);
        expect(await findUserByLogin(reopened.db, 'reader')).toMatchObject({ id: userId });
      } finally {
        await reopened.close();
      }
    } finally {
      writing = false;
      await writer;
    }
    // The live database went on past the instant copied.
    const live = await sql<{ n: number }>`select count(*) as n from backup_probe`.execute(
      app.db.db,
    );
    expect(live.rows[0]!.n).toBeGreaterThan(copied);
  }, 120_000);
});

describe('backup and restore refuse what they cannot do [sqlite]', () => {
  let db: TestDb;
  let backupFile: string;
  beforeAll(async () => {
    db = await createTestDb('sqlite');
    backupFile = path.join(tempDir(), 'perch.db');
    const made = await cli({ DATA_DIR: db.config.DATA_DIR }, 'backup', backupFile);
    expect(made.code, made.stderr).toBe(0);
  });
  afterAll(() => db.dispose());

  it('backs up to a new file only, and only a database that exists', async () => {
    const again = await cli({ DATA_DIR: db.config.DATA_DIR }, 'backup', backupFile);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('exists') });

    const noFolder = path.join(tempDir(), 'missing', 'perch.db');
    const nowhere = await cli({ DATA_DIR: db.config.DATA_DIR }, 'backup', noFolder);
    expect(nowhere).toMatchObject({ code: 1, stderr: expect.stringContaining('does not exist') });

    const empty = tempDir();
    const nothing = await cli({ DATA_DIR: empty }, 'backup', path.join(tempDir(), 'x.db'));
    expect(nothing).toMatchObject({ code: 1, stderr: expect.stringContaining('no database at') });
    expect(fs.readdirSync(empty)).toEqual([]);

    const usage = await cli({ DATA_DIR: empty }, 'backup');
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage:') });
  });

  it('takes a relative file name from the folder the command was typed in (npm: INIT_CWD)', async () => {
    const typedIn = tempDir();
    const env = { DATA_DIR: db.config.DATA_DIR, INIT_CWD: typedIn };
    const made = await cli(env, 'backup', 'relative.db');
    expect(made.code, made.stderr).toBe(0);
    expect(fs.readdirSync(typedIn)).toEqual(['relative.db']);
    const target = path.join(tempDir(), 'data');
    const restored = await cli({ DATA_DIR: target, INIT_CWD: typedIn }, 'restore', 'relative.db');
    expect(restored.code, restored.stderr).toBe(0);
    expect(contentsOf(path.join(target, 'perch.db'))).toEqual(
      contentsOf(path.join(typedIn, 'relative.db')),
    );
  });

  it('restores only a Perch database this build knows, and says why not', async () => {
    const folder = tempDir();
    const text = path.join(folder, 'notes.txt');
    fs.writeFileSync(
      text,
      'not a database, but long enough to have a header of sorts\n'.repeat(20),
    );
    const other = path.join(folder, 'other.db');
    new SQLite(other).exec('create table things (id integer primary key)').close();
    const newer = path.join(folder, 'newer.db');
    fs.copyFileSync(backupFile, newer);
    new SQLite(newer)
      .exec("insert into kysely_migration (name, timestamp) values ('9999-from-the-future', 'x')")
      .close();

    for (const [file, reason] of [
      [text, 'is not a SQLite database'],
      [other, "is a SQLite database but not Perch's (it has no kysely_migration table)"],
      [
        newer,
        'comes from a newer Perch: this one does not know its migrations 9999-from-the-future',
      ],
      [path.join(folder, 'absent.db'), 'there is no file'],
    ] as const) {
      const target = path.join(tempDir(), 'data');
      const result = await cli({ DATA_DIR: target }, 'restore', file);
      expect(result.code, file).toBe(1);
      expect(result.stderr).toContain(reason);
      expect(fs.existsSync(path.join(target, 'perch.db'))).toBe(false);
    }
  });

  it('restores beside a kept secret.key, and warns only when no key is there', async () => {
    const withKeyFile = tempDir();
    fs.writeFileSync(path.join(withKeyFile, 'secret.key'), `${'k'.repeat(43)}\n`, { mode: 0o600 });
    const besideKey = await cli({ DATA_DIR: withKeyFile }, 'restore', backupFile);
    expect(besideKey).toMatchObject({ code: 0, stderr: '' });
    expect(fs.readdirSync(withKeyFile).sort()).toEqual(['perch.db', 'secret.key']);

    const withSecretKey = await cli(
      { DATA_DIR: path.join(tempDir(), 'data'), SECRET_KEY: 's'.repeat(40) },
      'restore',
      backupFile,
    );
    expect(withSecretKey).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('backup and restore on PostgreSQL print the commands', () => {
  const DATABASE_URL = 'postgres://perch:s3cret-pw@db.internal:5432/perch?sslmode=require';
  const shownUrl = "'postgres://perch@db.internal:5432/perch?sslmode=require'";

  it('backup: pg_dump and pg_restore, without the password', async () => {
    const result = await cli({ DATA_DIR: tempDir(), DATABASE_URL }, 'backup', 'perch.dump');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `  pg_dump --format=custom --file=perch.dump --dbname=${shownUrl}`,
    );
    expect(result.stdout).toContain(
      `  pg_restore --no-owner --exit-on-error --dbname=${shownUrl} perch.dump`,
    );
    expect(result.stdout).toContain('PGPASSWORD or in ~/.pgpass');
    expect(result.stdout).toMatch(/secret\.key/);
    expect(`${result.stdout}${result.stderr}`).not.toContain('s3cret-pw');
  });

  it('restore: pg_restore, and a warning when the secret key is missing', async () => {
    const dataDir = tempDir();
    const result = await cli({ DATA_DIR: dataDir, DATABASE_URL }, 'restore', 'perch.dump');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `  pg_restore --no-owner --exit-on-error --dbname=${shownUrl} perch.dump`,
    );
    expect(result.stderr).toContain(`Warning: there is no ${path.join(dataDir, 'secret.key')}`);
    expect(`${result.stdout}${result.stderr}`).not.toContain('s3cret-pw');
    expect(fs.readdirSync(dataDir)).toEqual([]);

    const withKey = await cli(
      { DATA_DIR: dataDir, DATABASE_URL, SECRET_KEY: 's'.repeat(40) },
      'backup',
      'perch.dump',
    );
    expect(withKey.stdout).toContain('Keep SECRET_KEY as well');
    const restoreWithKey = await cli(
      { DATA_DIR: dataDir, DATABASE_URL, SECRET_KEY: 's'.repeat(40) },
      'restore',
      'perch.dump',
    );
    expect(restoreWithKey.stderr).toBe('');
  });

  it('both are in the usage text', async () => {
    const help = await cli({}, '--help');
    expect(help.stdout).toContain('backup <file>');
    expect(help.stdout).toContain('restore <file>');
  });
});
