import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Migrator, sql, type MigrationResultSet } from 'kysely';
import { buildApp, type AppOptions } from '../src/app.js';
import { Collector, type CollectorOptions } from '../src/collector/collector.js';
import { createDemoSource } from '../src/sources/index.js';
import type { TweetSource } from '../src/domain/tweet-source.js';
import { loadConfig, type Config } from '../src/config.js';
import { createDb, type Db, type Dialect } from '../src/db/index.js';
import { metCatalogRace, migrateToLatest } from '../src/db/migrate.js';
import { migrations } from '../src/db/migrations/index.js';
import { DEFAULT_HASH_COST, configurePasswordHashing } from '../src/modules/auth/passwords.js';
import { findHandleByName, type HandleRow } from '../src/modules/handles/handles.repository.js';
import type { XUsageMeter } from '../src/modules/x-usage/x-usage.service.js';
import { createInvitation } from '../src/modules/invitations/invitations.service.js';
import type { Role } from '@perch/shared';
import {
  createMigratedSchema,
  migratedSqliteFile,
  releaseSchema,
  schemaUrl,
  testRun,
} from './migrated-templates.js';
import { TEST_PASSWORD, registration } from './registration.js';

/** SQLite always; Postgres too when TEST_DATABASE_URL is set (CI sets it). */
export const DIALECTS: Dialect[] = process.env.TEST_DATABASE_URL
  ? ['sqlite', 'postgres']
  : ['sqlite'];

export interface TestDb extends Db {
  config: Config;
  /** Closes the connection and removes the temp folder or Postgres schema. */
  dispose(): Promise<void>;
}

/**
 * Password hashing for tests: argon2id at 256 KiB and one pass, about a hundredth of the default
 * cost (OWASP's minimum). The suite registers and signs in thousands of accounts, and at the
 * default each hash took about 17 ms of a core and 34 ms of waiting; what is tested is the same
 * code and the same algorithm. Tests that need the real cost (hashes that overlap, the stored
 * format of the default) pass their own PASSWORD_HASH_* values in `env`.
 */
export const TEST_HASH_COST = { PASSWORD_HASH_MEMORY_KIB: '256', PASSWORD_HASH_ITERATIONS: '1' };

/** The production cost (the config's default), for `env` where the cost itself is tested. */
export const DEFAULT_HASH_ENV = {
  PASSWORD_HASH_MEMORY_KIB: String(DEFAULT_HASH_COST.memoryKib),
  PASSWORD_HASH_ITERATIONS: String(DEFAULT_HASH_COST.iterations),
};

/**
 * A fresh, migrated database: a temp SQLite file, or a private schema in TEST_DATABASE_URL so
 * suites never see each other's rows.
 */
