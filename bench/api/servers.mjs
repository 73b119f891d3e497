// Child process of the API benchmark: serves Perch (built, SQLite, one signed-in user) and a
// bare Fastify route side by side, then reports their ports and the session cookie. Answers
// 'cpu' with the process's CPU time, so the parent can price each request on the server side.
// BENCH_APP_ROOT serves the built app of another checkout (an earlier commit, for before/after).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';

const appRoot = process.env.BENCH_APP_ROOT;
const { startSignedInApp } = await import(
  appRoot
    ? pathToFileURL(path.join(appRoot, 'bench/lib/signed-in-app.mjs')).href
    : '../lib/signed-in-app.mjs'
);
const perch = await startSignedInApp({ tmpPrefix: 'perch-bench-' });

// Fastify's defaults, as a plain service would start: no logger, no hooks, no schema.
const bare = Fastify({ logger: false });
bare.get('/bare', async () => ({ success: true, data: { authenticated: false } }));
await bare.listen({ host: '127.0.0.1', port: 0 });

process.on('message', (message) => {
  if (message === 'cpu') process.send({ cpu: process.cpuUsage() });
});
process.send({
  app: perch.port,
  bare: bare.server.address().port,
  cookie: perch.cookie,
  csrfCookie: perch.csrfCookie,
});
process.on('disconnect', async () => {
  await perch.close();
  await bare.close();
  process.exit(0);
});
