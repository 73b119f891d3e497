import { sql } from 'kysely';
import type { Executor } from '../../db/index.js';

/** `select 1`: rejects when the database cannot be reached. */
export async function pingDatabase(db: Executor): Promise<void> {
  await sql`select 1`.execute(db);
}
