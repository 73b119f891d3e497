import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies what the WAL has gained into the database file. */
export const CHECKPOINT_INTERVAL_MS = 100;

/**
 * WAL pages after which the server's own connection checkpoints, should the checkpointer fall
 * behind (SQLite's default is 1,000, about 4 MB, and it is the only checkpoint SQLite runs on
 * its own).
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * The checkpointer's program, plain JavaScript so that it runs the same from the built server and
 * from its sources. Its own connection to the database file checkpoints PASSIVE: it copies the
 * WAL's committed pages into the database file and syncs them without waiting for a reader or
 * a writer, and none of them waits for it.
 */
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or gone: the next turn tries again, and the server's connection checkpoints past
    // its fallback meanwhile.
  }
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Closes the checkpointer's connection and ends its thread. */
  stop(): Promise<void>;
}

/**
 * Checkpoints a SQLite database in WAL mode from a thread of its own. SQLite runs a checkpoint
 * inside the commit that takes the WAL past 1,000 pages: on the event loop, some 10-30 ms of
 * copying and two fsyncs every 4 MB a backfill writes. Here that work runs beside the event
 * loop; the server's connection keeps an automatic checkpoint only as a fallback.
 */
export function startCheckpointer(file: string): Checkpointer {
  const worker = new Worker(PROGRAM, {
    eval: true,
    workerData: {
      file,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      intervalMs: CHECKPOINT_INTERVAL_MS,
    },
  });
  // A process that exits without closing the database does not wait for the thread.
  worker.unref();
  const exited = once(worker, 'exit').then(
    () => undefined,
    () => undefined,
  );
  // A checkpointer that could not open the file leaves checkpoints to the fallback.
  worker.on('error', () => {});
  return {
    async stop() {
      // Waiting for the thread keeps the process alive, as any close does.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
