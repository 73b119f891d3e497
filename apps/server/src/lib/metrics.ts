import { performance } from 'node:perf_hooks';
import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type Metric,
} from 'prom-client';
import type { EndpointBudget } from '../domain/tweet-source.js';
import { HttpTally } from './http-tally.js';

/**
 * Prometheus metrics (GET /metrics, modules/system/metrics.plugin.ts). Every app gets its own registry, so
 * tests can build several apps in one process. Counters and histograms count what this process
 * did; the gauges are read when scraped: the queue and the X budgets from this process, handles
 * and deliveries from the database, which is right however many processes share it.
 */

/** How a collection job ended: returned, threw, or was stopped (shutdown, a handle removed). */
export type JobOutcome = 'ok' | 'error' | 'aborted';

/** Told of every collection job that finished (the collector's queue). */
export interface JobMetrics {
  jobFinished(kind: string, seconds: number, outcome: JobOutcome): void;
}

/** Told of every answer the X API gave (status 0: no answer, i.e. a network error or timeout). */
export interface XRequestMetrics {
  xRequest(endpoint: string, status: number): void;
}

/** Jobs of one kind in one state (`waiting`, `active`) right now. */
export interface QueueCount {
  kind: string;
  state: string;
  count: number;
}

/** Handles in one backfill status. */
export interface HandleCount {
  status: string;
  count: number;
}

/** Notification outbox rows of one channel in one status. */
export interface DeliveryCount {
  channel: string;
  status: string;
  count: number;
}

/** What the gauges read when scraped; a gauge whose source is absent has no series. */
export interface ScrapeSources {
  /** The collector queue's jobs by kind and state. */
  queueSnapshot?: () => Promise<QueueCount[]>;
  /** The tweet source's per-endpoint budgets: `source.rateStatus().endpoints`. */
  xRateStatus?: () => EndpointBudget[];
  /** Handles by backfill status (database). */
  handles?: () => Promise<HandleCount[]>;
  /** Outbox rows by channel and status (database). */
  deliveries?: () => Promise<DeliveryCount[]>;
  /** Told when a source fails; that gauge then has no series in this scrape. */
  onError?: (source: string, error: unknown) => void;
}

export interface Metrics extends JobMetrics, XRequestMetrics {
  /** This app's registry: the metrics below and the process's default metrics. */
  readonly registry: Registry;
  /** Content type of `render()`: `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  /**
   * Counts one HTTP answer. `route` is the route pattern (or UNMATCHED_ROUTE), never the raw
   * URL; `seconds` null counts the request without timing it (long-lived streams).
   */
  httpRequest(method: string, route: string, status: number, seconds: number | null): void;
  /** Where the gauges read their values at scrape time (replaces earlier sources). */
  scrapeFrom(sources: ScrapeSources): void;
  /** The exposition text (Prometheus text format 0.0.4). */
  render(): Promise<string>;
}

/** The `route` label of requests no route matched (404s): raw URLs never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Jobs range from a poll (well under a second) to a backfill page waiting for its budget. */
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

let processMetrics: Metric[] | undefined;

/**
 * Node's default metrics (CPU, memory, event loop, GC), made once per process: they describe
 * the process, and each set installs a GC observer and an event-loop monitor for good, so a
 * set per app would pile up in tests that build many apps. Every registry shares this one.
 */
function defaultProcessMetrics(): Metric[] {
  if (!processMetrics) {
    const shared = new Registry();
    collectDefaultMetrics({ register: shared });
    processMetrics = shared
      .getMetricsAsArray()
      .map(({ name }) => shared.getSingleMetric(name))
      .filter((metric): metric is Metric => metric !== undefined);
  }
  return processMetrics;
}

/** Reads a source and, once it answered, replaces the gauge's series with what it said. */
async function refill<T>(
  gauge: Pick<Gauge, 'reset'>,
  name: string,
  read: (() => T[] | Promise<T[]>) | undefined,
  set: (row: T) => void,
  onError: ((source: string, error: unknown) => void) | undefined,
): Promise<void> {
  if (!read) {
    gauge.reset();
    return;
  }
  let rows: T[];
  try {
    rows = await read();
  } catch (error) {
    gauge.reset();
    onError?.(name, error);
    return;
  }
  // Reset only now, after the await, so a concurrent scrape never sees the gauge half empty.
  gauge.reset();
  for (const row of rows) set(row);
}

