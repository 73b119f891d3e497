// The built app on SQLite in a temporary DATA_DIR, listening on a free local port, with one user
// registered and signed in through the real API (session and CSRF cookies). Used by the child
// processes of the benchmarks; the server must be built (apps/server/dist).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../apps/server/dist/app.js';
import { loadConfig } from '../../apps/server/dist/config.js';
import { createLocalCluster } from '../../apps/server/dist/cluster/cluster.js';
import { createDb } from '../../apps/server/dist/db/index.js';
import { createMetrics } from '../../apps/server/dist/lib/metrics.js';
import { createSessionCache } from '../../apps/server/dist/modules/auth/session-cache.js';
import { migrateToLatest } from '../../apps/server/dist/db/migrate.js';
import { createInvitation } from '../../apps/server/dist/modules/invitations/invitations.service.js';

/** The signed-in user's login. */
export const BENCH_USERNAME = 'bench';

/** Signs one user in through the real API; returns its session and CSRF tokens. */
async function signIn(app, db) {
  const { code } = await createInvitation(db, {
    role: 'user',
    maxUses: 1,
    expiresInDays: null,
    createdBy: null,
  });
  const check = await app.inject({ method: 'GET', url: '/api/v1/auth/check' });
  const csrf = check.cookies.find((c) => c.name === 'perch_csrf').value;
  const registered = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/register',
    headers: { cookie: `perch_csrf=${csrf}`, 'x-csrf-token': csrf },
    payload: {
      username: BENCH_USERNAME,
      email: 'bench@example.com',
      password: 'Bench-passw0rd!',
      confirmPassword: 'Bench-passw0rd!',
      invitationCode: code,
    },
  });
  // Signing in hands out the session's own CSRF token; a browser holds that one from then on.
  const cookie = (name) => registered.cookies.find((c) => c.name === name).value;
  return { session: cookie('perch_session'), csrf: cookie('perch_csrf'), anonymousCsrf: csrf };
}

/**
 * Starts the app with its data in a new temp folder named after `tmpPrefix`, assembled as
 * main.ts assembles an API process: Prometheus metrics on every request and the session cache
 * (on the in-process cluster of a single node). `cookie` signs a request in, with the CSRF
 * token sign-in handed out; `csrfCookie` is an anonymous visitor's. `close()` stops the app,
 * closes the database and removes the folder.
 */
export async function startSignedInApp({ tmpPrefix }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0' });
  const db = createDb(config);
  await migrateToLatest(db);
  const sessionCache = await createSessionCache({ cluster: createLocalCluster() });
  const app = await buildApp({ config, db, metrics: createMetrics(), sessionCache });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { session, csrf, anonymousCsrf } = await signIn(app, db);
  return {
    db,
    port: app.server.address().port,
    cookie: `perch_session=${session}; perch_csrf=${csrf}`,
    csrfCookie: `perch_csrf=${anonymousCsrf}`,
    async close() {
      await app.close();
      await sessionCache.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
