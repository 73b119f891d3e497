// Child process of the API benchmark: serves Perch (built, SQLite, one signed-in user) and a
// bare Fastify route side by side, then reports their ports and the session cookie.
import Fastify from 'fastify';
import { startSignedInApp } from '../lib/signed-in-app.mjs';

const perch = await startSignedInApp({ tmpPrefix: 'perch-bench-' });

const bare = Fastify({ logger: false });
bare.get('/bare', async () => ({ success: true, data: { authenticated: false } }));
await bare.listen({ host: '127.0.0.1', port: 0 });

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