/** A registry with Perch's metrics and the process's default metrics. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  for (const metric of defaultProcessMetrics()) registry.registerMetric(metric);
  let sources: ScrapeSources = {};
  const counted = createCountedMetrics([registry]);
  registerScrapedGauges([registry], () => sources);
  return {
    registry,
    contentType: registry.contentType,
    httpRequest(method, route, status, seconds) {
      counted.http.record(method, route, status, seconds);
    },
    jobFinished(kind, seconds, outcome) {
      counted.jobDuration.observe({ kind }, seconds);
      counted.jobsTotal.inc({ kind, outcome });
    },
    xRequest(endpoint, status) {
      counted.xRequests.inc({ endpoint, status: String(status) });
    },
    scrapeFrom(next) {
      sources = next;
    },
    render: () => registry.metrics(),
  };
}

/** The metrics counted as things happen: HTTP requests, jobs and X API answers. */
function createCountedMetrics(registers: Registry[]) {
  return {
    http: new HttpTally({
      registers,
      counter: {
        name: 'perch_http_requests_total',
        help: 'HTTP requests answered, by method, route pattern and status code.',
      },
      histogram: {
        name: 'perch_http_request_duration_seconds',
        help: 'Time from receiving an HTTP request to the end of its answer, by method and route pattern.',
        buckets: HTTP_BUCKETS,
      },
    }),
    jobDuration: new Histogram({
      name: 'perch_job_duration_seconds',
      help: 'Run time of collection jobs, by kind.',
      labelNames: ['kind'] as const,
      buckets: JOB_BUCKETS,
      registers,
    }),
    jobsTotal: new Counter({
      name: 'perch_jobs_total',
      help: 'Collection jobs finished, by kind and outcome (ok, error, aborted).',
      labelNames: ['kind', 'outcome'] as const,
      registers,
    }),
    xRequests: new Counter({
      name: 'perch_x_requests_total',
      help: 'Answers of the X API, by endpoint and HTTP status (0: network error or timeout).',
      labelNames: ['endpoint', 'status'] as const,
      registers,
    }),
  };
}

/** The gauges read at each scrape from the sources the app gives (`scrapeFrom`). */
function registerScrapedGauges(registers: Registry[], current: () => ScrapeSources): void {
  const gauge = <T, L extends string>(spec: ScrapedGaugeSpec<T, L>) =>
    scrapedGauge(registers, current, spec);
  gauge({
    name: 'perch_queue_jobs',
    help: "Collection jobs in this process's queue, by kind and state (waiting, active).",
    labelNames: ['kind', 'state'] as const,
    source: 'queue',
    pick: (sources) => sources.queueSnapshot,
    set: (g, { kind, state, count }) => g.set({ kind, state }, count),
  });
  gauge({
    name: 'perch_x_rate_limit_remaining',
    help: "Requests left in the X API endpoint's current window, as its last answer told.",
    labelNames: ['endpoint'] as const,
    source: 'x-rate-status',
    pick: (sources) => sources.xRateStatus,
    set: (g, { endpoint, remaining }) => remaining !== null && g.set({ endpoint }, remaining),
  });
  gauge({
    name: 'perch_x_rate_limit_limit',
    help: 'Requests the X API endpoint allows per window, as its last answer told.',
    labelNames: ['endpoint'] as const,
    source: 'x-rate-status',
    pick: (sources) => sources.xRateStatus,
    set: (g, { endpoint, limit }) => limit !== null && g.set({ endpoint }, limit),
  });
  gauge({
    name: 'perch_handles',
    help: 'Handles by backfill status (pending, starting, in_progress, completed, failed).',
    labelNames: ['status'] as const,
    source: 'handles',
    pick: (sources) => sources.handles,
    set: (g, { status, count }) => g.set({ status }, count),
  });
  gauge({
    name: 'perch_deliveries',
    help: 'Notification outbox rows by channel and status (all processes: read from the database).',
    labelNames: ['channel', 'status'] as const,
    source: 'deliveries',
    pick: (sources) => sources.deliveries,
    set: (g, { channel, status, count }) => g.set({ channel, status }, count),
  });
}

/** A gauge filled at each scrape: its name, help and labels, and where its series come from. */
interface ScrapedGaugeSpec<T, L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  /** The source's name in error reports. */
  source: string;
  /** The source among the current ones. */
  pick: (sources: ScrapeSources) => (() => T[] | Promise<T[]>) | undefined;
  /** Sets the series of one row the source answered. */
  set: (gauge: Gauge<L>, row: T) => void;
}

/** A gauge whose series are replaced at each scrape by what its source answers. */
function scrapedGauge<T, L extends string>(
  registers: Registry[],
  current: () => ScrapeSources,
  { source, pick, set, ...spec }: ScrapedGaugeSpec<T, L>,
): void {
  new Gauge<L>({
    ...spec,
    registers,
    async collect() {
      const sources = current();
      await refill(this, source, pick(sources), (row) => set(this, row), sources.onError);
    },
  });
}

/**
 * Wraps a job handler so every job it runs is timed and counted: 'aborted' when its signal was
 * aborted by the time it ended (whether it returned or threw), 'error' when it threw otherwise.
 * Without `metrics`, the handler itself.
 */
export function withJobMetrics<J extends { kind: string }>(
  handler: (job: J, signal: AbortSignal) => Promise<void>,
  metrics: JobMetrics | undefined,
): (job: J, signal: AbortSignal) => Promise<void> {
  if (!metrics) return handler;
  return async (job, signal) => {
    const startedAt = performance.now();
    let outcome: JobOutcome = 'ok';
    try {
      await handler(job, signal);
    } catch (error) {
      outcome = 'error';
      throw error;
    } finally {
      if (signal.aborted) outcome = 'aborted';
      metrics.jobFinished(job.kind, (performance.now() - startedAt) / 1000, outcome);
    }
  };
}
