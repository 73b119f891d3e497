// What the API's security headers cost on their own, without any of Perch: three plain Fastify
// routes in a child process (the bare route's body; `GET /api/v1/config`'s body; that body with
// the five headers every JSON answer carries), loaded in turns by autocannon in this process.
// Usage: node bench/api/headers.mjs      (BENCH_ROUNDS, BENCH_SECONDS as in run.mjs)
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { median } from '../lib/stats.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);

if (process.argv[2] === '--serve') {
  const { default: Fastify } = await import('fastify');
  const { apiSecurityHeaders } = await import('../../apps/server/dist/plugins/security-headers.js');
  const headers = apiSecurityHeaders({ COOKIE_SECURE: false });
  const body = {
    success: true,
    data: { supportEmail: 'support@perch.local', tweetSource: 'demo', version: '0.1.0' },
  };
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ success: true, data: { authenticated: false } }));
  app.get('/body', async () => body);
  app.get('/headers', async (_request, reply) => reply.headers(headers).send(body));
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.send(app.server.address().port);
  process.on('message', () => process.send(process.cpuUsage()));
  process.on('disconnect', () => process.exit(0));
} else {
  const child = fork(fileURLToPath(import.meta.url), ['--serve']);
  const port = await new Promise((resolve) => child.once('message', resolve));
  const routes = ['bare', 'body', 'headers'];
  const samples = Object.fromEntries(routes.map((route) => [route, []]));
  const cpuUs = Object.fromEntries(routes.map((route) => [route, []]));
  const cpu = () =>
    new Promise((resolve) => {
      child.once('message', (usage) => resolve(usage.user + usage.system));
      child.send('cpu');
    });
  const load = (route, duration) =>
    autocannon({ url: `http://127.0.0.1:${port}/${route}`, connections: 20, duration });
  for (const route of routes) await load(route, 2); // warm up
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of round % 2 ? [...routes].reverse() : routes) {
      const before = await cpu();
      const result = await load(route, DURATION);
      cpuUs[route].push(((await cpu()) - before) / result.requests.total);
      samples[route].push(Math.round(result.requests.average));
    }
  }
  child.disconnect();
  const bare = median(samples.bare);
  const bareCpu = median(cpuUs.bare);
  const ofBare = (ratio) => `${(ratio * 100).toFixed(1)}%`;
  console.log(
    '| route | req/s per round | median | of bare | server CPU µs/request | of bare, by CPU |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const route of routes) {
    const m = median(samples[route]);
    const c = median(cpuUs[route]);
    const row = [
      route,
      samples[route].join(', '),
      m,
      ofBare(m / bare),
      c.toFixed(1),
      ofBare(bareCpu / c),
    ];
    console.log(`| ${row.join(' | ')} |`);
  }
}
