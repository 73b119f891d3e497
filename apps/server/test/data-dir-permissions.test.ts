/**
 * Another local user cannot read the SQLite database, its -wal and -shm, or the secret key,
 * whatever umask Perch was started with.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDb, sqliteFiles } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { readOrCreateKeyFile } from '../src/lib/token-cipher.js';

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('DATA_DIR permissions', () => {
  let root: string;
  let umask: number;

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-perms-'));
    // The loosest common umask: without the chmods, files would come out 0644 or 0666.
    umask = process.umask(0o000);
  });

  afterEach(() => {
    process.umask(umask);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('makes perch.db, -wal and -shm 0600, and the DATA_DIR it creates 0700', async () => {
    const dataDir = path.join(root, 'nested', 'data');
    const db = createDb({ DATA_DIR: dataDir, DATABASE_URL: undefined });
    try {
      await migrateToLatest(db);
      const [file, wal, shm] = sqliteFiles(path.join(dataDir, 'perch.db'));
      expect(fs.statSync(wal!).size).toBeGreaterThan(0);
      expect([file, wal, shm].map((part) => modeOf(part!))).toEqual([0o600, 0o600, 0o600]);
      expect(modeOf(dataDir)).toBe(0o700);
    } finally {
      await db.close();
    }
  });

  it('narrows the files of an existing database and leaves an existing DATA_DIR alone', async () => {
    const dataDir = path.join(root, 'kept');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    const first = createDb({ DATA_DIR: dataDir, DATABASE_URL: undefined });
    await migrateToLatest(first);
    const parts = sqliteFiles(path.join(dataDir, 'perch.db'));
    // As an older version left them, readable by everybody; the -wal is kept open meanwhile.
    for (const part of parts) fs.chmodSync(part, 0o644);
    const second = createDb({ DATA_DIR: dataDir, DATABASE_URL: undefined });
    try {
      expect(parts.map(modeOf)).toEqual([0o600, 0o600, 0o600]);
      expect(modeOf(dataDir)).toBe(0o755);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('makes secret.key 0600 and narrows one readable by others', () => {
    const dataDir = path.join(root, 'keys');
    const secret = readOrCreateKeyFile(dataDir);
    const file = path.join(dataDir, 'secret.key');
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(dataDir)).toBe(0o700);
    fs.chmodSync(file, 0o644);
    expect(readOrCreateKeyFile(dataDir)).toBe(secret);
    expect(modeOf(file)).toBe(0o600);
  });
});
