/**
 * Test databases on PostgreSQL: a schema a test is done with comes back to the next test of the
 * process as new (no rows of the last test, sequences from 1, every migration recorded), and a
 * schema a test altered is not handed on.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from './helpers.js';

/** The schema a test database works in, and its PostgreSQL object id (a rename keeps it). */
async function whereIs(db: TestDb): Promise<{ name: string; oid: number }> {
  const { rows } = await sql<{ name: string; oid: number }>`
    select nspname as name, oid::int as oid from pg_namespace where nspname = current_schema()
  `.execute(db.db);
  return rows[0]!;
}

async function schemaExists(db: TestDb, name: string): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`
    select exists (select 1 from pg_namespace where nspname = ${name}) as found
  `.execute(db.db);
  return rows[0]!.found;
}

/** Adds an invitation and answers its id (from the table's sequence). */
async function addInvitation(db: TestDb, code: string): Promise<number> {
  const row = await db.db
    .insertInto('invitations')
    .values({
      code_hash: code,
      role: 'user',
      max_uses: 1,
      expires_at: null,
      created_by: null,
      created_at: new Date().toISOString(),
      revoked_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

describe.runIf(process.env.TEST_DATABASE_URL)('test databases on PostgreSQL', () => {
  it('hand a used schema on emptied, under a new name, with its sequences from the start', async () => {
    const first = await createTestDb('postgres');
    const used = await whereIs(first);
    expect(await addInvitation(first, 'first-code')).toBe(1);
    expect(await addInvitation(first, 'second-code')).toBe(2);
    await first.dispose();

    const next = await createTestDb('postgres');
    try {
      const now = await whereIs(next);
      // The same schema, renamed: the old name is gone, so nothing left running can write to it.
      expect(now.oid).toBe(used.oid);
      expect(now.name).not.toBe(used.name);
      expect(await schemaExists(next, used.name)).toBe(false);
      expect(await next.db.selectFrom('invitations').selectAll().execute()).toEqual([]);
      expect(await addInvitation(next, 'third-code')).toBe(1);
    } finally {
      await next.dispose();
    }
  });

  it('drop a schema a test altered instead of handing it on', async () => {
    const first = await createTestDb('postgres');
    const used = await whereIs(first);
    // As many tables and columns as before: only the catalog rows' writer tells the change.
    await sql`alter table invitations alter column max_uses type bigint`.execute(first.db);
    await first.dispose();

    const next = await createTestDb('postgres');
    try {
      expect((await whereIs(next)).oid).not.toBe(used.oid);
      expect(await schemaExists(next, used.name)).toBe(false);
      const { rows } = await sql<{ type: string }>`
        select data_type as type from information_schema.columns
        where table_schema = current_schema() and table_name = 'invitations'
          and column_name = 'max_uses'
      `.execute(next.db);
      expect(rows).toEqual([{ type: 'integer' }]);
    } finally {
      await next.dispose();
    }
  });
});
