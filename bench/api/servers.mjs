// Child process of the API benchmark: serves Perch (built, SQLite, one signed-in user) and a
// bare Fastify route side by side, then reports their ports and the session cookie.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../../apps/server/dist/app.js';
import { loadConfig } from '../../apps/server/dist/config.js';
import { createDb } from '../../apps/server/dist/db/index.js';
import { migrateToLatest } from '../../apps/server/dist/db/migrate.js';
import { createInvitation } from '../../apps/server/dist/modules/invitations/invitations.service.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0' });
const db = createDb(config);
await migrateToLatest(db);
const app = await buildApp({ config, db });
await app.listen({ host: '127.0.0.1', port: 0 });

// Sign one user in through the real API to get a session and CSRF cookie.
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
    username: 'bench',
    email: 'bench@example.com',
    password: 'Bench-passw0rd!',
    confirmPassword: 'Bench-passw0rd!',
    invitationCode: code,
  },
});
const session = registered.cookies.find((c) => c.name === 'perch_session').value;

const bare = Fastify({ logger: false });
bare.get('/bare', async () => ({ success: true, data: { authenticated: false } }));
await bare.listen({ host: '127.0.0.1', port: 0 });

process.send({
  app: app.server.address().port,
  bare: bare.server.address().port,
  cookie: `perch_session=${session}; perch_csrf=${csrf}`,
  csrfCookie: `perch_csrf=${csrf}`,
});
process.on('disconnect', async () => {
  await app.close();
  await bare.close();
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
