/**
 * Scale-out mode for real: two API and two worker processes (src/main.ts with PERCH_ROLE) on the
 * PostgreSQL and Redis of this machine, isolated by a schema and a key prefix, against the
 * loopback fakes of X, Telegram and Discord. Run last and alone (scripts/test.mjs), as it starts
 * four servers: `npx vitest run -c apps/server/vitest.scale-out.config.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startFakeDiscordServer, type FakeDiscordServer } from '../fakes/fake-discord-server.js';
import { startFakeTelegramServer, type FakeTelegramServer } from '../fakes/fake-telegram-server.js';
import { startFakeXServer, type FakeXServer, type FakeXTweet } from '../fakes/fake-x-server.js';
import { createTestDb, inviteCode, type TestDb } from '../helpers.js';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const USERS = 5;
const HANDLES_PER_USER = 10;
const TWEETS_PER_HANDLE = 240;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Node {
  name: string;
  child: ChildProcess;
  origin: string;
  output: () => string;
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

/** `count` posts over the last six days, newest first. */
function posts(seed: number, count: number): FakeXTweet[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, index) => ({
    id: String(1_910_000_000_000_000_000n + BigInt(seed) * 1_000n + BigInt(count - index)),
    text: `Post ${count - index} of account ${seed}`,
    created_at: new Date(now - 3_600_000 - (index * 6 * 86_400_000) / count).toISOString(),
    lang: 'en',
    public_metrics: {
      like_count: index % 50,
      retweet_count: index % 7,
      reply_count: index % 3,
      quote_count: 0,
      impression_count: 500 + index,
    },
  }));
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

  async function start(name: string, role: 'api' | 'worker'): Promise<Node> {
    const child = spawn(
      process.execPath,
      ['--conditions=@perch/source', '--import', 'tsx', 'src/main.ts'],
      {
        cwd: SERVER_DIR,
        env: {
          ...process.env,
          PERCH_ROLE: role,
          DATABASE_URL: db.config.DATABASE_URL,
          REDIS_URL,
          REDIS_PREFIX: prefix,
          DATA_DIR: path.join(dataDir, name),
          SECRET_KEY: 'scale-out-test-secret-key-0123456789abcdef',
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          TWEET_SOURCE: 'x-api',
          X_BEARER_TOKEN: x.bearerToken,
          X_API_BASE_URL: x.baseUrl,
          MONITOR_INTERVAL_SECONDS: '5',
          COLLECTOR_CONCURRENCY: '3',
          TELEGRAM_BOT_TOKEN: telegram.token,
          TELEGRAM_API_BASE_URL: telegram.baseUrl,
          TELEGRAM_POLL_UPDATES: 'false',
          DISCORD_BOT_TOKEN: discord.token,
          DISCORD_API_BASE_URL: discord.baseUrl,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const origin =
        /Perch is running at (http:\/\/[^/\s]+)/.exec(output)?.[1] ??
        /health: (http:\/\/[^/\s]+)\/api/.exec(output)?.[1];
      if (origin) {
        const node = { name, child, origin, output: () => output };
        nodes.push(node);
        return node;
      }
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`${name} did not start:\n${output}`);
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
      x.addTweets(user.id, posts(i, TWEETS_PER_HANDLE));
      xUsers.push({ id: user.id, username: user.username });
    }
  }, 60_000);

  afterAll(async () => {
    for (const node of nodes) {
      if (node.child.exitCode === null && node.child.signalCode === null)
        node.child.kill('SIGKILL');
    }
    await x?.close();
    await telegram?.close();
    await discord?.close();
    await db?.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('collects every handle once across workers, survives a killed worker, and shares events, sessions and limits between API nodes', async () => {
    // Each timeline page answers after 40 ms, so the backfills take a few seconds.
    x.stallNext('users/tweets', { times: 100_000, ms: 40 });
    const [worker1] = await Promise.all([start('worker-1', 'worker'), start('worker-2', 'worker')]);
    const [api1, api2] = await Promise.all([start('api-1', 'api'), start('api-2', 'api')]);

    // A worker serves its health and metrics, and nothing of the API.
    expect((await fetch(`${worker1!.origin}/api/v1/health`)).status).toBe(200);
    expect((await fetch(`${worker1!.origin}/metrics`)).status).toBe(200);
    expect((await fetch(`${worker1!.origin}/api/v1/handles`)).status).toBe(404);

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
        posts(index, TWEETS_PER_HANDLE)
          .map((t) => t.id)
          .sort(),
      );
    }

    // Every timeline page was requested once; only pages in flight on the killed worker (at
    // most its 3 job slots) were asked again.
    const pageKey = (r: (typeof x.requests)[number]) =>
      `${r.path}?${r.query.pagination_token ?? ''}:${r.query.start_time ?? ''}`;
    const pages = x.requests.filter((r) => r.endpoint === 'users/tweets' && !r.query.since_id);
    const firstPart = pages.filter((r) => x.requests.indexOf(r) < killedAt).map(pageKey);
    expect(new Set(firstPart).size).toBe(firstPart.length);
    const all = pages.map(pageKey);
    expect(all.length - new Set(all).size).toBeLessThanOrEqual(3);

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

    await reader.cancel().catch(() => undefined);
    await reading;
  }, 300_000);
});