export async function createTestDb(
  dialect: Dialect,
  env: Record<string, string> = {},
  /**
   * A PostgreSQL schema made anew rather than one a test handed on: for a test that reads query
   * plans, since the planner counts the pages a handed-on schema's deleted rows still take.
   */
  { fresh = false }: { fresh?: boolean } = {},
): Promise<TestDb> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-test-'));
  let databaseUrl: string | undefined;
  let schema: string | undefined;
  let copied = false;
  if (dialect === 'postgres') {
    const base = process.env.TEST_DATABASE_URL;
    if (!base) throw new Error('TEST_DATABASE_URL is not set');
    schema = `t_${testRun() ?? process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    copied = await createMigratedSchema(base, schema, { fresh });
    databaseUrl = schemaUrl(base, schema);
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    DEMO_PAGE_DELAY_MS: '0',
    ...TEST_HASH_COST,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  // Hashes made by services called directly (without an app) take the same cost.
  configurePasswordHashing(config);
  if (!config.DATABASE_URL) {
    fs.copyFileSync(await migratedSqliteFile(), path.join(dataDir, 'perch.db'));
    copied = true;
  }
  const db = createDb(config);
  // A copy of the migrated template only has its history checked: Kysely's migrator lists every
  // table of the database first, which on PostgreSQL costs more than making the schema did.
  if (copied) await expectFullHistory(db);
  else await migrateToLatest(db);
  return {
    ...db,
    config,
    async dispose() {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (schema) await releaseSchema(process.env.TEST_DATABASE_URL ?? '', schema);
    },
  };
}

/** Fails unless `db` has run every migration there is, as a migrated template has. */
async function expectFullHistory({ db, dialect }: Db): Promise<void> {
  const ran = await db
    .selectFrom(sql<{ name: string }>`kysely_migration`.as('m'))
    .select('m.name')
    .orderBy('m.name')
    .execute();
  const all = Object.keys(migrations(dialect)).sort();
  const names = ran.map((row) => row.name);
  if (names.join() !== all.join()) {
    throw new Error(`a copied test database ran ${names.join(', ')}, not every migration`);
  }
}

/**
 * A migrator of a test database's schema, to go down to an earlier migration, store rows of
 * that time and come back up. On PostgreSQL a run that meets another suite's DDL under Kysely's
 * listing of every schema's tables is tried again, as migrate.ts does (metCatalogRace); the
 * run is one transaction, so nothing of it was applied.
 */
export async function testMigrator({
  db,
  dialect,
}: Db): Promise<Pick<Migrator, 'migrateTo' | 'migrateToLatest'>> {
  const schema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]
          ?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(dialect) },
    migrationTableSchema: schema,
  });
  const retried = async (run: () => Promise<MigrationResultSet>) => {
    for (let attempt = 1; ; attempt++) {
      const result = await run();
      if (!result.error || !metCatalogRace(result) || attempt >= 20) return result;
    }
  };
  return {
    migrateTo: (target) => retried(() => migrator.migrateTo(target)),
    migrateToLatest: () => retried(() => migrator.migrateToLatest()),
  };
}

/** The posts (`tweets.id`) that wait for their alert rules: those of every mark, in order. */
export async function markedPosts({ db }: Db): Promise<number[]> {
  const marks = await db.selectFrom('alert_marks').select('tweet_rows').orderBy('id').execute();
  const posts = marks.flatMap((mark) => JSON.parse(mark.tweet_rows) as number[]);
  return [...new Set(posts)].sort((a, b) => a - b);
}

/**
 * Enabled alert rules of a user on a handle, one per kind (named "Rule 0", "Rule 1", ...), made
 * at `madeAt`, written as stored (the kinds are not checked).
 */
export async function insertAlertRules(
  { db }: Db,
  rules: { userId: number; handleId: number; kinds: readonly object[]; madeAt: string },
): Promise<void> {
  await db
    .insertInto('alert_rules')
    .values(
      rules.kinds.map((kind, i) => ({
        user_id: rules.userId,
        handle_id: rules.handleId,
        name: `Rule ${i}`,
        enabled: true,
        kind: JSON.stringify(kind),
        memory: null,
        created_at: rules.madeAt,
        updated_at: rules.madeAt,
      })),
    )
    .execute();
}

export interface TestApp {
  app: FastifyInstance;
  db: TestDb;
  config: Config;
  /** The running collector (demo source without delay unless `source` was given). */
  collector: Collector;
  /** The X cost meter, when the options made one. */
  xUsage?: XUsageMeter;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /**
   * The tweet source the collector uses (default: demo, no page delay); a function of the
   * database for sources that keep state there (x-web).
   */
  source?: TweetSource | ((db: TestDb) => TweetSource);
  /** Scheduler tick (ms). */
  tickMs?: number;
  /** Keep-alive interval of GET /api/v1/events (ms). */
  eventsKeepAliveMs?: number;
  /** Telegram and Discord clients (default: made from the env, i.e. unavailable). */
  notify?: AppOptions['notify'];
  /** More collector options (probe and round intervals). */
  collector?: Partial<Omit<CollectorOptions, 'db' | 'source'>>;
  /** The X cost meter: the collector's daily budget and the Admin usage card's numbers. */
  xUsage?: (db: TestDb) => XUsageMeter;
  /** Scale-out: the cluster the app shares limits through. */
  cluster?: AppOptions['cluster'];
  /** The clock of session lifetimes and step-up (see testClock). */
  now?: AppOptions['now'];
}

/** The real app and a started collector on a fresh database, for `inject` calls. */
export async function buildTestApp(
  dialect: Dialect,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const db = await createTestDb(dialect, env);
  const xUsage = options.xUsage?.(db);
  const collector = new Collector({
    db,
    source:
      typeof options.source === 'function'
        ? options.source(db)
        : (options.source ?? createDemoSource({ pageDelayMs: 0 })),
    monitorIntervalSeconds: db.config.MONITOR_INTERVAL_SECONDS,
    tickMs: options.tickMs ?? 200,
    budget: xUsage,
    ...options.collector,
  });
  const app = await buildApp({
    xUsage,
    config: db.config,
    db,
    collector,
    logger: false,
    eventsKeepAliveMs: options.eventsKeepAliveMs,
    notify: options.notify,
    cluster: options.cluster,
    now: options.now,
  });
  await app.ready();
  await collector.start();
  return {
    app,
    db,
    config: db.config,
    collector,
    xUsage,
    async close() {
      await collector.stop();
      await app.close();
      await db.dispose();
    },
  };
}

/**
 * A clock for the app's sessions (buildTestApp's `now`) that tests move forward instead of
 * waiting: real time plus what `advance` added, so sessions opened at sign-in (by the real
 * clock) line up with it until the first `advance`. `reset` goes back to real time.
 */
export function testClock() {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms: number) {
      offset += ms;
    },
    reset() {
      offset = 0;
    },
  };
}

/** Reads until `done` accepts the value and returns it; fails the test after `ms`. */
export async function waitFor<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The stored handle of that name; throws when there is none. */
export async function handleNamed({ db }: Db, name: string): Promise<HandleRow> {
  const row = await findHandleByName(db, name);
  if (!row) throw new Error(`no handle ${name}`);
  return row;
}

/** The ids of the tweets stored for a handle, sorted. */
export async function storedTweetIds({ db }: Db, handleId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('tweets')
    .select('tweet_id')
    .where('handle_id', '=', handleId)
    .execute();
  return rows.map((row) => row.tweet_id).sort();
}

/** Makes an invitation and returns its code. */
export async function inviteCode(db: Db, role: Role = 'user', maxUses = 1): Promise<string> {
  const invitation = await createInvitation(db, {
    role,
    maxUses,
    expiresInDays: null,
    createdBy: null,
  });
  return invitation.code;
}

export { TEST_PASSWORD, registration } from './registration.js';

/**
 * A browser-like client over `inject`: keeps cookies, and sends the CSRF header on unsafe
 * methods the way the web client does.
 */
export class TestClient {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly app: FastifyInstance,
    readonly ip = '127.0.0.1',
  ) {}

  /** The CSRF cookie, `__Host-` prefixed when the server has COOKIE_SECURE on. */
  get csrf(): string | undefined {
    return this.cookies.get('__Host-perch_csrf') ?? this.cookies.get('perch_csrf');
  }

  async request(options: InjectOptions & { csrf?: boolean }): Promise<LightMyRequestResponse> {
    const method = (options.method ?? 'GET').toUpperCase();
    const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method);
    if (unsafe && options.csrf !== false && !this.csrf)
      await this.request({ method: 'GET', url: '/api/v1/auth/check' });
    const headers: Record<string, string> = {
      ...(options.headers as Record<string, string> | undefined),
    };
    if (this.cookies.size > 0)
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (unsafe && options.csrf !== false && this.csrf) headers['x-csrf-token'] = this.csrf;
    const { csrf: _csrf, ...rest } = options;
    const response = await this.app.inject({
      ...rest,
      method: method as InjectOptions['method'],
      headers,
      remoteAddress: this.ip,
    });
    for (const cookie of response.cookies as {
      name: string;
      value: string;
      maxAge?: number;
      expires?: Date;
    }[]) {
      const expired =
        cookie.maxAge === 0 || (cookie.expires && cookie.expires.getTime() <= Date.now());
      if (expired || cookie.value === '') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return response;
  }

  get(url: string) {
    return this.request({ method: 'GET', url });
  }

  delete(url: string) {
    return this.request({ method: 'DELETE', url });
  }

  post(url: string, payload?: unknown) {
    return this.request({
      method: 'POST',
      url,
      ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
    });
  }

  /** Registers a user with a fresh invitation of `role`; the client is then signed in. */
  async register(db: Db, username: string, role: Role = 'user', password = TEST_PASSWORD) {
    const code = await inviteCode(db, role);
    const response = await this.post(
      '/api/v1/auth/register',
      registration(username, code, {}, password),
    );
    if (response.statusCode !== 201) throw new Error(`register failed: ${response.body}`);
    return response.json() as { data: { user: { id: number; username: string } } };
  }
}
