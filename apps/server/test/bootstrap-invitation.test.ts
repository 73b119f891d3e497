import { afterEach, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../src/db/index.js';
import { createTokenCipher } from '../src/lib/token-cipher.js';
import { ensureBootstrapInvitation } from '../src/modules/invitations/invitations.service.js';
import { createTestDb, DIALECTS, type TestDb } from './helpers.js';

describe.each(DIALECTS)('first-start invitation (%s)', (dialect) => {
  let db: TestDb | undefined;
  const others: Db[] = [];

  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
    await db?.dispose();
    db = undefined;
  });

  it('is created once when several nodes start together', async () => {
    db = await createTestDb(dialect);
    // PostgreSQL: four nodes, each with its own pool on the one database. SQLite serves one
    // process, whose calls share its connection.
    const nodes: Db[] = [db];
    if (dialect === 'postgres') {
      for (let i = 0; i < 3; i++) {
        const other = createDb(db.config);
        others.push(other);
        nodes.push(other);
      }
    }
    // Every node opens the sealed code with the same SECRET_KEY.
    const cipher = createTokenCipher({ secretKey: 'k'.repeat(40), dataDir: db.config.DATA_DIR });
    const results = await Promise.all(
      nodes.flatMap((node) => [
        ensureBootstrapInvitation(node, cipher),
        ensureBootstrapInvitation(node, cipher),
      ]),
    );
    const codes = new Set(results.map((row) => row?.code));
    expect(codes.size).toBe(1);
    expect([...codes][0]).toMatch(/\S/);
    const rows = await db.db.selectFrom('invitations').select('code_hash').execute();
    expect(rows).toHaveLength(1);
  });
});
