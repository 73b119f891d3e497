/**
 * The operations' registry on a real database (both dialects) and over real HTTP, against a
 * tiny x.com written here: a /home page with its feature values and one bundle script.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { X_WEB_MESSAGES, X_WEB_OPERATIONS, xWebOperationsResponseSchema } from '@perch/shared';
import { DIALECTS, createTestDb, waitFor, type TestDb } from '../../../test/helpers.js';
import { AppError } from '../../lib/errors.js';
import { X_WEB_DEFAULT_OPERATIONS } from './x-web-operation-defaults.js';
import {
  CHECKED_MOMENTS_AGO,
  createXWebOperations,
  type XWebOperationsOptions,
  type XWebOperationsRegistry,
} from './x-web-operations.js';

interface Declared {
  id: string;
  switches: string[];
  toggles: string[];
}

/** x.com as the registry reads it: /home and /x-web/main.js, with knobs for the tests. */
interface TinyClient {
  baseUrl: string;
  declared: Map<string, Declared>;
  pageValues: Record<string, boolean>;
  /** Answer /home with a Cloudflare page. */
  refuse: boolean;
  /** While set, /home waits for it. */
  hold: Promise<void> | null;
  pageHits: number;
  cookies: (string | undefined)[];
  close(): Promise<void>;
}

function bundleOf(declared: Map<string, Declared>): string {
  const list = (names: string[]) => `[${names.map((n) => JSON.stringify(n)).join(',')}]`;
  return [...declared]
    .map(
      ([name, op], i) =>
        `const o${i}={params:{id:${JSON.stringify(op.id)},metadata:{featureSwitches:${list(op.switches)},` +
        `fieldToggles:${list(op.toggles)}},name:${JSON.stringify(name)},operationKind:"query",text:null}};`,
    )
    .join('\n');
}

