import type { Db } from '../../db/index.js';
import { pingDatabase } from './health.repository.js';

/** Resolves when the database answers a query; rejects when it cannot be reached. */
export async function checkDatabase(db: Db): Promise<void> {
  await pingDatabase(db.db);
}
