/**
 * Invitation codes at rest: a copy of the database (the SQLite file, a pg_dump) holds no code
 * anybody could register with, while every code, old or new, still registers. The first-start
 * code is printed again on every start until somebody registers.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { adminCreatedInvitationResponseSchema } from '@perch/shared';
import { sqliteFiles } from '../src/db/index.js';
import { migrations } from '../src/db/migrations/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createTokenCipher } from '../src/lib/token-cipher.js';
import { sha256Hex } from '../src/lib/tokens.js';
import { findInvitationByCode } from '../src/modules/invitations/invitations.repository.js';
import {
  createInvitation,
  ensureBootstrapInvitation,
} from '../src/modules/invitations/invitations.service.js';
import { dataOf } from './assertions.js';
import { DIALECTS, TestClient, registration, testMigrator, type TestDb } from './helpers.js';
import { closedAfterEachTest } from './seed.js';

const run = promisify(execFile);

/** Everything a copy of the database holds, as text. */
async function dumpOf(db: TestDb): Promise<string> {
  if (db.dialect === 'sqlite') {
    // The file itself, every page of it, with the WAL folded in and emptied.
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db.db);
    return sqliteFiles(path.join(db.config.DATA_DIR, 'perch.db'))
      .filter((file) => fs.existsSync(file))
      .map((file) => fs.readFileSync(file).toString('latin1'))
      .join('\n');
  }
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db.db);
  const { stdout } = await run(
    'pg_dump',
    ['--no-owner', `--schema=${rows[0]!.schema}`, process.env.TEST_DATABASE_URL ?? ''],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

/**
 * Migrates down to the migration before 0019, as a database of the previous version is (tried
 * again when another suite's schema changes under the migrator's listing, as testMigrator does).
 */
async function beforeSecretsAtRest(db: TestDb): Promise<void> {
  const names = Object.keys(migrations(db.dialect));
  const previous = names[names.indexOf('0019-secrets-at-rest') - 1]!;
  const { error } = await (await testMigrator(db)).migrateTo(previous);
  if (error) throw error as Error;
}

describe.each(DIALECTS)('invitation codes at rest (%s)', (dialect) => {
  const fresh = closedAfterEachTest(dialect);

  it('a dump holds no usable code, and every code still registers', async () => {
    const t = await fresh.app();
    const root = new TestClient(t.app);
    await root.register(t.db, 'root', 'superadmin');
    const created = await root.post('/api/v1/admin/invitations', { max_uses: 2 });
    const fromPage = dataOf(created, adminCreatedInvitationResponseSchema).invitation.code;
    const fromCli = (
      await createInvitation(t.db, { role: 'user', maxUses: 1, expiresInDays: 7, createdBy: null })
    ).code;

    const dump = await dumpOf(t.db);
    for (const code of [fromPage, fromCli]) {
      expect(dump).not.toContain(code);
      expect(dump).toContain(sha256Hex(code));
    }
    // Not even the random part alone.
    expect(dump).not.toContain(fromPage.slice('PERCH-'.length));

    for (const [name, code] of [
      ['paged', fromPage],
      ['scripted', fromCli],
    ] as const) {
      const response = await new TestClient(t.app).post(
        '/api/v1/auth/register',
        registration(name, code),
      );
      expect(response.statusCode, response.body).toBe(201);
    }
  });

  it('hashes the plain codes a database of the previous version holds, which still register', async () => {
    const db = await fresh.db();
    await beforeSecretsAtRest(db);
    const plain = ['PERCH-OLD1-AAAA-BBBB', 'PERCH-OLD2-CCCC-DDDD'];
    await sql`insert into invitations (code, role, max_uses, uses, created_at)
      values (${plain[0]}, 'user', 1, 0, ${new Date().toISOString()}),
             (${plain[1]}, 'superadmin', 1, 0, ${new Date().toISOString()})`.execute(db.db);

    // The secrets migration first, then whatever later versions added.
    expect((await migrateToLatest(db))[0]).toBe('0019-secrets-at-rest');
    const dump = await dumpOf(db);
    for (const code of plain) expect(dump).not.toContain(code);
    const found = await findInvitationByCode(db.db, plain[0]!);
    expect(found).toMatchObject({ role: 'user', code_hash: sha256Hex(plain[0]!) });

    // The first-start invitation of before has no sealed copy to print: the next start replaces
    // it, and from then on prints the same code each time.
    const cipher = createTokenCipher({ secretKey: 'k'.repeat(40), dataDir: db.config.DATA_DIR });
    const first = await ensureBootstrapInvitation(db, cipher);
    expect(first?.code).toMatch(/^PERCH-/);
    expect(first?.code).not.toBe(plain[1]);
    expect((await ensureBootstrapInvitation(db, cipher))?.code).toBe(first?.code);
    expect((await findInvitationByCode(db.db, plain[1]!))?.revoked_at).not.toBeNull();
    expect(await dumpOf(db)).not.toContain(first!.code);
  });

  it('prints the first-start code until somebody registers, then forgets it', async () => {
    const t = await fresh.app();
    const cipher = createTokenCipher({ secretKey: 'k'.repeat(40), dataDir: t.config.DATA_DIR });
    const bootstrap = await ensureBootstrapInvitation(t.db, cipher);
    if (!bootstrap) throw new Error('no first-start invitation');
    // Under another key the sealed code cannot be shown: it is replaced, never guessed at.
    const otherKey = createTokenCipher({ secretKey: 'o'.repeat(40), dataDir: t.config.DATA_DIR });
    const replaced = await ensureBootstrapInvitation(t.db, otherKey);
    expect(replaced?.code).not.toBe(bootstrap.code);
    expect((await findInvitationByCode(t.db.db, bootstrap.code))?.revoked_at).not.toBeNull();

    const response = await new TestClient(t.app).post(
      '/api/v1/auth/register',
      registration('first', replaced!.code),
    );
    expect(response.statusCode, response.body).toBe(201);
    expect(await ensureBootstrapInvitation(t.db, otherKey)).toBeNull();
    const sealed = await t.db.db
      .selectFrom('invitations')
      .select('code_sealed')
      .where('code_sealed', 'is not', null)
      .execute();
    expect(sealed).toEqual([]);
  });
});