async function startTinyClient(): Promise<TinyClient> {
  const client: Omit<TinyClient, 'baseUrl' | 'close'> = {
    declared: new Map([
      [
        'UserByScreenName',
        {
          id: 'NewUserByScreenName1',
          switches: ['hidden_profile_subscriptions_enabled', 'brand_new_switch'],
          toggles: ['withAuxiliaryUserLabels'],
        },
      ],
      [
        'UserTweets',
        {
          id: X_WEB_DEFAULT_OPERATIONS.UserTweets.queryId,
          switches: Object.keys(X_WEB_DEFAULT_OPERATIONS.UserTweets.features),
          toggles: Object.keys(X_WEB_DEFAULT_OPERATIONS.UserTweets.fieldToggles),
        },
      ],
      ['UserTweetsAndReplies', { id: 'NewTweetsAndReplies1', switches: [], toggles: [] }],
      ['TweetResultsByRestIds', { id: 'NewTweetsByRestIds01', switches: ['x_y'], toggles: [] }],
      // UsersByRestIds is not in this build: its values are kept.
      ['CreateTweet', { id: 'CreateTweet000000001', switches: [], toggles: [] }],
    ]),
    pageValues: { brand_new_switch: true, hidden_profile_subscriptions_enabled: false },
    refuse: false,
    hold: null,
    pageHits: 0,
    cookies: [],
  };
  const server = http.createServer((request, response) => {
    void (async () => {
      if (request.url === '/home') {
        client.pageHits += 1;
        client.cookies.push(request.headers.cookie);
        if (client.hold) await client.hold;
        if (client.refuse) {
          response.writeHead(403, { 'content-type': 'text/html', 'cf-ray': '1-AMS' });
          response.end('<!DOCTYPE html><html><head><title>Just a moment...</title></head></html>');
          return;
        }
        const defaultConfig = Object.fromEntries(
          Object.entries(client.pageValues).map(([name, value]) => [name, { value }]),
        );
        const state = JSON.stringify({ featureSwitch: { defaultConfig } });
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(
          `<!DOCTYPE html><html><head><script type="module" src="/x-web/main.js"></script></head>` +
            `<body><script>window.__INITIAL_STATE__=${state};</script></body></html>`,
        );
        return;
      }
      if (request.url === '/x-web/main.js') {
        response.writeHead(200, { 'content-type': 'text/javascript' });
        response.end(bundleOf(client.declared));
        return;
      }
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('Not found');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(client, {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A port nothing listens on. */
async function deadBaseUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const HOUR = 60 * 60_000;
const START = Date.parse('2026-09-01T00:00:00.000Z');

describe.each(DIALECTS)('x-web operations registry [%s]', (dialect) => {
  let db: TestDb;
  let x: TinyClient;
  let clock: number;
  let logged: { level: string; msg: string; obj: object }[];
  let dir: string;
  const registries: XWebOperationsRegistry[] = [];

  beforeEach(async () => {
    db = await createTestDb(dialect);
    x = await startTinyClient();
    clock = START;
    logged = [];
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-ops-'));
  });
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((r) => r.idle()));
    await x.close();
    await db.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function make(options: Partial<XWebOperationsOptions> = {}): XWebOperationsRegistry {
    const registry = createXWebOperations({
      db: db.db,
      page: { baseUrl: x.baseUrl, timeoutMs: 5_000 },
      cookies: () => Promise.resolve({ auth_token: 'a'.repeat(40), ct0: 'c'.repeat(32) }),
      now: () => clock,
      log: {
        info: (obj, msg) => void logged.push({ level: 'info', obj, msg }),
        warn: (obj, msg) => void logged.push({ level: 'warn', obj, msg }),
        error: (obj, msg) => void logged.push({ level: 'error', obj, msg }),
      },
      ...options,
    });
    registries.push(registry);
    return registry;
  }

  const rowOf = (name: string) =>
    db.db.selectFrom('x_web_operations').selectAll().where('name', '=', name).executeTakeFirst();

  it('answers the shipped values at once, reads the bundle behind them, then answers its values', async () => {
    const ops = make();
    let release = () => {};
    x.hold = new Promise<void>((resolve) => (release = resolve));
    // The read waits on x.com: the answer does not.
    const first = await ops.current('UserByScreenName');
    expect(first).toEqual({ ...X_WEB_DEFAULT_OPERATIONS.UserByScreenName, source: 'default' });
    await waitFor(
      () => x.pageHits,
      (hits) => hits === 1,
    );
    expect(x.cookies[0]).toBe(`auth_token=${'a'.repeat(40)}; ct0=${'c'.repeat(32)}`);
    expect((await ops.current('UserByScreenName')).source).toBe('default');
    release();
    await ops.idle();
    expect(x.pageHits).toBe(1);

    const read = await ops.current('UserByScreenName');
    expect(read).toEqual({
      queryId: 'NewUserByScreenName1',
      // The features listed take the page's values; the others are kept.
      features: {
        ...X_WEB_DEFAULT_OPERATIONS.UserByScreenName.features,
        hidden_profile_subscriptions_enabled: false,
        brand_new_switch: true,
      },
      fieldToggles: { withAuxiliaryUserLabels: true },
      source: 'bundle',
    });
    // Not in this build: the shipped values stay.
    expect(await ops.current('UsersByRestIds')).toEqual({
      ...X_WEB_DEFAULT_OPERATIONS.UsersByRestIds,
      source: 'default',
    });
    const list = xWebOperationsResponseSchema.parse(await ops.list());
    expect(list.checked_at).toBe(new Date(clock).toISOString());
    expect(list.refreshed_at).toBe(new Date(clock).toISOString());
    expect(list.refresh_error).toBeNull();
    expect(list.next_check_at).toBe(new Date(clock + 6 * HOUR).toISOString());
    expect(list.overrides_file).toBeNull();
    expect(list.operations.map((op) => [op.name, op.source, op.seen_at !== null])).toEqual([
      ['UserByScreenName', 'bundle', true],
      ['UserTweetsAndReplies', 'bundle', true],
      ['UserTweets', 'bundle', true],
      ['UsersByRestIds', 'default', false],
      ['TweetResultsByRestIds', 'bundle', true],
    ]);
    expect(await rowOf('CreateTweet')).toBeUndefined();
  });

  it('reads the bundle at most every 6 hours, in one process of several', async () => {
    const a = make();
    const b = make();
    await Promise.all([a.current('UserTweets'), b.current('UserTweets')]);
    await Promise.all([a.idle(), b.idle()]);
    expect(x.pageHits).toBe(1);

    clock += 6 * HOUR - 1;
    await Promise.all([a.current('UserTweets'), b.current('UserTweets')]);
    await Promise.all([a.idle(), b.idle()]);
    expect(x.pageHits).toBe(1);

    clock += 1;
    await Promise.all([a.current('UserTweets'), b.current('UserTweets'), a.current('UserTweets')]);
    await Promise.all([a.idle(), b.idle()]);
    expect(x.pageHits).toBe(2);
    const check = await db.db.selectFrom('x_web_state').selectAll().executeTakeFirstOrThrow();
    expect(check.ops_checked_at).toBe(new Date(clock).toISOString());
  });

  it('forces a read at most once a minute, and concurrent calls share one read', async () => {
    const ops = make();
    const [one, two] = await Promise.all([
      ops.refresh({ force: true, reason: 'test' }),
      ops.refresh({ force: true }),
    ]);
    expect(one).toBe(two);
    expect(one).toEqual({
      changed: ['UserByScreenName', 'UserTweetsAndReplies', 'TweetResultsByRestIds'],
      missing: ['UsersByRestIds'],
      error: null,
      retryAfterMs: null,
    });
    expect(x.pageHits).toBe(1);

    clock += 30_000;
    expect(await ops.refresh({ force: true })).toEqual({
      changed: [],
      missing: [],
      error: CHECKED_MOMENTS_AGO,
      retryAfterMs: 30_000,
    });
    // Another process is held to the same minute.
    expect((await make().refresh({ force: true })).retryAfterMs).toBe(30_000);
    // Not forced: not due for 6 hours.
    expect((await ops.refresh()).error).toBe(CHECKED_MOMENTS_AGO);
    expect(x.pageHits).toBe(1);

    clock += 30_000;
    expect(await ops.refresh({ force: true })).toMatchObject({ changed: [], error: null });
    expect(x.pageHits).toBe(2);
  });

  it('moves seen_at with every read and updated_at only when the values change', async () => {
    const ops = make();
    await ops.refresh({ force: true });
    const before = await rowOf('UserByScreenName');
    expect(before).toMatchObject({
      query_id: 'NewUserByScreenName1',
      seen_at: new Date(START).toISOString(),
      updated_at: new Date(START).toISOString(),
    });
    expect(JSON.parse(before!.features)).toEqual({
      ...X_WEB_DEFAULT_OPERATIONS.UserByScreenName.features,
      brand_new_switch: true,
      hidden_profile_subscriptions_enabled: false,
    });

    clock += 2 * 60_000;
    expect((await ops.refresh({ force: true })).changed).toEqual([]);
    expect(await rowOf('UserByScreenName')).toMatchObject({
      seen_at: new Date(clock).toISOString(),
      updated_at: new Date(START).toISOString(),
    });

    clock += 2 * 60_000;
    x.declared.get('UserByScreenName')!.id = 'RotatedUserByScreen1';
    x.pageValues.hidden_profile_subscriptions_enabled = true;
    expect((await ops.refresh({ force: true })).changed).toEqual(['UserByScreenName']);
    expect(await rowOf('UserByScreenName')).toMatchObject({
      query_id: 'RotatedUserByScreen1',
      seen_at: new Date(clock).toISOString(),
      updated_at: new Date(clock).toISOString(),
    });
    expect((await ops.current('UserByScreenName')).features).toMatchObject({
      hidden_profile_subscriptions_enabled: true,
      brand_new_switch: true,
    });
  });

  it('keeps the values in use when x.com cannot be read, and records why', async () => {
    const ops = make({ page: { baseUrl: await deadBaseUrl(), timeoutMs: 5_000 } });
    const result = await ops.refresh({ force: true });
    expect(result.changed).toEqual([]);
    expect(result.error).toMatch(/fetch failed|ECONNREFUSED/);
    expect(await ops.current('UserTweets')).toEqual({
      ...X_WEB_DEFAULT_OPERATIONS.UserTweets,
      source: 'default',
    });
    const list = await ops.list();
    expect(list).toMatchObject({
      checked_at: new Date(START).toISOString(),
      refreshed_at: null,
      refresh_error: result.error,
    });
    expect(logged.some((l) => l.level === 'warn')).toBe(true);

    // Read once, then refused by Cloudflare: the values read stay, the failure is shown.
    const working = make();
    clock += 2 * 60_000;
    await working.refresh({ force: true });
    const readAt = new Date(clock).toISOString();
    x.refuse = true;
    clock += 2 * 60_000;
    expect((await working.refresh({ force: true })).error).toBe(
      'x.com answered with Cloudflare (HTTP 403: Just a moment...)',
    );
    expect(await working.current('UserByScreenName')).toMatchObject({
      queryId: 'NewUserByScreenName1',
      source: 'bundle',
    });
    expect(await working.list()).toMatchObject({
      checked_at: new Date(clock).toISOString(),
      refreshed_at: readAt,
      refresh_error: 'x.com answered with Cloudflare (HTTP 403: Just a moment...)',
    });

    // A client that declares none of the operations is a failure too.
    x.refuse = false;
    x.declared.clear();
    clock += 2 * 60_000;
    expect((await working.refresh({ force: true })).error).toMatch(
      /no GraphQL operation of Perch's was found in x.com's client \(1 scripts read\)/,
    );
  });

  it('heals "features cannot be null" at once, from the page, the shipped values or false', async () => {
    const ops = make();
    // Before any read: the row is made from the shipped values.
    await ops.addMissingFeatures('UserTweets', ['hidden_profile_likes_enabled', 'never_heard_of']);
    const healed = await ops.current('UserTweets');
    expect(healed.source).toBe('bundle');
    expect(healed.queryId).toBe(X_WEB_DEFAULT_OPERATIONS.UserTweets.queryId);
    expect(healed.features).toEqual({
      ...X_WEB_DEFAULT_OPERATIONS.UserTweets.features,
      hidden_profile_likes_enabled: true,
      never_heard_of: false,
    });
    await ops.idle();

    // After a read: the page's value; a pin with features of its own gets them too.
    await ops.refresh({ force: true });
    await ops.pin(
      'TweetResultsByRestIds',
      { query_id: 'PinnedTweetsById001', features: { x_y: true } },
      'root',
    );
    await ops.addMissingFeatures('TweetResultsByRestIds', ['brand_new_switch', 'x_y']);
    expect(await ops.current('TweetResultsByRestIds')).toEqual({
      queryId: 'PinnedTweetsById001',
      features: { x_y: true, brand_new_switch: true },
      fieldToggles: {},
      source: 'admin',
    });
    expect(JSON.parse((await rowOf('TweetResultsByRestIds'))!.features)).toEqual({
      ...X_WEB_DEFAULT_OPERATIONS.TweetResultsByRestIds.features,
      x_y: false,
      brand_new_switch: true,
    });

    // A later read keeps it; another process sees it once its view is older than 30 s.
    const other = make();
    expect((await other.current('TweetResultsByRestIds')).features.brand_new_switch).toBe(true);
    await ops.addMissingFeatures('TweetResultsByRestIds', ['one_more']);
    expect((await other.current('TweetResultsByRestIds')).features.one_more).toBeUndefined();
    clock += 31_000;
    expect((await other.current('TweetResultsByRestIds')).features.one_more).toBe(false);
    expect((await other.current('UserTweets')).features.never_heard_of).toBe(false);
  });

  it('ranks the file over a pin over the bundle over the shipped values', async () => {
    const file = path.join(dir, 'ops.json');
    const ops = make({ overridesFile: file, cacheMs: 0 });
    await ops.refresh({ force: true });
    expect((await ops.current('UserByScreenName')).source).toBe('bundle');

    // A pin without features keeps the bundle's.
    let list = await ops.pin('UserByScreenName', { query_id: 'PinnedUserByScreen1' }, 'root');
    expect(list.operations[0]).toMatchObject({
      name: 'UserByScreenName',
      query_id: 'PinnedUserByScreen1',
      source: 'admin',
      features: {
        ...X_WEB_DEFAULT_OPERATIONS.UserByScreenName.features,
        hidden_profile_subscriptions_enabled: false,
        brand_new_switch: true,
      },
      bundle_query_id: 'NewUserByScreenName1',
    });
    const pin = await db.db
      .selectFrom('x_web_operation_pins')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(pin).toMatchObject({ pinned_by: 'root', features: null, field_toggles: null });

    // The file wins; without toggles it keeps the pin's (here the bundle's).
    fs.writeFileSync(
      file,
      JSON.stringify({
        UserByScreenName: { queryId: 'FileUserByScreenNm1', features: { only_this: true } },
        UsersByRestIds: { queryId: 'FileUsersByRestId01' },
      }),
    );
    expect(await ops.current('UserByScreenName')).toEqual({
      queryId: 'FileUserByScreenNm1',
      features: { only_this: true },
      fieldToggles: { withAuxiliaryUserLabels: true },
      source: 'file',
    });
    expect(await ops.current('UsersByRestIds')).toEqual({
      ...X_WEB_DEFAULT_OPERATIONS.UsersByRestIds,
      queryId: 'FileUsersByRestId01',
      source: 'file',
    });
    list = await ops.list();
    expect(list.overrides_file).toBe(file);
    expect(list.operations[0]).toMatchObject({
      source: 'file',
      bundle_query_id: 'NewUserByScreenName1',
    });

    // Changed: read again.
    fs.writeFileSync(file, JSON.stringify({ UserTweets: { queryId: 'FileUserTweets00001' } }));
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect((await ops.current('UserByScreenName')).source).toBe('admin');
    expect((await ops.current('UserTweets')).queryId).toBe('FileUserTweets00001');

    // Unpinned: the bundle again; unpinning again is a conflict.
    list = await ops.unpin('UserByScreenName');
    expect(list.operations[0]).toMatchObject({ source: 'bundle', bundle_query_id: null });
    const error = await ops.unpin('UserByScreenName').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      statusCode: 409,
      message: X_WEB_MESSAGES.operationNotPinned('UserByScreenName'),
    });
  });

  it('logs a malformed overrides file and goes on without it', async () => {
    const file = path.join(dir, 'ops.json');
    fs.writeFileSync(file, '{ "UserTweets": { "queryId": ');
    const ops = make({
      overridesFile: file,
      cacheMs: 0,
      page: { baseUrl: await deadBaseUrl(), timeoutMs: 5_000 },
    });
    expect((await ops.current('UserTweets')).source).toBe('default');
    expect((await ops.current('UserTweets')).source).toBe('default');
    const errors = logged.filter((l) => l.level === 'error');
    // Once per version of the file, not once per request.
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toMatch(/malformed/);

    fs.writeFileSync(file, JSON.stringify({ UserTweets: { queryId: 'bad id!' } }));
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect((await ops.current('UserTweets')).source).toBe('default');
    expect(logged.filter((l) => l.level === 'error')).toHaveLength(2);

    fs.writeFileSync(
      file,
      JSON.stringify({
        UserTweets: { queryId: 'FileUserTweets00001' },
        SearchTimeline: { queryId: 'FileSearchTimeline1' },
      }),
    );
    fs.utimesSync(file, new Date(), new Date(Date.now() + 10_000));
    expect(await ops.current('UserTweets')).toMatchObject({
      queryId: 'FileUserTweets00001',
      source: 'file',
    });
    expect(logged.filter((l) => l.level === 'error').at(-1)?.obj).toMatchObject({
      unknown: ['SearchTimeline'],
    });

    fs.rmSync(file);
    expect((await ops.current('UserTweets')).source).toBe('default');
    expect(logged.filter((l) => l.level === 'error').at(-1)?.msg).toMatch(/cannot be read/);
  });

  it('lists every operation of the contract', async () => {
    const list = xWebOperationsResponseSchema.parse(await make().list());
    expect(list.operations.map((op) => op.name)).toEqual([...X_WEB_OPERATIONS]);
    expect(list).toMatchObject({
      checked_at: null,
      refreshed_at: null,
      refresh_error: null,
      next_check_at: null,
    });
  });
});
