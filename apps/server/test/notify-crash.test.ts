import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { invitationCodeHash } from '../src/modules/invitations/invitations.repository.js';
import { startFakeDiscordServer, type FakeDiscordServer } from './fakes/fake-discord-server.js';
import { startFakeTelegramServer, type FakeTelegramServer } from './fakes/fake-telegram-server.js';
import { startFakeXServer, type FakeXServer } from './fakes/fake-x-server.js';
import { DIALECTS } from './helpers.js';
import { makeTweet, waitUntil } from './notify-helpers.js';
import { spawnFromSource } from './processes.js';

const INVITE = 'PERCH-CRSH-TEST-0001';
const USERS = 6;
// Enough that most still wait when the first process dies: Telegram takes one a second per chat.
const NEW_TWEETS = 6;

interface Running {
  child: ChildProcess;
  origin: string;
  output: () => string;
}

const children: ChildProcess[] = [];
let dataDir = '';
/** Empty for SQLite (in dataDir); a private schema of TEST_DATABASE_URL for PostgreSQL. */
let databaseUrl = '';
let schema = '';
let telegram: FakeTelegramServer | undefined;
let discord: FakeDiscordServer | undefined;
let fakeX: FakeXServer | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exitOf(child);
    }
  }
  await telegram?.close();
  await discord?.close();
  await fakeX?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  if (schema) {
    await adminQuery(`drop schema if exists ${schema} cascade`);
    schema = '';
    databaseUrl = '';
  }
});

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  await client.query(text);
  await client.end();
}

