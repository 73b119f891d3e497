import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { HandleStatus, NotificationChannel, OutboxStatus } from '../src/db/types.js';
import {
  createMetrics,
  withJobMetrics,
  type Metrics,
  type QueueCount,
} from '../src/lib/metrics.js';
import { insertHandle, updateHandle } from '../src/modules/handles/handles.repository.js';
import { insertUser } from '../src/modules/users/users.repository.js';
import {
  METRICS_PATH,
  metricsPlugin,
  type MetricsPluginOptions,
} from '../src/modules/system/metrics.plugin.js';
import { DIALECTS, TestClient, createTestDb, type TestDb } from './helpers.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  /** `# TYPE` of each metric family. */
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
/** Go's ParseFloat, which Prometheus parses values with: NaN and Inf in any case. */
const VALUE =
  '(?:[-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?[iI][nN][fF]|[nN][aA][nN])';
const SAMPLE_RE = new RegExp(
  `^(${NAME})(?:\\{((?:${LABEL})(?:,(?:${LABEL}))*,?)?\\})? (${VALUE})(?: -?[0-9]+)?$`,
);
const LABEL_RE = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** The family a sample belongs to: histogram and summary series carry a suffix. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return types.has(base) ? base : undefined;
}

/**
 * Parses Prometheus text exposition format 0.0.4 strictly: every line is a HELP, a TYPE or a
 * sample of a family declared before it; fails the test on anything else.
 */
function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  expect(text.endsWith('\n'), 'exposition ends with a newline').toBe(true);
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const help = new RegExp(`^# HELP (${NAME}) .*$`).exec(line);
      const type = new RegExp(`^# TYPE (${NAME}) (\\w+)$`).exec(line);
      if (type) {
        expect(TYPES.has(type[2] ?? ''), line).toBe(true);
        expect(types.has(type[1] ?? ''), `one TYPE per family: ${line}`).toBe(false);
        types.set(type[1] ?? '', type[2] ?? '');
      } else {
        expect(help, `a comment line is HELP or TYPE: ${line}`).not.toBeNull();
      }
      continue;
    }
    const match = SAMPLE_RE.exec(line);
    expect(match, `a sample line: ${line}`).not.toBeNull();
    if (!match) continue;
    const name = match[1] ?? '';
    expect(familyOf(name, types), `sample of a declared family: ${line}`).toBeDefined();
    const labels: Record<string, string> = {};
    for (const [, key = '', value = ''] of (match[2] ?? '').matchAll(LABEL_RE)) {
      labels[key] = value;
    }
    const raw = match[3] ?? '';
    const value = /inf$/i.test(raw)
      ? raw.startsWith('-')
        ? -Infinity
        : Infinity
      : /nan/i.test(raw)
        ? Number.NaN
        : Number(raw);
    samples.push({ name, labels, value });
  }
  return { types, samples };
}

