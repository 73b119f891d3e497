/** The operator CLI's `x-web ops`: the GraphQL operations in use, and a read of x.com's client. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, createTestDb, type TestDb } from '../../test/helpers.js';
import { runCliOn } from './test-factories.js';

async function cli(db: TestDb, env: Record<string, string>, ...args: string[]) {
  return runCliOn(db, { TWEET_SOURCE: 'x-web', X_REQUEST_TIMEOUT_SECONDS: '5', ...env }, args);
}

/** x.com's /home and a bundle script that declares UserTweets with a new query id. */
async function startTinyClient() {
  const server = http.createServer((request, response) => {
    if (request.url === '/home') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        '<html><head><script type="module" src="/x-web/main.js"></script></head></html>',
      );
      return;
    }
    if (request.url === '/x-web/main.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(
        'const a={params:{id:"CliUserTweets000001",metadata:{featureSwitches:["cli_switch"],' +
          'fieldToggles:["withArticlePlainText"]},name:"UserTweets",operationKind:"query",text:null}};',
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('Not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(DIALECTS)('operator CLI: x-web ops [%s]', (dialect) => {
  let db: TestDb;
  let x: Awaited<ReturnType<typeof startTinyClient>>;
  beforeAll(async () => {
    db = await createTestDb(dialect, { TWEET_SOURCE: 'x-web' });
    x = await startTinyClient();
  });
  afterAll(async () => {
    await x.close();
    await db.dispose();
  });

  it('lists the operations with their source, then reads x.com and says what changed', async () => {
    const listed = await cli(db, { X_WEB_BASE_URL: x.baseUrl }, 'x-web', 'ops');
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toMatch(/^operation\s+query_id\s+source\s+seen\s+features\s+toggles$/);
    expect(lines[1]).toMatch(/^UserByScreenName\s+Gb-d6r0vxPOADdG62OEBpQ\s+default\s+-\s+46\s+2$/);
    expect(lines.slice(1, 6).map((line) => line.split(/\s+/)[0])).toEqual([
      'UserByScreenName',
      'UserTweetsAndReplies',
      'UserTweets',
      'UsersByRestIds',
      'TweetResultsByRestIds',
    ]);
    expect(lines.slice(6)).toEqual([
      '',
      'Last check: never',
      'Last successful read: never',
      'Next check: at the next request',
      'Last error: none',
    ]);

    const refreshed = await cli(
      db,
      { X_WEB_BASE_URL: x.baseUrl, X_WEB_OPERATIONS_FILE: '/nonexistent/perch-ops.json' },
      'x-web',
      'ops',
      '--refresh',
    );
    expect(refreshed.code, refreshed.stderr).toBe(0);
    const out = refreshed.stdout.split('\n');
    expect(out[0]).toBe("Checked x.com's client: 1 operation changed.");
    expect(out[1]).toBe('Changed: UserTweets.');
    expect(out[2]).toBe(
      "Not in x.com's client (values kept): UserByScreenName, UserTweetsAndReplies, UsersByRestIds, TweetResultsByRestIds.",
    );
    expect(refreshed.stdout).toMatch(
      /\nUserTweets\s+CliUserTweets000001\s+bundle\s+\d{4}-\d\d-\d\dT\S+\s+40\s+1\n/,
    );
    expect(refreshed.stdout).toMatch(/\nLast check: \d{4}-\d\d-\d\dT/);
    expect(refreshed.stdout).toMatch(/\nLast successful read: \d{4}-\d\d-\d\dT/);
    expect(refreshed.stdout).toMatch(/\nOverrides file: \/nonexistent\/perch-ops\.json$/);
    // The missing file is reported, not fatal.
    expect(refreshed.stderr).toMatch(/^Warning: X_WEB_OPERATIONS_FILE cannot be read/);
  });

  it('says when x.com was read moments ago or cannot be read, and still lists', async () => {
    const tooSoon = await cli(db, { X_WEB_BASE_URL: x.baseUrl }, 'x-web', 'ops', '--refresh');
    expect(tooSoon.code).toBe(1);
    expect(tooSoon.stderr).toMatch(
      /^Error: x\.com's client was checked moments ago: try again in \d+ s\.$/,
    );
    expect(tooSoon.stdout).toMatch(/^operation\s+query_id/);

    // A minute later (as far as the database knows), x.com is unreachable.
    await db.db
      .updateTable('x_web_state')
      .set({ ops_checked_at: new Date(Date.now() - 120_000).toISOString() })
      .execute();
    const unreachable = await cli(
      db,
      { X_WEB_BASE_URL: 'http://127.0.0.1:9' },
      'x-web',
      'ops',
      '--refresh',
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^Error: x\.com's client could not be read \(.+\)\. The operations in use are kept\.$/,
    );
    expect(unreachable.stdout).toMatch(/\nLast error: .*(fetch failed|ECONNREFUSED)/);
    expect(unreachable.stdout).toMatch(/\nUserTweets\s+CliUserTweets000001\s+bundle/);
  });
});
