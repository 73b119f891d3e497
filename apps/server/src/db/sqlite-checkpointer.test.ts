import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/helpers.js';
import { createDb, type Db } from './index.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES } from './sqlite-checkpointer.js';

describe('SQLite checkpoints on a thread of their own', () => {
  let dataDir: string;
  let db: Db;
  let file: string;

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-checkpoint-test-'));
    db = createDb({ DATA_DIR: dataDir, DATABASE_URL: undefined }, { checkpointer: true });
    file = db.location;
  });

  afterEach(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps the server connection's own checkpoint only as a fallback", async () => {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
      db.db,
    );
    expect(rows[0]?.wal_autocheckpoint).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
    await db.close();
  });

  it('leaves checkpoints to SQLite in a database opened without one (a CLI command, a test)', async () => {
    await db.close();
    const plain = createDb({ DATA_DIR: dataDir, DATABASE_URL: undefined });
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
      plain.db,
    );
    // SQLite's default: a checkpoint inside the commit that takes the WAL past 1,000 pages.
    expect(rows[0]?.wal_autocheckpoint).toBe(1000);
    await sql`create table notes (body text not null)`.execute(plain.db);
    await plain.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  it('copies committed writes into the database file while the server connection only writes', async () => {
    await sql`create table blobs (body text not null)`.execute(db.db);
    const before = fs.statSync(file).size;
    // About 4 MB: a tenth of what makes the server's own connection checkpoint.
    const bytes = 4 * 1024 * 1024;
    expect(bytes).toBeLessThan((FALLBACK_AUTOCHECKPOINT_PAGES * 4096) / 5);
    await sql`insert into blobs (body) values (hex(randomblob(${bytes / 2})))`.execute(db.db);

    const after = await waitFor(
      () => fs.statSync(file).size,
      (size) => size >= before + bytes,
    );
    expect(after).toBeGreaterThanOrEqual(before + bytes);

    // Closing ends the checkpointer's connection too: the server's, closing last, removes the WAL.
    await db.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const { length } = fs.readdirSync(dataDir);
    expect(length).toBe(1);
  });
});