/** The samples of a series name whose labels include `labels`. */
function find(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return exposition.samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The value of the one series matching; fails when there is none or several. */
function valueOf(exposition: Exposition, name: string, labels: Record<string, string>): number {
  const found = find(exposition, name, labels);
  expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
  return found[0]?.value ?? Number.NaN;
}

/** Histogram series are consistent: cumulative buckets, +Inf equal to _count. */
function expectHistogram(exposition: Exposition, name: string, labels: Record<string, string>) {
  const buckets = find(exposition, `${name}_bucket`, labels);
  expect(buckets.length).toBeGreaterThan(1);
  const values = buckets.map((bucket) => bucket.value);
  expect([...values].sort((a, b) => a - b)).toEqual(values);
  const inf = buckets.find((bucket) => bucket.labels.le === '+Inf');
  expect(inf?.value).toBe(valueOf(exposition, `${name}_count`, labels));
  return { count: inf?.value ?? 0, sum: valueOf(exposition, `${name}_sum`, labels) };
}

interface MetricsApp {
  app: FastifyInstance;
  db: TestDb;
  metrics: Metrics;
  close(): Promise<void>;
}

/** The real app on a fresh database, with the metrics plugin registered before it is ready. */
async function buildMetricsApp(
  dialect: TestDb['dialect'],
  sources: Omit<MetricsPluginOptions, 'metrics' | 'db'> = {},
): Promise<MetricsApp> {
  const db = await createTestDb(dialect);
  const metrics = createMetrics();
  const app = await buildApp({ config: db.config, db, logger: false });
  await app.register(metricsPlugin, { metrics, db, ...sources });
  await app.ready();
  return {
    app,
    db,
    metrics,
    async close() {
      await app.close();
      await db.dispose();
    },
  };
}

async function scrape(app: FastifyInstance): Promise<Exposition> {
  const response = await app.inject({ method: 'GET', url: METRICS_PATH });
  expect(response.statusCode, response.body).toBe(200);
  return parseExposition(response.body);
}

describe.each(DIALECTS)('GET /metrics (%s)', (dialect) => {
  let t: MetricsApp;
  let queue: QueueCount[] = [];

  beforeAll(async () => {
    t = await buildMetricsApp(dialect, {
      queueSnapshot: async () => queue,
      xRateStatus: () => [
        {
          endpoint: 'users/tweets',
          limit: 1500,
          remaining: 1499,
          resetAt: new Date().toISOString(),
        },
        // Known from a headerless 429 only: no numbers, so no series.
        { endpoint: 'tweets', limit: null, remaining: null, resetAt: new Date().toISOString() },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers in the Prometheus text format without a session, cookie or API headers', async () => {
    const response: LightMyRequestResponse = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    // Outside /api: no CSRF cookie handed out, and not the JSON API's envelope.
    expect(response.cookies).toEqual([]);
    const exposition = parseExposition(response.body);
    for (const [name, type] of [
      ['perch_http_requests_total', 'counter'],
      ['perch_http_request_duration_seconds', 'histogram'],
      ['perch_job_duration_seconds', 'histogram'],
      ['perch_jobs_total', 'counter'],
      ['perch_queue_jobs', 'gauge'],
      ['perch_x_requests_total', 'counter'],
      ['perch_x_rate_limit_remaining', 'gauge'],
      ['perch_x_rate_limit_limit', 'gauge'],
      ['perch_deliveries', 'gauge'],
      ['perch_handles', 'gauge'],
      // Default process metrics.
      ['process_cpu_user_seconds_total', 'counter'],
      ['nodejs_heap_size_used_bytes', 'gauge'],
    ] as const) {
      expect(exposition.types.get(name), name).toBe(type);
    }
  });

  it('counts requests by route pattern and status, never by raw URL, and not itself', async () => {
    const client = new TestClient(t.app);
    const before = await scrape(t.app);
    const count = (exposition: Exposition, labels: Record<string, string>) =>
      find(exposition, 'perch_http_requests_total', labels).reduce((sum, s) => sum + s.value, 0);

    expect((await client.get('/api/v1/health')).statusCode).toBe(200);
    expect((await client.get('/api/v1/health?probe=1')).statusCode).toBe(200);
    expect((await client.get('/api/v1/handles/alice/tweets')).statusCode).toBe(401);
    expect((await client.get('/api/v1/handles/bob/tweets')).statusCode).toBe(401);
    expect((await client.get('/no/such/page-123')).statusCode).toBe(404);
    expect((await client.get('/api/v1/no-such-route')).statusCode).toBe(404);
    // A state-changing request without the CSRF header is refused (403) and still counted.
    expect((await client.post('/api/v1/auth/logout', {})).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout', payload: {} })).statusCode,
    ).toBe(403);

    const after = await scrape(t.app);
    const delta = (labels: Record<string, string>) => count(after, labels) - count(before, labels);
    expect(delta({ method: 'GET', route: '/api/v1/health', status: '200' })).toBe(2);
    expect(delta({ method: 'GET', route: '/api/v1/handles/:handle/tweets', status: '401' })).toBe(
      2,
    );
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(2);
    expect(delta({ method: 'POST', route: '/api/v1/auth/logout', status: '403' })).toBe(1);

    const health = expectHistogram(after, 'perch_http_request_duration_seconds', {
      method: 'GET',
      route: '/api/v1/health',
    });
    expect(health.count).toBeGreaterThanOrEqual(2);
    expect(health.sum).toBeGreaterThan(0);

    const routes = new Set(
      find(after, 'perch_http_requests_total').map((sample) => sample.labels.route),
    );
    for (const route of routes) {
      expect(route, 'no raw path or query in a label').not.toMatch(/alice|bob|\?|page-123/);
    }
    // Scrapes are not counted, however many there were.
    expect(routes.has(METRICS_PATH)).toBe(false);
    expect(
      find(after, 'perch_http_request_duration_seconds_count', { route: METRICS_PATH }),
    ).toEqual([]);
  });

  it('reads handles and deliveries per status from the database', async () => {
    const now = new Date().toISOString();
    const user = await insertUser(t.db.db, {
      username: 'metrics_user',
      email: 'metrics_user@example.com',
      passwordHash: 'x',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: now,
    });
    const statuses: HandleStatus[] = ['pending', 'in_progress', 'in_progress', 'completed'];
    const handleIds: number[] = [];
    for (const [index, status] of statuses.entries()) {
      const handle = await insertHandle(t.db.db, {
        username: `metrics_${index}`,
        backfillDays: 7,
        now,
      });
      await updateHandle(t.db.db, handle.id, { backfill_status: status });
      handleIds.push(handle.id);
    }
    const deliveries: [NotificationChannel, OutboxStatus][] = [
      ['telegram', 'sent'],
      ['telegram', 'sent'],
      ['telegram', 'pending'],
      ['discord', 'failed'],
    ];
    for (const [index, [channel, status]] of deliveries.entries()) {
      await t.db.db
        .insertInto('notification_outbox')
        .values({
          user_id: user.id,
          handle_id: handleIds[0] ?? 0,
          tweet_id: String(1000 + index),
          channel,
          status,
          next_attempt_at: now,
          created_at: now,
          sent_at: status === 'sent' ? now : null,
        })
        .execute();
    }

    const exposition = await scrape(t.app);
    expect(valueOf(exposition, 'perch_handles', { status: 'pending' })).toBe(1);
    expect(valueOf(exposition, 'perch_handles', { status: 'in_progress' })).toBe(2);
    expect(valueOf(exposition, 'perch_handles', { status: 'completed' })).toBe(1);
    // Statuses nobody is in read 0 rather than vanishing.
    expect(valueOf(exposition, 'perch_handles', { status: 'failed' })).toBe(0);
    expect(valueOf(exposition, 'perch_handles', { status: 'starting' })).toBe(0);

    const delivery = (channel: string, status: string) =>
      valueOf(exposition, 'perch_deliveries', { channel, status });
    expect(delivery('telegram', 'sent')).toBe(2);
    expect(delivery('telegram', 'pending')).toBe(1);
    expect(delivery('discord', 'failed')).toBe(1);
    expect(delivery('discord', 'sent')).toBe(0);
    expect(find(exposition, 'perch_deliveries')).toHaveLength(14);

    // A gauge follows the database: a row that changes status moves between series.
    await updateHandle(t.db.db, handleIds[0] ?? 0, { backfill_status: 'failed' });
    const later = await scrape(t.app);
    expect(valueOf(later, 'perch_handles', { status: 'pending' })).toBe(0);
    expect(valueOf(later, 'perch_handles', { status: 'failed' })).toBe(1);
  });

  it("reads the queue and the X budgets at scrape time from the app's callbacks", async () => {
    queue = [
      { kind: 'poll', state: 'waiting', count: 3 },
      { kind: 'backfill', state: 'active', count: 1 },
    ];
    const exposition = await scrape(t.app);
    expect(valueOf(exposition, 'perch_queue_jobs', { kind: 'poll', state: 'waiting' })).toBe(3);
    expect(valueOf(exposition, 'perch_queue_jobs', { kind: 'backfill', state: 'active' })).toBe(1);
    expect(valueOf(exposition, 'perch_x_rate_limit_remaining', { endpoint: 'users/tweets' })).toBe(
      1499,
    );
    expect(valueOf(exposition, 'perch_x_rate_limit_limit', { endpoint: 'users/tweets' })).toBe(
      1500,
    );
    expect(find(exposition, 'perch_x_rate_limit_remaining', { endpoint: 'tweets' })).toEqual([]);

    // A job that left the queue leaves the gauge.
    queue = [{ kind: 'poll', state: 'waiting', count: 1 }];
    const later = await scrape(t.app);
    expect(find(later, 'perch_queue_jobs')).toHaveLength(1);
  });

  it('counts finished jobs by kind and outcome, and X answers by endpoint and status', async () => {
    const handler = withJobMetrics<{ kind: string }>(async (job, signal) => {
      if (job.kind === 'backfill') throw new Error('boom');
      if (job.kind === 'metrics') await new Promise((resolve) => setTimeout(resolve, 5));
      if (signal.aborted) return;
    }, t.metrics);
    await handler({ kind: 'poll' }, new AbortController().signal);
    await handler({ kind: 'metrics' }, new AbortController().signal);
    await expect(handler({ kind: 'backfill' }, new AbortController().signal)).rejects.toThrow(
      'boom',
    );
    const stopped = new AbortController();
    stopped.abort();
    await handler({ kind: 'poll' }, stopped.signal);
    t.metrics.xRequest('users/tweets', 200);
    t.metrics.xRequest('users/tweets', 200);
    t.metrics.xRequest('users/tweets', 429);
    t.metrics.xRequest('tweets', 0);

    const exposition = await scrape(t.app);
    expect(valueOf(exposition, 'perch_jobs_total', { kind: 'poll', outcome: 'ok' })).toBe(1);
    expect(valueOf(exposition, 'perch_jobs_total', { kind: 'poll', outcome: 'aborted' })).toBe(1);
    expect(valueOf(exposition, 'perch_jobs_total', { kind: 'backfill', outcome: 'error' })).toBe(1);
    const metricsJobs = expectHistogram(exposition, 'perch_job_duration_seconds', {
      kind: 'metrics',
    });
    expect(metricsJobs.count).toBe(1);
    expect(metricsJobs.sum).toBeGreaterThan(0.001);
    expect(expectHistogram(exposition, 'perch_job_duration_seconds', { kind: 'poll' }).count).toBe(
      2,
    );
    const xRequests = (endpoint: string, status: string) =>
      valueOf(exposition, 'perch_x_requests_total', { endpoint, status });
    expect(xRequests('users/tweets', '200')).toBe(2);
    expect(xRequests('users/tweets', '429')).toBe(1);
    expect(xRequests('tweets', '0')).toBe(1);
  });
});

describe('metrics registries', () => {
  it('are per app: two apps in one process count separately', async () => {
    const [dialect = 'sqlite'] = DIALECTS;
    const first = await buildMetricsApp(dialect);
    const second = await buildMetricsApp(dialect);
    try {
      await first.app.inject({ method: 'GET', url: '/api/v1/health' });
      await first.app.inject({ method: 'GET', url: '/api/v1/health' });
      await second.app.inject({ method: 'GET', url: '/api/v1/health' });
      const labels = { method: 'GET', route: '/api/v1/health', status: '200' };
      expect(valueOf(await scrape(first.app), 'perch_http_requests_total', labels)).toBe(2);
      expect(valueOf(await scrape(second.app), 'perch_http_requests_total', labels)).toBe(1);
      // Both still carry the default process metrics.
      expect((await scrape(second.app)).types.get('process_resident_memory_bytes')).toBe('gauge');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('leave out the series of a source that fails, and still answer', async () => {
    const metrics = createMetrics();
    const failures: string[] = [];
    metrics.scrapeFrom({
      queueSnapshot: () => Promise.reject(new Error('redis down')),
      handles: async () => [{ status: 'completed', count: 4 }],
      onError: (source) => failures.push(source),
    });
    const exposition = parseExposition(await metrics.render());
    expect(find(exposition, 'perch_queue_jobs')).toEqual([]);
    expect(valueOf(exposition, 'perch_handles', { status: 'completed' })).toBe(4);
    expect(failures).toEqual(['queue']);
  });
});