/** Runs SQL on the test's database, whichever it is (SQLite file or PostgreSQL schema). */
async function query<T>(text: string, params: unknown[] = []): Promise<T[]> {
  if (!databaseUrl) {
    const db = new Database(path.join(dataDir, 'perch.db'));
    try {
      const sqliteText = text.replace(/\$\d+/g, '?');
      const statement = db.prepare(sqliteText);
      return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as T[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** src/main.ts on a free port, on `dataDir`, with the fakes as Telegram, Discord and X. */
async function startMain(): Promise<Running> {
  const { child, output } = spawnFromSource('src/main.ts', {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    TELEGRAM_BOT_TOKEN: telegram!.token,
    TELEGRAM_API_BASE_URL: telegram!.baseUrl,
    DISCORD_BOT_TOKEN: discord!.token,
    DISCORD_API_BASE_URL: discord!.baseUrl,
    X_BEARER_TOKEN: 'test-bearer-token',
    X_API_BASE_URL: fakeX!.baseUrl,
    MONITOR_INTERVAL_SECONDS: '5',
    // Each tweet as its own message: this test counts them.
    NOTIFY_DIGEST_AFTER: '100',
    // The dead process's claims free up after this, rather than the default minute.
    NOTIFY_LEASE_SECONDS: '5',
  });
  children.push(child);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const origin = /Perch is running at (http:\/\/[^/\s]+)/.exec(output())?.[1];
    if (origin) return { child, origin, output };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`did not start:\n${output()}`);
}

/** A signed-in browser-like client over fetch (cookies and the CSRF header). */
class Session {
  private cookies = new Map<string, string>();
  constructor(private origin: string) {}

  rebase(origin: string): void {
    this.origin = origin;
  }

  async call(method: string, url: string, body?: unknown): Promise<Response> {
    if (!this.cookies.has('perch_csrf')) {
      this.cookies.set('perch_csrf', 'x'.repeat(40));
    }
    const response = await fetch(`${this.origin}/api/v1${url}`, {
      method,
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'x-csrf-token': this.cookies.get('perch_csrf')!,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  }
}

describe.each(DIALECTS)('a crash during delivery (%s)', (dialect) => {
  it('SIGKILL mid-delivery, start again: every notification arrives; only rows in flight may repeat, never on Discord', async () => {
    if (dialect === 'postgres') {
      schema = `crash_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      await adminQuery(`create schema ${schema}`);
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      databaseUrl = url.toString();
    }
    telegram = await startFakeTelegramServer();
    discord = await startFakeDiscordServer();
    fakeX = await startFakeXServer();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-notify-crash-'));
    const xUser = fakeX.addUser({ username: 'CrashFeed' });
    fakeX.addSourceTweets(xUser.id, [
      makeTweet({ createdAt: new Date(Date.now() - 86_400_000).toISOString() }),
    ]);

    const first = await startMain();
    await query(
      "insert into invitations (code_hash, role, max_uses, uses, created_at) values ($1, 'user', 100, 0, $2)",
      [invitationCodeHash(INVITE), new Date().toISOString()],
    );

    const people: { session: Session; chat: string; discord: string }[] = [];
    let handleId = 0;
    for (let i = 0; i < USERS; i++) {
      const session = new Session(first.origin);
      const chat = String(400_000 + i);
      const discordId = String(82198898841029460n + 100n + BigInt(i));
      const registered = await session.call('POST', '/auth/register', {
        username: `crash${i}`,
        email: `crash${i}@example.com`,
        password: 'Sup3r-secret!',
        confirmPassword: 'Sup3r-secret!',
        invitationCode: INVITE,
      });
      expect(registered.status).toBe(201);
      const saved = await session.call('POST', '/settings', {
        telegram_chat_id: chat,
        discord_user_id: discordId,
        twitter_username: `crash${i}`,
      });
      expect(saved.status).toBe(200);
      const added = await session.call('POST', '/handles', { username: 'crashfeed' });
      expect(added.status).toBe(201);
      handleId = ((await added.json()) as { data: { handle: { id: number } } }).data.handle.id;
      for (const toggle of [{ telegramEnabled: true }, { discordEnabled: true }]) {
        expect(
          (await session.call('PUT', `/handles/${handleId}/notifications`, toggle)).status,
        ).toBe(200);
      }
      expect((await session.call('POST', '/bot/start')).status).toBe(200);
      people.push({ session, chat, discord: discordId });
    }

    await waitUntil(
      async () => {
        const response = await people[0]!.session.call('GET', '/handles');
        const { data } = (await response.json()) as {
          data: { handles: { backfill_status: string }[] };
        };
        return data.handles[0]?.backfill_status === 'completed';
      },
      20_000,
      'the backfill',
    );
    // Nothing was announced for the backfilled tweet.
    expect(telegram.messages).toHaveLength(0);

    const fresh = Array.from({ length: NEW_TWEETS }, (_, i) =>
      makeTweet({ createdAt: new Date(Date.now() - (NEW_TWEETS - i) * 1000).toISOString() }),
    );
    fakeX.addSourceTweets(xUser.id, fresh);
    // Monitoring finds them within MONITOR_INTERVAL_SECONDS; kill once some went out (Telegram
    // sends one a second per chat, so most are still waiting).
    await waitUntil(() => telegram!.messages.length >= USERS * 2, 30_000, 'first deliveries');
    first.child.kill('SIGKILL');
    await exitOf(first.child);
    const beforeRestart = telegram.messages.length;
    expect(beforeRestart).toBeLessThan(USERS * NEW_TWEETS);
    // The rows the dead process had claimed: whether their message arrived is unknown, so they
    // are the only ones that may arrive twice (delivery is at-least-once in that window).
    const claimed = await query<{
      channel: string;
      tweet_id: string;
      telegram_chat_id: string;
      discord_user_id: string;
    }>(
      `select o.channel, o.tweet_id, s.telegram_chat_id, s.discord_user_id
       from notification_outbox o join user_settings s on s.user_id = o.user_id
       where o.status = 'sending'`,
    );
    const inFlight = new Set(
      claimed.map((row) =>
        row.channel === 'telegram'
          ? `telegram:${row.telegram_chat_id}:${row.tweet_id}`
          : `discord:${row.discord_user_id}:${row.tweet_id}`,
      ),
    );

    const second = await startMain();
    for (const person of people) person.session.rebase(second.origin);
    const expected = USERS * NEW_TWEETS;
    await waitUntil(
      () =>
        new Set(telegram!.messages.map((m) => `${m.chatId}:${/status\/(\d+)/.exec(m.raw)?.[1]}`))
          .size === expected &&
        new Set(
          discord!.messages.map(
            (m) => `${m.userId}:${/status\/(\d+)/.exec(String(m.embeds[0]?.url))?.[1]}`,
          ),
        ).size === expected,
      // The dead process's claims are free once their lease (5 s) runs out.
      60_000,
      'every notification',
    );
    // Every row is done once none is pending or in flight: nothing can be sent again after that.
    await waitUntil(
      async () =>
        (
          await query<{ n: number | string }>(
            "select count(*) as n from notification_outbox where status <> 'sent'",
          )
        ).every((row) => Number(row.n) === 0),
      15_000,
      'every row sent',
    );
    second.child.kill('SIGTERM');
    await exitOf(second.child);

    const ids = fresh.map((tweet) => tweet.id).sort();
    for (const person of people) {
      const toChat = telegram.messagesTo(person.chat).map((m) => /status\/(\d+)/.exec(m.raw)?.[1]);
      expect([...new Set(toChat)].sort()).toEqual(ids);
      const toUser = discord
        .messagesTo(person.discord)
        .map((m) => /status\/(\d+)/.exec(String(m.embeds[0]?.url))?.[1]);
      expect([...new Set(toUser)].sort()).toEqual(ids);
    }
    // Every message that came twice belongs to a row the dead process had in flight.
    const seen = new Map<string, number>();
    for (const m of telegram.messages) {
      const key = `telegram:${m.chatId}:${/status\/(\d+)/.exec(m.raw)?.[1]}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    for (const m of discord.messages) {
      const key = `discord:${m.userId}:${/status\/(\d+)/.exec(String(m.embeds[0]?.url))?.[1]}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    const doubled = [...seen].filter(([, count]) => count > 1);
    // Discord answers a resent nonce with the first message: no duplicate there at all.
    expect(doubled.filter(([key]) => key.startsWith('discord:'))).toEqual([]);
    for (const [key, count] of doubled) {
      expect(inFlight.has(key), `${key} came twice but was not in flight`).toBe(true);
      expect(count).toBe(2);
    }
    expect(doubled.length).toBeLessThanOrEqual(inFlight.size);

    const rows = await query<{ status: string; n: number | string }>(
      'select status, count(*) as n from notification_outbox group by status',
    );
    const [pending] = await query<{ n: number | string }>(
      'select count(*) as n from tweets where fanout_pending = $1',
      [dialect === 'postgres' ? true : 1],
    );
    expect(rows.map((row) => ({ status: row.status, n: Number(row.n) }))).toEqual([
      { status: 'sent', n: expected * 2 },
    ]);
    expect(Number(pending?.n)).toBe(0);
  }, 200_000);
});
