import { test } from '@playwright/test';
import { startPerchServer, type PerchServer, type PerchServerOptions } from './perch-server';

/** A loopback fake a Perch server talks to (X, Telegram, Discord). */
export interface Closable {
  close(): Promise<void>;
}

/**
 * Stands for the value `current` returns once the file's `beforeAll` made it: every property
 * read goes to that value, so a journey reads `server.origin` as if it held the server itself.
 */
function startedLater<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_, key) {
      const target = current();
      if (!target) throw new Error(`the ${what} is not started yet (it starts in beforeAll)`);
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function'
        ? (value as (...args: never) => unknown).bind(target)
        : value;
    },
  });
}

/**
 * One Perch server for every test of the file: started before the first with `env`, stopped
 * after the last.
 */
export function servePerch(
  env: Record<string, string> = {},
  options: PerchServerOptions = {},
): PerchServer {
  let server: PerchServer | undefined;
  test.beforeAll(async () => {
    server = await startPerchServer(env, options);
  });
  test.afterAll(async () => {
    await server?.stop();
  });
  return startedLater('Perch server', () => server);
}

/**
 * One fake and one Perch server for every test of the file: before the first, the fake starts
 * and then the server, with the environment `env` makes from the fake; after the last, the
 * server stops and then the fake closes.
 */
export function servePerchWith<F extends Closable>(
  startFake: () => Promise<F>,
  env: (fake: F) => Record<string, string>,
  options: PerchServerOptions = {},
): { server: PerchServer; fake: F } {
  let fake: F | undefined;
  let server: PerchServer | undefined;
  test.beforeAll(async () => {
    fake = await startFake();
    server = await startPerchServer(env(fake), options);
  });
  test.afterAll(async () => {
    await server?.stop();
    await fake?.close();
  });
  return {
    server: startedLater('Perch server', () => server),
    fake: startedLater('fake', () => fake),
  };
}

/** Runs `journey` against a Perch server of its own, started with `env` and stopped after. */
export async function withPerchServer(
  env: Record<string, string>,
  journey: (server: PerchServer) => Promise<void>,
) {
  const server = await startPerchServer(env);
  try {
    await journey(server);
  } finally {
    await server.stop();
  }
}

/**
 * Runs `journey` against a fake and a Perch server of its own (started with the environment
 * `env` makes from the fake); stops the server and then closes the fake after.
 */
export async function withPerchServerOn<F extends Closable>(
  startFake: () => Promise<F>,
  env: (fake: F) => Record<string, string>,
  journey: (server: PerchServer, fake: F) => Promise<void>,
) {
  const fake = await startFake();
  const server = await startPerchServer(env(fake));
  try {
    await journey(server, fake);
  } finally {
    await server.stop();
    await fake.close();
  }
}
