import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpTally } from './http-tally.js';

const COUNTER = { name: 'test_http_requests_total', help: 'Answers.' };
const HISTOGRAM = {
  name: 'test_http_request_duration_seconds',
  help: 'Times.',
  buckets: [0.005, 0.01, 0.025, 0.1, 1],
};

/** The same answers counted by prom-client's own counter and histogram, and by the tally. */
function bothWays(answers: [string, string, number, number | null][]) {
  const native = new Registry();
  const counter = new Counter({
    ...COUNTER,
    labelNames: ['method', 'route', 'status'],
    registers: [native],
  });
  const histogram = new Histogram({
    ...HISTOGRAM,
    labelNames: ['method', 'route'],
    registers: [native],
  });
  const tallied = new Registry();
  const tally = new HttpTally({ registers: [tallied], counter: COUNTER, histogram: HISTOGRAM });
  for (const [method, route, status, seconds] of answers) {
    counter.inc({ method, route, status: String(status) });
    if (seconds !== null) histogram.observe({ method, route }, seconds);
    tally.record(method, route, status, seconds);
  }
  return { native, tallied };
}

/** The exposition's lines in a stable order (series order is not part of the format). */
const lines = async (registry: Registry) => (await registry.metrics()).split('\n').sort();

describe('HttpTally', () => {
  it('writes the exposition prom-client writes for the same answers', async () => {
    const { native, tallied } = bothWays([
      ['GET', '/api/v1/health', 200, 0.001],
      ['GET', '/api/v1/health', 200, 0.005],
      ['GET', '/api/v1/health', 503, 0.0051],
      ['POST', '/api/v1/auth/login', 401, 0.3],
      ['POST', '/api/v1/auth/login', 200, 2.5],
      ['GET', 'unmatched', 404, 0.01],
      // A stream: counted, not timed.
      ['GET', '/api/v1/events', 200, null],
    ]);
    expect(await lines(tallied)).toEqual(await lines(native));
  });

  it('answers the same JSON (getMetricsAsJSON, used by cluster aggregation)', async () => {
    const { native, tallied } = bothWays([
      ['GET', '/api/v1/config', 200, 0.02],
      ['GET', '/api/v1/config', 304, 0.004],
    ]);
    // Exemplars are off: prom-client writes `exemplar: null` beside each value, the tally none.
    const byName = (metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
      Object.fromEntries(
        metrics.map(({ name, values }) => [
          name,
          values.map(({ labels, value, ...rest }) => ({
            labels,
            value,
            metricName: 'metricName' in rest ? rest.metricName : undefined,
          })),
        ]),
      );
    expect(byName(await tallied.getMetricsAsJSON())).toEqual(
      byName(await native.getMetricsAsJSON()),
    );
  });

  it('has no series before the first answer, as prom-client', async () => {
    const { native, tallied } = bothWays([]);
    expect(await lines(tallied)).toEqual(await lines(native));
  });
});
