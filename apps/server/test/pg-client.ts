import pg from 'pg';

/**
 * `work` with a connection of its own to `base`, closed after it. Plain `pg`, no Vitest: the
 * global setup (global-setup.ts) runs it outside the test processes too.
 */
export async function withClient<T>(
  base: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
