import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Invitation codes at rest: the table keeps the SHA-256 of each code (`code_hash`), never the
 * code, so a copy of the database registers nobody. A code is shown once, when it is made. The
 * first-start invitation, which every start prints until somebody registers, is also kept sealed
 * with the secret key (`code_sealed`, AES-256-GCM as the X tokens are), which the database does
 * not hold.
 *
 * The codes stored so far are replaced by their hashes; they keep working. An unused first-start
 * invitation of before has no sealed copy, so the next start replaces it with a new one. On
 * SQLite the space the plain codes took is zeroed as they are replaced (secure_delete), so they do
 * not linger in free pages of the file; on PostgreSQL the old row versions are never in a
 * pg_dump, and VACUUM (autovacuum) reclaims their space in the table's files.
 */
export function secretsAtRest(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') await sql`pragma secure_delete = on`.execute(db);
      await db.schema.alterTable('invitations').renameColumn('code', 'code_hash').execute();
      await db.schema.alterTable('invitations').addColumn('code_sealed', 'text').execute();
      const { rows } = await sql<{
        id: number;
        code_hash: string;
      }>`select id, code_hash from invitations`.execute(db);
      for (const row of rows) {
        // The same digest as lib/tokens.ts sha256Hex, written out: a shipped migration never
        // changes with the code it once used.
        const hash = createHash('sha256').update(row.code_hash).digest('hex');
        await sql`update invitations set code_hash = ${hash} where id = ${row.id}`.execute(db);
      }
      if (dialect === 'sqlite') await sql`pragma secure_delete = off`.execute(db);
    },

    async down(db: Kysely<unknown>): Promise<void> {
      // The codes cannot come back: the column keeps the hashes, which register nobody.
      await db.schema.alterTable('invitations').dropColumn('code_sealed').execute();
      await db.schema.alterTable('invitations').renameColumn('code_hash', 'code').execute();
    },
  };
}
