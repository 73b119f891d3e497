/**
 * Scale-out mode for real: two API and two worker processes (src/main.ts with PERCH_ROLE) on the
 * PostgreSQL and Redis of this machine, isolated by a schema and a key prefix, against the
 * loopback fakes of X, Telegram and Discord; then three workers of a second deployment losing
 * one worker to kill -9 and one to SIGSTOP. Run last and alone (scripts/test.mjs), as it starts
 * servers: `npx vitest run -c apps/server/vitest.scale-out.config.ts`.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import pg from 'pg';
import { sql } from 'kysely';
import { startFakeDiscordServer, type FakeDiscordServer } from '../fakes/fake-discord-server.js';
import { startFakeTelegramServer, type FakeTelegramServer } from '../fakes/fake-telegram-server.js';
import {
  recentWirePosts,
  startFakeXServer,
  type FakeXServer,
  type FakeXTweet,
} from '../fakes/fake-x-server.js';
import {
  findHandleById,
  insertHandle,
  insertLink,
} from '../../src/modules/handles/handles.repository.js';
import { insertUser } from '../../src/modules/users/users.repository.js';
import { createTestDb, inviteCode, storedTweetIds, waitFor, type TestDb } from '../helpers.js';
import { spawnFromSource } from '../processes.js';
import { startXGate, type XGate } from './x-gate.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const USERS = 5;
const HANDLES_PER_USER = 10;
const TWEETS_PER_HANDLE = 240;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The docs' promise: a dead or frozen worker's handles go to another within 30 s. */
const TAKEOVER_MS = 30_000;
/**
 * COLLECTOR_LEASE_SECONDS of every process here. A takeover then takes at most about 1.25 times
 * it plus the scheduler's second; `LEASE_TAKEOVER_MS` leaves room for a loaded machine.
 */
const LEASE_SECONDS = 6;
const LEASE_TAKEOVER_MS = LEASE_SECONDS * 2_000 + 3_000;

interface Node {
  name: string;
  child: ChildProcess;
  origin: string;
  output: () => string;
}

/** Where a process works: a schema of the test database, a Redis key prefix, X's address. */
interface Deployment {
  databaseUrl: string | undefined;
  prefix: string;
  xBaseUrl: string;
}

/** A browser: one cookie jar, whichever node it talks to (as behind a load balancer). */
class Browser {
  readonly cookies = new Map<string, string>();

  async request(origin: string, method: string, url: string, body?: unknown) {
    const unsafe = !['GET', 'HEAD'].includes(method);
    if (unsafe && !this.cookies.has('perch_csrf'))
      await this.request(origin, 'GET', '/api/v1/auth/check');
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    if (unsafe) headers['x-csrf-token'] = this.cookies.get('perch_csrf') ?? '';
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(origin + url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...rest] = (pair ?? '').split('=');
      const value = rest.join('=');
      if (!name) continue;
      if (value === '' || /max-age=0|expires=Thu, 01 Jan 1970/i.test(line))
        this.cookies.delete(name);
      else this.cookies.set(name.trim(), value);
    }
    const text = await response.text();
    let json: { data?: Record<string, unknown>; message?: string } = {};
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      // not JSON
    }
    return { status: response.status, json, text };
  }
}

