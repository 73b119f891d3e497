// A load generator of the scale-out benchmark in its own process (run.mjs forks two, so that the
// 1-node and 2-node runs have the same load-generating processes and connections): told over IPC
// { url, cookie, connections, seconds }, it runs autocannon once and answers with the totals.
import autocannon from 'autocannon';

process.on('message', async ({ url, cookie, connections, seconds }) => {
  const result = await autocannon({
    url,
    headers: cookie ? { cookie } : {},
    connections,
    duration: seconds,
  });
  process.send({
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  });
});
process.on('disconnect', () => process.exit(0));
