import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createMetrics } from '../src/lib/metrics.js';
import { createTestDb, type TestDb } from './helpers.js';

/** The app on a fresh SQLite database, with its metrics, logging JSON lines at `level` into `lines`. */
async function appLoggingAt(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  db = await createTestDb('sqlite');
  app = await buildApp({
    config: { ...db.config, LOG_FORMAT: 'json' },
    db,
    logger: { level, stream },
    metrics: createMetrics(),
  });
  // What every answer's raw response listens for once the handler runs.
  app.get('/probe/listeners', listenersProbe);
  app.get('/probe/failure', async () => {
    throw new Error('the probe failed');
  });
  await app.ready();
  return lines;
}

/** How many listeners the raw response has for its end, once the handler runs. */
async function listenersProbe(_request: FastifyRequest, reply: FastifyReply) {
  return { finish: reply.raw.listenerCount('finish') };
}

let db: TestDb | undefined;
let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  await db?.dispose();
  app = undefined;
  db = undefined;
});

describe('request logging', () => {
  it('logs a failed request once, with its request id, and nothing for answered ones', async () => {
    const lines = await appLoggingAt('info');
    expect((await app!.inject({ method: 'GET', url: '/api/v1/config' })).statusCode).toBe(200);
    const failed = await app!.inject({ method: 'GET', url: '/probe/failure' });
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).not.toHaveProperty('stack');
    const errors = lines.filter((line) => line.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      reqId: expect.any(String),
      err: { message: 'the probe failed' },
    });
    expect(lines.filter((line) => line.msg === 'request completed')).toEqual([]);
  });

  it('does not make Fastify listen for the end of every response', async () => {
    await appLoggingAt('info');
    // Fastify without a logger or onResponse hook: only the injector's own listener. The
    // metrics plugin counts and times answers without one.
    const bare = Fastify();
    bare.get('/probe/listeners', listenersProbe);
    const expected = (await bare.inject({ method: 'GET', url: '/probe/listeners' })).json();
    await bare.close();
    const answer = await app!.inject({ method: 'GET', url: '/probe/listeners' });
    expect(answer.json()).toEqual(expected);
    // With Fastify's own logger (debug level) it listens: the probe tells the two apart.
    await app!.close();
    await db!.dispose();
    await appLoggingAt('debug');
    const debugging = await app!.inject({ method: 'GET', url: '/probe/listeners' });
    expect(debugging.json()).toEqual({ finish: expected.finish + 1 });
  });

  it('writes a line for every request at debug level', async () => {
    const lines = await appLoggingAt('debug');
    expect((await app!.inject({ method: 'GET', url: '/api/v1/config' })).statusCode).toBe(200);
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ reqId: expect.any(String), res: { statusCode: 200 } });
    expect(lines.some((line) => line.msg === 'incoming request')).toBe(true);
  });
});
