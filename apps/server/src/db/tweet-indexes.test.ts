import { CompiledQuery, SelectQueryNode, sql, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DIALECTS, createTestDb, type TestDb } from '../../test/helpers.js';
import { listTweetsDueForMetrics } from '../modules/tweets/tweets.repository.js';
import { fanOutPending } from '../notify/outbox-fan-out.repository.js';

/** The plan the database makes for `query`, as text; PostgreSQL is kept off sequential scans. */
async function planOf({ db, dialect }: TestDb, query: CompiledQuery): Promise<string> {
  if (dialect === 'sqlite') {
    const { rows } = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return rows.map((row) => row.detail).join('\n');
  }
  return db.transaction().execute(async (trx) => {
    // An empty table is read whole whatever its indexes: the question is whether one is usable.
    await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    );
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

describe.each(DIALECTS)('partial indexes of tweets (%s)', (dialect) => {
  it('the fan-out and the due metric readings find their posts through them', async () => {
    // A schema made anew: the plans depend on the tables' sizes, and a handed-on schema's
    // deleted rows still count.
    const db = await createTestDb(dialect, {}, { fresh: true });
    try {
      // The SELECTs the two jobs run, as the database receives them.
      const selects: CompiledQuery[] = [];
      const watch: KyselyPlugin = {
        transformQuery({ node, queryId }) {
          if (SelectQueryNode.is(node)) {
            selects.push(db.db.getExecutor().compileQuery(node, queryId));
          }
          return node;
        },
        transformResult: ({ result }) => Promise.resolve(result),
      };
      const watched = { ...db, db: db.db.withPlugin(watch) };
      const now = new Date().toISOString();
      await fanOutPending(watched, { now, channels: ['telegram'] });
      await listTweetsDueForMetrics(watched.db, now, 100);

      const pending = selects.find((query) => query.sql.includes('fanout_pending'));
      const due = selects.find((query) => query.sql.includes('metrics_next_at'));
      expect(pending && (await planOf(db, pending))).toContain('tweets_fanout_pending_idx');
      expect(due && (await planOf(db, due))).toContain('tweets_metrics_next_at_idx');
    } finally {
      await db.dispose();
    }
  });
});
