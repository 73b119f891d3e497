/**
 * The server project's global setup: names the run, so that the test processes' PostgreSQL
 * schemas start with `t_<run>_` (migrated-templates.ts keeps some between tests), and drops
 * whatever of them is left when the run ends.
 */
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { withClient } from './pg-client.js';

export default function setup(project: TestProject) {
  const run = randomBytes(4).toString('hex');
  project.provide('perchTestRun', run);
  return async () => {
    const base = process.env.TEST_DATABASE_URL;
    if (!base) return;
    await withClient(base, async (client) => {
      const { rows } = await client.query<{ name: string }>(
        `select nspname as name from pg_namespace where nspname like $1`,
        [`t\\_${run}\\_%`],
      );
      for (const { name } of rows) await client.query(`drop schema if exists ${name} cascade`);
      // The catalog rows of the run's dropped schemas are dead space that every later catalog
      // read goes through, and these machines' PostgreSQL runs without autovacuum.
      await client.query(
        'vacuum pg_catalog.pg_class, pg_catalog.pg_attribute, pg_catalog.pg_attrdef, ' +
          'pg_catalog.pg_depend, pg_catalog.pg_type, pg_catalog.pg_constraint, ' +
          'pg_catalog.pg_index, pg_catalog.pg_trigger, pg_catalog.pg_proc',
      );
    });
  };
}
