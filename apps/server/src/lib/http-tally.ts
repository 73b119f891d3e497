import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * The HTTP answers counted on every request, kept in plain maps and written out by prom-client
 * when scraped. prom-client's labelled `inc` and `observe` check and hash their labels on every
 * call, which cost about 2 µs of a signed-in request; here a request is one Map lookup and a few
 * additions. The exposition is the same as prom-client's own counter and histogram.
 */

/** One method and route pattern: its answers by status, and the times of the timed ones. */
interface RouteSeries {
  labels: { method: string; route: string };
  statuses: Map<number, number>;
  /** Timed answers per bucket, not cumulative; the last slot is above every bound (+Inf). */
  perBucket: number[];
  sum: number;
  count: number;
}

export interface HttpTallyOptions {
  registers: Registry[];
  counter: { name: string; help: string };
  histogram: { name: string; help: string; buckets: readonly number[] };
}

/** A value of a metric as prom-client exposes it. */
interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export class HttpTally {
  private readonly series = new Map<string, RouteSeries>();
  private readonly buckets: readonly number[];

  constructor({ registers, counter, histogram }: HttpTallyOptions) {
    this.buckets = histogram.buckets;
    const answers = () => this.answers();
    new Counter({
      ...counter,
      labelNames: ['method', 'route', 'status'] as const,
      registers,
      collect() {
        this.reset();
        for (const { labels, status, count } of answers()) {
          this.inc({ ...labels, status: String(status) }, count);
        }
      },
    });
    for (const registry of registers) {
      registry.registerMetric(
        new TalliedHistogram(histogram, (name) => this.histogramValues(name)),
      );
    }
  }

  /** Counts one answer; `seconds` null counts it without timing it (long-lived streams). */
  record(method: string, route: string, status: number, seconds: number | null): void {
    const key = `${method} ${route}`;
    let series = this.series.get(key);
    if (!series) {
      series = {
        labels: { method, route },
        statuses: new Map(),
        perBucket: new Array<number>(this.buckets.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      this.series.set(key, series);
    }
    series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
    if (seconds === null) return;
    let bucket = 0;
    while (bucket < this.buckets.length && seconds > (this.buckets[bucket] as number)) bucket++;
    series.perBucket[bucket] = (series.perBucket[bucket] ?? 0) + 1;
    series.sum += seconds;
    series.count += 1;
  }

  private *answers() {
    for (const { labels, statuses } of this.series.values()) {
      for (const [status, count] of statuses) yield { labels, status, count };
    }
  }

  /** prom-client's histogram layout: cumulative `le` buckets, +Inf, then sum and count. */
  private histogramValues(name: string): ExportedValue[] {
    const values: ExportedValue[] = [];
    for (const { labels, perBucket, sum, count } of this.series.values()) {
      if (count === 0) continue;
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += perBucket[i] ?? 0;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push(
        { labels: { le: '+Inf', ...labels }, value: count, metricName: `${name}_bucket` },
        { labels, value: sum, metricName: `${name}_sum` },
        { labels, value: count, metricName: `${name}_count` },
      );
    }
    return values;
  }
}

/**
 * A histogram whose series come from the tally. The registry reads `getForPromString` when a
 * metric has one (prom-client's histogram does) and `get` otherwise; both answer the same.
 */
type HistogramSnapshot = Awaited<ReturnType<Histogram<'method' | 'route'>['get']>>;

class TalliedHistogram extends Histogram<'method' | 'route'> {
  private readonly spec: { name: string; help: string };

  constructor(
    { name, help, buckets }: HttpTallyOptions['histogram'],
    private readonly read: (name: string) => ExportedValue[],
  ) {
    super({ name, help, buckets: [...buckets], labelNames: ['method', 'route'], registers: [] });
    this.spec = { name, help };
  }

  override async get(): Promise<HistogramSnapshot> {
    const values = this.read(this.spec.name) as HistogramSnapshot['values'];
    // As prom-client's own histogram answers; its typings declare `type` as a numeric enum
    // (the library writes the string) and a `collect` it never returns.
    const snapshot = { ...this.spec, type: 'histogram', values, aggregator: 'sum' };
    return snapshot as unknown as HistogramSnapshot;
  }

  getForPromString() {
    return this.get();
  }
}
