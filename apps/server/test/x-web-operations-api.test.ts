/**
 * The admin API of the x-web source's GraphQL operations, on the real app and database (both
 * dialects), reading a tiny x.com written here over real HTTP: who may see and change them,
 * pins, forced reads of x.com's client (changed, too soon, refused), and the security log.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN_MESSAGES,
  MESSAGES,
  X_WEB_MESSAGES,
  X_WEB_REFRESH_MESSAGES,
  xWebOperationsResponseSchema,
} from '@perch/shared';
import { X_WEB_DEFAULT_OPERATIONS } from '../src/sources/x-web/x-web-operation-defaults.js';
import { dataOf, expectError } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';
import { registeredClients } from './seed.js';

const OPS = '/api/v1/admin/x-web-operations';

/** x.com's /home and one bundle script declaring two operations with new query ids. */
async function startTinyClient(options: { refuse?: boolean } = {}) {
  let pageHits = 0;
  const bundle =
    'const a={params:{id:"ApiUserByScreenNm01",metadata:{featureSwitches:["brand_new_switch"],fieldToggles:[]},' +
    'name:"UserByScreenName",operationKind:"query",text:null}};' +
    `const b={params:{id:${JSON.stringify(X_WEB_DEFAULT_OPERATIONS.UserTweets.queryId)},name:"UserTweets",` +
    'operationKind:"query",metadata:{featureSwitches:[],' +
    'fieldToggles:["withArticlePlainText","withArticleRichContentState"]},text:null}};' +
    'const c={params:{id:"ApiTweetsByRestId01",metadata:{featureSwitches:[],fieldToggles:[]},' +
    'name:"TweetResultsByRestIds",operationKind:"query",text:null}};';
  const server = http.createServer((request, response) => {
    if (request.url === '/home') {
      pageHits += 1;
      if (options.refuse) {
        response.writeHead(403, { 'content-type': 'text/html', 'cf-ray': '1-AMS' });
        response.end('<html><head><title>Just a moment...</title></head></html>');
        return;
      }
      const state = { featureSwitch: { defaultConfig: { brand_new_switch: { value: true } } } };
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        '<html><head><script type="module" src="/x-web/main.js"></script></head>' +
          `<body><script>window.__INITIAL_STATE__=${JSON.stringify(state)};</script></body></html>`,
      );
      return;
    }
    if (request.url === '/x-web/main.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(bundle);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('Not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pageHits: () => pageHits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type TinyClient = Awaited<ReturnType<typeof startTinyClient>>;

describe.each(DIALECTS)('admin API: x-web operations [%s]', (dialect) => {
  let x: TinyClient;
  let t: TestApp | undefined;
  let root: TestClient;
  let admin: TestClient;
  let user: TestClient;
  let dir: string;

  async function start(env: Record<string, string> = {}, refuse = false) {
    x = await startTinyClient({ refuse });
    t = await buildTestApp(dialect, {
      TWEET_SOURCE: 'x-web',
      X_WEB_BASE_URL: x.baseUrl,
      X_REQUEST_TIMEOUT_SECONDS: '5',
      ...env,
    });
    ({
      root,
      adam: admin,
      ursula: user,
    } = await registeredClients(t, { root: 'superadmin', adam: 'admin', ursula: 'user' }));
    return t;
  }

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-ops-api-'));
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    await x?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const events = async (type: string) =>
    (
      await t!.db.db
        .selectFrom('security_events')
        .selectAll()
        .where('event_type', '=', type)
        .execute()
    ).map((row) => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> }));

  it('shows the operations to admins only, without reading x.com', async () => {
    await start();
    const list = dataOf(await admin.get(OPS), xWebOperationsResponseSchema);
    expect(list.operations.map((op) => [op.name, op.source, op.query_id])).toEqual(
      Object.entries(X_WEB_DEFAULT_OPERATIONS).map(([name, values]) => [
        name,
        'default',
        values.queryId,
      ]),
    );
    expect(list).toMatchObject({
      checked_at: null,
      refreshed_at: null,
      refresh_error: null,
      next_check_at: null,
      overrides_file: null,
    });
    expect(x.pageHits()).toBe(0);
    expectError(await user.get(OPS), 403, { message: ADMIN_MESSAGES.adminRequired });
    expectError(await new TestClient(t!.app).get(OPS), 401, {
      message: MESSAGES.notAuthenticated,
    });
  });

  it('lets a super admin pin and unpin, checks the input, and logs each change', async () => {
    await start();
    const pin = { query_id: '  PinnedUserByScreen1 ', features: { only_this: true } };
    for (const client of [admin, user]) {
      expect(
        (await client.request({ method: 'PUT', url: `${OPS}/UserByScreenName`, payload: pin }))
          .statusCode,
      ).toBe(403);
      expect((await client.delete(`${OPS}/UserByScreenName`)).statusCode).toBe(403);
      expect((await client.post(`${OPS}/refresh`)).statusCode).toBe(403);
    }
    expectError(
      await admin.request({ method: 'PUT', url: `${OPS}/UserByScreenName`, payload: pin }),
      403,
      { message: ADMIN_MESSAGES.superAdminRequired },
    );

    const put = (name: string, payload: unknown) =>
      root.request({ method: 'PUT', url: `${OPS}/${name}`, payload: payload as object });
    expectError(await put('SearchTimeline', pin), 400, {
      message: X_WEB_MESSAGES.operationNotFound,
    });
    expectError(await put('UserByScreenName', { query_id: 'short' }), 400, {
      message: X_WEB_MESSAGES.queryIdInvalid,
    });
    expectError(await put('UserByScreenName', {}), 400, {
      message: X_WEB_MESSAGES.queryIdInvalid,
    });
    expectError(
      await put('UserByScreenName', { query_id: 'PinnedUserByScreen1', features: { a: 'yes' } }),
      400,
      { message: X_WEB_MESSAGES.switchesInvalid },
    );
    expectError(
      await put('UserByScreenName', {
        query_id: 'PinnedUserByScreen1',
        field_toggles: { 'not a name': true },
      }),
      400,
      { message: X_WEB_MESSAGES.switchesInvalid },
    );
    expectError(await root.delete(`${OPS}/UserByScreenName`), 409, {
      message: X_WEB_MESSAGES.operationNotPinned('UserByScreenName'),
    });
    expectError(await root.delete(`${OPS}/Nope`), 400, {
      message: X_WEB_MESSAGES.operationNotFound,
    });

    const pinned = await put('UserByScreenName', pin);
    expect(pinned.statusCode, pinned.body).toBe(200);
    expect(pinned.json()).toMatchObject({
      message: X_WEB_MESSAGES.operationPinned('UserByScreenName'),
    });
    const afterPin = dataOf(pinned, xWebOperationsResponseSchema);
    expect(afterPin.operations[0]).toEqual({
      name: 'UserByScreenName',
      query_id: 'PinnedUserByScreen1',
      features: { only_this: true },
      field_toggles: X_WEB_DEFAULT_OPERATIONS.UserByScreenName.fieldToggles,
      source: 'admin',
      seen_at: null,
      bundle_query_id: null,
    });
    expect(dataOf(await admin.get(OPS), xWebOperationsResponseSchema).operations[0]?.source).toBe(
      'admin',
    );
    const [pinEvent] = await events('x_web_operation_pinned');
    expect(pinEvent).toMatchObject({
      severity: 'high',
      metadata: { actor: 'root', operation: 'UserByScreenName', query_id: 'PinnedUserByScreen1' },
    });

    const unpinned = await root.delete(`${OPS}/UserByScreenName`);
    expect(unpinned.statusCode, unpinned.body).toBe(200);
    expect(unpinned.json()).toMatchObject({
      message: X_WEB_MESSAGES.operationUnpinned('UserByScreenName'),
    });
    expect(dataOf(unpinned, xWebOperationsResponseSchema).operations[0]?.source).toBe('default');
    expect(await events('x_web_operation_unpinned')).toMatchObject([
      { severity: 'medium', metadata: { actor: 'root', operation: 'UserByScreenName' } },
    ]);
  });

  it('reads x.com on request, says what changed, and refuses a second read within a minute', async () => {
    await start();
    const refreshed = await root.post(`${OPS}/refresh`);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json()).toMatchObject({ message: X_WEB_MESSAGES.operationsRefreshed(2) });
    const list = dataOf(refreshed, xWebOperationsResponseSchema);
    expect(list.operations.find((op) => op.name === 'UserByScreenName')).toMatchObject({
      source: 'bundle',
      query_id: 'ApiUserByScreenNm01',
      features: { brand_new_switch: true },
    });
    expect(list.refreshed_at).not.toBeNull();
    expect(await events('x_web_operations_refreshed')).toMatchObject([
      {
        severity: 'low',
        metadata: {
          actor: 'root',
          changed: ['UserByScreenName', 'TweetResultsByRestIds'],
          missing: ['UserTweetsAndReplies', 'UsersByRestIds'],
        },
      },
    ]);

    const again = await root.post(`${OPS}/refresh`);
    const envelope = expectError(again, 429);
    expect(envelope.message).toMatch(
      /^x\.com's client was checked moments ago: try again in \d+ s\.$/,
    );
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    expect(x.pageHits()).toBe(1);
  });

  it('answers 502 with the reason when x.com refuses, and keeps the values in use', async () => {
    await start({}, true);
    const refused = await root.post(`${OPS}/refresh`);
    expectError(refused, 502, {
      message: X_WEB_REFRESH_MESSAGES.failed(
        'x.com answered with Cloudflare (HTTP 403: Just a moment...)',
      ),
    });
    const list = dataOf(await admin.get(OPS), xWebOperationsResponseSchema);
    expect(list.refresh_error).toBe('x.com answered with Cloudflare (HTTP 403: Just a moment...)');
    expect(list.operations.every((op) => op.source === 'default')).toBe(true);
    expect(await events('x_web_operations_refreshed')).toEqual([]);
  });

  it('reads x.com only on servers that use the x-web source', async () => {
    await start({ TWEET_SOURCE: 'demo' });
    expectError(await root.post(`${OPS}/refresh`), 409, {
      message: X_WEB_REFRESH_MESSAGES.notXWeb,
    });
    expect(x.pageHits()).toBe(0);
  });

  it('shows the overrides file and its values', async () => {
    const file = path.join(dir, 'operations.json');
    fs.writeFileSync(file, JSON.stringify({ UserTweets: { queryId: 'FileUserTweets00001' } }));
    await start({ X_WEB_OPERATIONS_FILE: file });
    const list = dataOf(await admin.get(OPS), xWebOperationsResponseSchema);
    expect(list.overrides_file).toBe(file);
    expect(list.operations.find((op) => op.name === 'UserTweets')).toMatchObject({
      source: 'file',
      query_id: 'FileUserTweets00001',
      features: X_WEB_DEFAULT_OPERATIONS.UserTweets.features,
    });
  });
});