describe.runIf(process.env.TEST_DATABASE_URL)('scale-out: 2 API + 2 worker processes', () => {
  let db: TestDb;
  let x: FakeXServer;
  let telegram: FakeTelegramServer;
  let discord: FakeDiscordServer;
  const prefix = `perch-scale-${process.pid}-${Date.now()}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-scale-'));
  const nodes: Node[] = [];
  const xUsers: { id: string; username: string }[] = [];
  /** What a test adds besides the first deployment, for afterAll to remove. */
  const extraDbs: TestDb[] = [];
  const extraPrefixes: string[] = [];
  const gates: XGate[] = [];

  async function start(
    name: string,
    role: 'api' | 'worker',
    deployment?: Deployment,
  ): Promise<Node> {
    const where = deployment ?? {
      databaseUrl: db.config.DATABASE_URL,
      prefix,
      xBaseUrl: x.baseUrl,
    };
    const { child, output } = spawnFromSource('src/main.ts', {
      PERCH_ROLE: role,
      DATABASE_URL: where.databaseUrl,
      REDIS_URL,
      REDIS_PREFIX: where.prefix,
      DATA_DIR: path.join(dataDir, name),
      SECRET_KEY: 'scale-out-test-secret-key-0123456789abcdef',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      TWEET_SOURCE: 'x-api',
      X_BEARER_TOKEN: x.bearerToken,
      X_API_BASE_URL: where.xBaseUrl,
      MONITOR_INTERVAL_SECONDS: '5',
      COLLECTOR_CONCURRENCY: '3',
      // Takeovers in seconds rather than the default 15 s lease's 20 (docs/decisions.md).
      COLLECTOR_LEASE_SECONDS: String(LEASE_SECONDS),
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_BASE_URL: telegram.baseUrl,
      TELEGRAM_POLL_UPDATES: 'false',
      DISCORD_BOT_TOKEN: discord.token,
      DISCORD_API_BASE_URL: discord.baseUrl,
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const origin =
        /Perch is running at (http:\/\/[^/\s]+)/.exec(output())?.[1] ??
        /health: (http:\/\/[^/\s]+)\/api/.exec(output())?.[1];
      if (origin) {
        const node: Node = { name, child, origin, output };
        nodes.push(node);
        return node;
      }
      if (child.exitCode !== null || Date.now() > deadline) {
        // Late, it would start after all, with no test to stop it.
        child.kill('SIGKILL');
        throw new Error(`${name} did not start:\n${output()}`);
      }
      await sleep(25);
    }
  }

  const handleRows = () =>
    db.db
      .selectFrom('handles')
      .select(['id', 'username', 'backfill_status', 'x_user_id', 'lease_owner'])
      .orderBy('id')
      .execute();

  beforeAll(async () => {
    db = await createTestDb('postgres');
    x = await startFakeXServer();
    telegram = await startFakeTelegramServer();
    discord = await startFakeDiscordServer();
    for (let i = 0; i < USERS * HANDLES_PER_USER; i++) {
      const user = x.addUser({ username: `scale_acct_${i}`, followersCount: 100 + i });
      x.addTweets(user.id, recentWirePosts(i, TWEETS_PER_HANDLE));
      xUsers.push({ id: user.id, username: user.username });
    }
  }, 60_000);

  afterAll(async () => {
    for (const node of nodes) {
      if (node.child.exitCode === null && node.child.signalCode === null)
        node.child.kill('SIGKILL');
    }
    for (const gate of gates) await gate.close();
    await x?.close();
    await telegram?.close();
    await discord?.close();
    await db?.dispose();
    for (const extra of extraDbs) await extra.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
    const redis = new Redis(REDIS_URL);
    for (const keyPrefix of [prefix, ...extraPrefixes]) {
      const keys = await redis.keys(`${keyPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await redis.quit();
  });

  it('collects every handle once across workers, survives a killed worker, and shares events, sessions and limits between API nodes', async () => {
    // Each timeline page answers after 40 ms, so the backfills take a few seconds.
    x.stallNext('users/tweets', { times: 100_000, ms: 40 });
    const [api1, api2] = await Promise.all([start('api-1', 'api'), start('api-2', 'api')]);

    // Five users, signed up and set up through API node 1; each follows 10 handles.
    const browsers: Browser[] = [];
    for (let u = 0; u < USERS; u++) {
      const browser = new Browser();
      const password = 'Sup3r-secret!';
      const registered = await browser.request(api1!.origin, 'POST', '/api/v1/auth/register', {
        username: `scaler${u}`,
        email: `scaler${u}@example.com`,
        password,
        confirmPassword: password,
        invitationCode: await inviteCode(db),
        acceptTerms: true,
        acceptPrivacy: true,
      });
      expect(registered.status, registered.text).toBe(201);
      const saved = await browser.request(api1!.origin, 'POST', '/api/v1/settings', {
        twitter_username: `scaler${u}_x`,
        telegram_chat_id: String(800_000 + u),
        discord_user_id: String(82198898841030000n + BigInt(u)),
      });
      expect(saved.status, saved.text).toBe(200);
      const bot = await browser.request(api1!.origin, 'POST', '/api/v1/bot/start');
      expect(bot.status, bot.text).toBe(200);
      browsers.push(browser);
    }

    // An SSE client of user 0 on API node 2 sees the progress of a handle added on node 1.
    const stream = await fetch(`${api2!.origin}/api/v1/events`, {
      headers: {
        cookie: [...browsers[0]!.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    expect(stream.status).toBe(200);
    let streamed = '';
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        streamed += decoder.decode(value, { stream: true });
      }
    })();

    const followed = new Map<string, number>();
    for (let u = 0; u < USERS; u++) {
      for (let h = 0; h < HANDLES_PER_USER; h++) {
        const username = xUsers[u * HANDLES_PER_USER + h]!.username;
        const added = await browsers[u]!.request(api1!.origin, 'POST', '/api/v1/handles', {
          username,
          backfill_days: 7,
        });
        expect(added.status, added.text).toBe(201);
        const handle = (added.json.data as { handle: { id: number } }).handle;
        followed.set(username, u);
        const toggled = await browsers[u]!.request(
          api1!.origin,
          'PUT',
          `/api/v1/handles/${handle.id}/notifications`,
          { telegramEnabled: true, discordEnabled: true },
        );
        expect(toggled.status, toggled.text).toBe(200);
      }
    }
    // Read through node 2: the same 10 handles for each user.
    const listed = await browsers[3]!.request(api2!.origin, 'GET', '/api/v1/handles');
    expect(listed.status).toBe(200);
    expect((listed.json.data as { handles: unknown[] }).handles).toHaveLength(HANDLES_PER_USER);

    // The workers start once every handle waits: adding 50 handles one by one through the API
    // can take longer than their backfills on a loaded machine, and the kill below must come
    // while some are still running.
    const [worker1] = await Promise.all([start('worker-1', 'worker'), start('worker-2', 'worker')]);

    // A worker serves its health and metrics, and nothing of the API.
    expect((await fetch(`${worker1!.origin}/api/v1/health`)).status).toBe(200);
    expect((await fetch(`${worker1!.origin}/metrics`)).status).toBe(200);
    expect((await fetch(`${worker1!.origin}/api/v1/handles`)).status).toBe(404);

    await expect
      .poll(() => /event: handle\.progress\ndata: [^\n]*"scale_acct_[0-9]+"/.test(streamed), {
        timeout: 20_000,
      })
      .toBe(true);

    // kill -9 of worker 1 in the middle of the backfills.
    await expect
      .poll(
        async () => (await handleRows()).filter((h) => h.backfill_status === 'completed').length,
        {
          timeout: 60_000,
          interval: 100,
        },
      )
      .toBeGreaterThanOrEqual(5);
    const beforeKill = (await handleRows()).filter((h) => h.backfill_status === 'completed').length;
    expect(beforeKill).toBeLessThan(USERS * HANDLES_PER_USER);
    const killedAt = x.requests.length;
    worker1!.child.kill('SIGKILL');
    // The handles the killed worker held: its leases stay until they run out, seconds from now.
    const killedNode = /Perch worker (\S+) is running/.exec(worker1!.output())?.[1];
    expect(killedNode).toBeTruthy();
    const killedHandles = (await handleRows()).filter(
      (h) => h.lease_owner?.split(':')[0] === killedNode,
    );

    // The other worker finishes every backfill (the killed one's leases run out within 30 s).
    await expect
      .poll(async () => (await handleRows()).every((h) => h.backfill_status === 'completed'), {
        timeout: 120_000,
        interval: 250,
      })
      .toBe(true);

    // No gap, no duplicate: each handle holds exactly its posts of the window.
    const stored = await db.db
      .selectFrom('tweets')
      .innerJoin('handles', 'handles.id', 'tweets.handle_id')
      .select(['handles.username', 'tweets.tweet_id'])
      .execute();
    const byHandle = new Map<string, string[]>();
    for (const row of stored)
      byHandle.set(row.username, [...(byHandle.get(row.username) ?? []), row.tweet_id]);
    for (const [index, account] of xUsers.entries()) {
      const ids = byHandle.get(account.username) ?? [];
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(
        recentWirePosts(index, TWEETS_PER_HANDLE)
          .map((t) => t.id)
          .sort(),
      );
    }

    // Every timeline page was requested once, except pages the killed worker had read and not
    // yet stored: a walk reads ahead while it stores (READ_AHEAD_PAGES), so one job can lose
    // more than one page. Those are read once more after the takeover, and only for the handles
    // the killed worker held (at most its 3 job slots). Which process sent a request is known
    // by its handle, not by when the fake saw it: the fake, in this process, may record a request
    // the killed worker sent just before it died after the kill.
    expect(killedHandles.length).toBeLessThanOrEqual(3);
    const killedPaths = new Set(killedHandles.map((h) => `/2/users/${h.x_user_id}/tweets`));
    const pageKey = (r: (typeof x.requests)[number]) =>
      `${r.path}?${r.query.pagination_token ?? ''}:${r.query.start_time ?? ''}-${r.query.end_time ?? ''}`;
    const pages = x.requests.filter((r) => r.endpoint === 'users/tweets' && !r.query.since_id);
    const firstPart = pages.filter((r) => x.requests.indexOf(r) < killedAt).map(pageKey);
    expect(new Set(firstPart).size).toBe(firstPart.length);
    const reads = new Map<string, typeof pages>();
    for (const page of pages) reads.set(pageKey(page), [...(reads.get(pageKey(page)) ?? []), page]);
    const repeated = [...reads].filter(([, list]) => list.length > 1);
    const described = `killed worker's handles: ${[...killedPaths].join(', ')}\n${repeated
      .map(([key, list]) => `${key}: ${list.map((r) => `${r.status}@${r.at}`).join(', ')}`)
      .join('\n')}`;
    for (const [, list] of repeated) {
      expect(list.length, described).toBe(2);
      expect(killedPaths.has(list[0]!.path), described).toBe(true);
    }

    // New tweets: each delivered exactly once on each channel, whichever worker polled.
    const fresh = xUsers.slice(0, 5).map((account, index) => {
      const tweet: FakeXTweet = {
        id: String(1_920_000_000_000_000_000n + BigInt(index)),
        text: `Breaking news ${index} from ${account.username}`,
        created_at: new Date().toISOString(),
        lang: 'en',
      };
      x.addTweets(account.id, [tweet]);
      return { tweet, user: followed.get(account.username)! };
    });
    const chatOf = (user: number) => String(800_000 + user);
    const discordOf = (user: number) => String(82198898841030000n + BigInt(user));
    const expectedPerUser = new Map<number, number>();
    for (const { user } of fresh) expectedPerUser.set(user, (expectedPerUser.get(user) ?? 0) + 1);
    await expect
      .poll(
        () =>
          [...expectedPerUser].every(
            ([user, count]) =>
              telegram.messagesTo(chatOf(user)).length >= count &&
              discord.messagesTo(discordOf(user)).length >= count,
          ),
        { timeout: 60_000, interval: 250 },
      )
      .toBe(true);
    await sleep(3_000);
    for (const [user, count] of expectedPerUser) {
      expect(telegram.messagesTo(chatOf(user))).toHaveLength(count);
      expect(discord.messagesTo(discordOf(user))).toHaveLength(count);
    }
    for (const { tweet, user } of fresh) {
      expect(
        telegram.messagesTo(chatOf(user)).filter((m) => m.raw.includes(tweet.id)),
      ).toHaveLength(1);
    }

    // A session revoked on node 1 is refused on node 2 at once.
    const second = new Browser();
    const signedIn = await second.request(api2!.origin, 'POST', '/api/v1/auth/login', {
      username: 'scaler1',
      password: 'Sup3r-secret!',
    });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect((await second.request(api2!.origin, 'GET', '/api/v1/handles')).status).toBe(200);
    const sessions = await browsers[1]!.request(api1!.origin, 'GET', '/api/v1/security/sessions');
    expect(sessions.status, sessions.text).toBe(200);
    const list = (sessions.json.data as { sessions: { id: string; current: boolean }[] }).sessions;
    const other = list.find((session) => !session.current);
    expect(other).toBeDefined();
    const revoked = await browsers[1]!.request(
      api1!.origin,
      'DELETE',
      `/api/v1/security/sessions/${other!.id}`,
    );
    expect(revoked.status, revoked.text).toBe(200);
    expect((await second.request(api2!.origin, 'GET', '/api/v1/handles')).status).toBe(401);

    // Five failed sign-ins spread over both nodes lock the name.
    const intruder = new Browser();
    for (let attempt = 0; attempt < 5; attempt++) {
      const origin = attempt % 2 === 0 ? api1!.origin : api2!.origin;
      const failed = await intruder.request(origin, 'POST', '/api/v1/auth/login', {
        username: 'scaler2',
        password: `wrong-${attempt}`,
      });
      expect(failed.status).toBe(401);
    }
    const locked = await intruder.request(api2!.origin, 'POST', '/api/v1/auth/login', {
      username: 'scaler2',
      password: 'Sup3r-secret!',
    });
    expect(locked.status).toBe(429);

    // One user adding 20 handles at once, half through each API node: exactly 10 are added.
    const racer = new Browser();
    const joined = await racer.request(api2!.origin, 'POST', '/api/v1/auth/register', {
      username: 'racer',
      email: 'racer@example.com',
      password: 'Sup3r-secret!',
      confirmPassword: 'Sup3r-secret!',
      invitationCode: await inviteCode(db),
      acceptTerms: true,
      acceptPrivacy: true,
    });
    expect(joined.status, joined.text).toBe(201);
    const raced = await Promise.all(
      Array.from({ length: 20 }, (_, index) => {
        const { username } = x.addUser({ username: `race_acct_${index}`, followersCount: 1 });
        const origin = index % 2 === 0 ? api1!.origin : api2!.origin;
        return racer.request(origin, 'POST', '/api/v1/handles', { username, backfill_days: 7 });
      }),
    );
    expect(raced.filter((answer) => answer.status === 201)).toHaveLength(HANDLES_PER_USER);
    const refusedAdds = raced.filter((answer) => answer.status !== 201);
    expect(refusedAdds.map((answer) => answer.status)).toEqual(Array(10).fill(400));
    for (const answer of refusedAdds) {
      expect(answer.text).toContain(`Handle limit reached (${HANDLES_PER_USER})`);
    }
    const raceList = await racer.request(api1!.origin, 'GET', '/api/v1/handles');
    expect((raceList.json.data as { handles: unknown[] }).handles).toHaveLength(HANDLES_PER_USER);

    await reader.cancel().catch(() => undefined);
    await reading;
  }, 300_000);

  it('gives the handle of a worker killed mid-page, and of one frozen while storing a page, to another worker within 30 s, every tweet stored once; the frozen one wakes and writes nothing', async () => {
    // A deployment of its own: three workers on a fresh schema and key prefix, reading X
    // through a gate that holds the pages the test picks. Rows are written directly: no API.
    const own = await createTestDb('postgres');
    extraDbs.push(own);
    const gate = await startXGate(x.baseUrl);
    gates.push(gate);
    const deployment = {
      databaseUrl: own.config.DATABASE_URL,
      prefix: `${prefix}-takeover`,
      xBaseUrl: gate.baseUrl,
    };
    extraPrefixes.push(deployment.prefix);
    const workers = await Promise.all(
      ['worker-3', 'worker-4', 'worker-5'].map((name) => start(name, 'worker', deployment)),
    );
    const now = new Date().toISOString();
    const user = await insertUser(own.db, {
      username: 'takeover',
      email: 'takeover@example.com',
      passwordHash: 'not-a-hash',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: now,
    });
    const account = (seed: number) => {
      const xUser = x.addUser({ username: `takeover_${seed}`, followersCount: 10 });
      x.addTweets(xUser.id, recentWirePosts(seed, TWEETS_PER_HANDLE));
      return { ...xUser, seed };
    };
    const follow = async (username: string) => {
      const handle = await insertHandle(own.db, { username, backfillDays: 7, now });
      await insertLink(own.db, { userId: user.id, handleId: handle.id, backfillDays: 7, now });
      return handle.id;
    };
    /** The worker whose job holds the handle now (node ids carry the pid). */
    const holderOf = async (handleId: number) => {
      const owner = (await findHandleById(own.db, handleId))?.lease_owner ?? '';
      const holder = workers.find((worker) => owner.includes(`-${worker.child.pid}-`));
      if (!holder) throw new Error(`no worker holds handle ${handleId} (lease: '${owner}')`);
      return holder;
    };
    /** When X was next asked for the account's timeline after `since`, by any worker. */
    const nextReadAfter = async (xUserId: string, since: number) => {
      const read = () =>
        x.requests.find((r) => r.path === `/2/users/${xUserId}/tweets` && r.at > since);
      await expect.poll(read, { timeout: TAKEOVER_MS + 10_000, interval: 100 }).toBeDefined();
      return read()!.at;
    };
    const expectExact = async (handleId: number, seed: number) =>
      expect(await storedTweetIds(own, handleId)).toEqual(
        recentWirePosts(seed, TWEETS_PER_HANDLE)
          .map((t) => t.id)
          .sort(),
      );

    // kill -9 of the worker waiting for page 2 of the first account.
    const killedAccount = account(100);
    const killedPage = gate.holdNextPage(killedAccount.id);
    const killedHandle = await follow(killedAccount.username);
    await killedPage.arrived;
    const killed = await holderOf(killedHandle);
    killed.child.kill('SIGKILL');
    const killedAt = Date.now();

    // SIGSTOP of the worker storing page 2 of the second account, while its store waits for the
    // handle's row. On PostgreSQL a page is stored by one statement (tweets.repository.ts,
    // upsertInOneStatement): released, it finishes on the server while the worker stays
    // stopped, and no transaction stays open behind it, so nothing holds the row.
    const frozenAccount = account(101);
    const frozenPage = gate.holdNextPage(frozenAccount.id);
    const frozenHandle = await follow(frozenAccount.username);
    await frozenPage.arrived;
    const frozen = await holderOf(frozenHandle);
    // Page 2 is asked for while page 1 is still being stored (the walk reads ahead): page 1's
    // progress is saved first, so that what waits for the row below is page 2's store.
    await expect
      .poll(async () => (await findHandleById(own.db, frozenHandle))?.total_tweets_collected, {
        timeout: 10_000,
        interval: 50,
      })
      .toBeGreaterThan(0);
    const locker = new pg.Client({ connectionString: own.config.DATABASE_URL });
    await locker.connect();
    let stoppedAt: number;
    try {
      await locker.query('begin');
      await locker.query('select id from handles where id = $1 for update', [frozenHandle]);
      const { rows } = await locker.query<{ pid: number }>('select pg_backend_pid() as pid');
      frozenPage.release();
      // Read on another connection: a transaction sees pg_stat_activity as it first read it.
      const [blocked] = await waitFor(
        async () =>
          (
            await sql<{ pid: number }>`
              select pid from pg_stat_activity
              where ${rows[0]!.pid}::int = any(pg_blocking_pids(pid))
                and query like '%json_populate_recordset%'`.execute(own.db)
          ).rows,
        (waiting) => waiting.length > 0,
      );
      frozen.child.kill('SIGSTOP');
      stoppedAt = Date.now();
      await locker.query('rollback');
      await waitFor(
        async () =>
          (
            await sql<{ state: string }>`
              select state from pg_stat_activity where pid = ${blocked!.pid}`.execute(own.db)
          ).rows[0]?.state,
        (state) => state === 'idle',
      );
      // Nothing of the stopped worker holds the handle's row.
      await locker.query('select id from handles where id = $1 for update nowait', [frozenHandle]);
    } finally {
      await locker.end();
    }

    // The third worker reads both timelines again within the promised time.
    const takeover = {
      killed: (await nextReadAfter(killedAccount.id, killedAt)) - killedAt,
      frozen: (await nextReadAfter(frozenAccount.id, stoppedAt)) - stoppedAt,
    };
    console.info(
      `takeover: ${takeover.killed} ms after kill -9, ${takeover.frozen} ms after SIGSTOP while storing a page`,
    );
    expect(takeover.killed).toBeLessThan(Math.min(TAKEOVER_MS, LEASE_TAKEOVER_MS));
    expect(takeover.frozen).toBeLessThan(Math.min(TAKEOVER_MS, LEASE_TAKEOVER_MS));
    await expect
      .poll(
        async () =>
          (await Promise.all([killedHandle, frozenHandle].map((id) => findHandleById(own.db, id))))
            .map((handle) => handle?.backfill_status)
            .join(),
        { timeout: 30_000, interval: 250 },
      )
      .toBe('completed,completed');
    await expectExact(killedHandle, killedAccount.seed);
    await expectExact(frozenHandle, frozenAccount.seed);

    // Woken up, the frozen worker finds its lease gone, and its transaction with it: it says so,
    // keeps running, and writes nothing.
    const asleep = frozen.output().length;
    frozen.child.kill('SIGCONT');
    const woken = () => frozen.output().slice(asleep).split('\n');
    await expect
      .poll(
        () =>
          woken().some(
            (line) =>
              line.includes('lost the lease on the handle') &&
              line.includes(`"handleId":${frozenHandle}`),
          ),
        { timeout: 15_000, interval: 100 },
      )
      .toBe(true);
    await sleep(1_000);
    expect(frozen.child.exitCode).toBeNull();
    // Warnings only: its transaction failed with the lease, which is no failure of the handle.
    expect(woken().filter((line) => /"level":(50|60)\b/.test(line))).toEqual([]);
    expect(await findHandleById(own.db, frozenHandle)).toMatchObject({
      backfill_status: 'completed',
      last_error: null,
      total_tweets_collected: TWEETS_PER_HANDLE,
    });
    await expectExact(frozenHandle, frozenAccount.seed);
  }, 120_000);
});
