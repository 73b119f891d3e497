// What Fastify itself charges per request for the pieces every Perch API answer needs, against
// the bare route of `npm run bench`: a request logger (Perch logs each request's errors with its
// request id), an onResponse hook (Perch counts and times every answer there) and the five
// security headers of a JSON answer. No session, cookie, CSRF or metrics work: a floor under any
// Perch route. Each variant is one Fastify instance answering the bare route's body; the instances
// share one child process, whose CPU time is read around each load.
// Usage: node bench/api/floor.mjs
//        (BENCH_ROUNDS, default 9, and BENCH_SECONDS, default 2, per variant and round)
import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify, { LogController } from 'fastify';
import { median } from '../lib/stats.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const DURATION = Number(process.env.BENCH_SECONDS ?? 2);
const CONNECTIONS = 20;

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * A request logger that makes pino's child (with the request id) on its first line, for
 * `childLoggerFactory`. By default Fastify makes that child for every request.
 */
class ChildOnFirstLine {
  #child;
  constructor(parent, bindings, options) {
    this.parent = parent;
    this.bindings = bindings;
    this.options = options;
  }
  get logger() {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }
  get level() {
    return this.logger.level;
  }
  fatal(...args) {
    this.logger.fatal(...args);
  }
  error(...args) {
    this.logger.error(...args);
  }
  warn(...args) {
    this.logger.warn(...args);
  }
  info(...args) {
    this.logger.info(...args);
  }
  debug(...args) {
    this.logger.debug(...args);
  }
  trace(...args) {
    this.logger.trace(...args);
  }
  silent() {}
  child(bindings, options) {
    return this.logger.child(bindings, options);
  }
}

async function serve() {
  const logged = (lazy) => ({
    // As app.ts: warn and above, no per-request lines.
    logger: { level: 'warn' },
    logController: new LogController({ disableRequestLogging: true }),
    ...(lazy
      ? {
          childLoggerFactory: (parent, bindings, options) =>
            new ChildOnFirstLine(parent, bindings, options),
        }
      : {}),
  });
  const withHooks = (app, { onResponse = false, headers = false }) => {
    if (onResponse) app.addHook('onResponse', (_request, _reply, done) => done());
    if (headers) {
      app.addHook('onRequest', (_request, reply, done) => {
        reply.headers(SECURITY_HEADERS);
        done();
      });
    }
    return app;
  };
  const variants = {
    'bare (no logger, no hooks)': () => Fastify({ logger: false }),
    'request logger': () => Fastify(logged(false)),
    "request logger, pino's child made on first line": () => Fastify(logged(true)),
    'onResponse hook': () => withHooks(Fastify({ logger: false }), { onResponse: true }),
    'security headers hook': () => withHooks(Fastify({ logger: false }), { headers: true }),
    'all three': () => withHooks(Fastify(logged(false)), { onResponse: true, headers: true }),
  };
  const ports = {};
  for (const [name, make] of Object.entries(variants)) {
    const app = make();
    app.get('/bare', async () => ({ success: true, data: { authenticated: false } }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    ports[name] = app.server.address().port;
  }
  process.on('message', (message) => {
    if (message === 'cpu') process.send({ cpu: process.cpuUsage() });
  });
  process.on('disconnect', () => process.exit(0));
  process.send(ports);
}

async function measure() {
  const child = fork(fileURLToPath(import.meta.url), ['serve']);
  const ports = await new Promise((resolve) => child.once('message', resolve));
  const cpu = () =>
    new Promise((resolve) => {
      child.once('message', (message) => resolve(message.cpu));
      child.send('cpu');
    });
  const load = (port, duration) =>
    autocannon({ url: `http://127.0.0.1:${port}/bare`, connections: CONNECTIONS, duration });
  for (const port of Object.values(ports)) await load(port, 1);
  const samples = Object.fromEntries(Object.keys(ports).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, port] of Object.entries(ports)) {
      const before = await cpu();
      const result = await load(port, DURATION);
      const after = await cpu();
      const micros = after.user - before.user + after.system - before.system;
      samples[name].push({ rps: result.requests.average, cpuUs: micros / result.requests.total });
    }
  }
  child.disconnect();
  const rows = Object.entries(samples).map(([name, list]) => ({
    name,
    rps: Math.round(median(list.map((s) => s.rps))),
    cpuUs: Number(median(list.map((s) => s.cpuUs)).toFixed(1)),
  }));
  const bare = rows[0].cpuUs;
  console.log(`
| variant | req/s (median of ${ROUNDS}) | server CPU µs/request | bare's CPU / this CPU |
|---|---|---|---|
${rows.map((r) => `| ${r.name} | ${r.rps} | ${r.cpuUs} | ${((100 * bare) / r.cpuUs).toFixed(0)}% |`).join('\n')}
`);
  console.log(
    JSON.stringify({ machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}`, rows }),
  );
}

if (process.argv[2] === 'serve') await serve();
else await measure();
