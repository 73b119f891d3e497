/**
 * The contract of `JobQueue`, as one suite that every implementation runs (job-queue.test.ts on
 * the in-process queue, bullmq-job-queue.test.ts on BullMQ). The cases under "across processes"
 * need queues that share their jobs, as the processes of one deployment do; an implementation
 * that lives in one process says so with `acrossProcesses: undefined`, and does not run them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Job, JobHandler, JobQueue } from './job-queue.js';

export interface ContractQueueOptions {
  handler: JobHandler;
  concurrency?: number;
  onError?: (job: Job, error: unknown) => void;
  /** How long a vanished consumer holds its running jobs (kept short where it matters). */
  lockDurationMs?: number;
}

/** A consumer in another process, which takes one job and never returns from it. */
export interface ForeignConsumer {
  /** Resolves with the job once that process runs it. */
  running: Promise<Job>;
  /** Ends that process at once, as a crash would (SIGKILL): it calls no stop(). */
  kill(): void;
}

export interface JobQueueContractTarget {
  /**
   * A new queue. Where `acrossProcesses` is set, the queues made in one test share their jobs
   * (one Redis and key prefix) as the processes of one deployment do, and each test starts
   * with no job at all.
   */
  makeQueue(options: ContractQueueOptions): JobQueue;
  acrossProcesses?: {
    /** Starts a consumer in a child process on the same shared queue. */
    startForeignConsumer(options: { lockDurationMs: number }): ForeignConsumer;
  };
}

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves once the signal aborts (at once when it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
}

/**
 * Waits for a test's gate, or for the signal: a test that fails before opening its gates still
 * stops its queues.
 */
function until(gate: Promise<void> | undefined, signal: AbortSignal): Promise<void> {
  return gate ? Promise.race([gate, aborted(signal)]) : Promise.resolve();
}

/** Waits until `check` holds, failing the test with `what` after `timeoutMs`. */
async function waitFor(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** The interface promises no order: jobs are compared sorted. */
const sorted = (jobs: Job[]) =>
  [...jobs].sort((a, b) => a.kind.localeCompare(b.kind) || a.handleId - b.handleId);

export function describeJobQueueContract(name: string, target: JobQueueContractTarget): void {
  describe(`${name} (JobQueue contract)`, () => {
    const made: JobQueue[] = [];
    const foreign: ForeignConsumer[] = [];

    /** Every queue made is stopped after its test, whatever the test did. */
    const makeQueue = (options: ContractQueueOptions) => {
      const queue = target.makeQueue(options);
      made.push(queue);
      return queue;
    };

    afterEach(async () => {
      for (const consumer of foreign.splice(0)) consumer.kill();
      await Promise.all(made.splice(0).map((queue) => queue.stop()));
    });

    it('runs at most `concurrency` jobs at once and all of them in the end', async () => {
      let running = 0;
      let peak = 0;
      const done: number[] = [];
      const queue = makeQueue({
        concurrency: 3,
        handler: async (job) => {
          running += 1;
          peak = Math.max(peak, running);
          await sleep(10);
          running -= 1;
          done.push(job.handleId);
        },
      });
      for (let id = 1; id <= 10; id += 1) await queue.enqueue({ kind: 'poll', handleId: id });
      queue.start();
      await queue.idle();
      expect(peak).toBe(3);
      expect(done.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it('idle() resolves at once when nothing is queued or running', async () => {
      const queue = makeQueue({ handler: async () => {} });
      queue.start();
      await queue.idle();
      expect(await queue.jobs()).toEqual([]);
    });

    it('settled() resolves when that one job is over, at once when it is not queued', async () => {
      const gates = new Map([1, 2].map((id) => [id, deferred()]));
      const queue = makeQueue({
        concurrency: 2,
        handler: (job, signal) => until(gates.get(job.handleId)?.promise, signal),
      });
      queue.start();
      await queue.enqueue({ kind: 'poll', handleId: 1 });
      await queue.enqueue({ kind: 'poll', handleId: 2 });
      let firstDone = false;
      const first = queue.settled({ kind: 'poll', handleId: 1 }).then(() => (firstDone = true));
      gates.get(2)?.resolve();
      await queue.settled({ kind: 'poll', handleId: 2 });
      expect(firstDone).toBe(false);
      gates.get(1)?.resolve();
      await first;
      expect(firstDone).toBe(true);
      await queue.settled({ kind: 'backfill', handleId: 9 });
    });

    it('keeps one job per (kind, handle) queued or running, and takes it again once over', async () => {
      const gate = deferred();
      const runs: Job[] = [];
      const queue = makeQueue({
        concurrency: 1,
        handler: async (job, signal) => {
          runs.push(job);
          await until(gate.promise, signal);
        },
      });
      queue.start();
      expect(await queue.enqueue({ kind: 'backfill', handleId: 1 })).toBe(true);
      expect(await queue.enqueue({ kind: 'backfill', handleId: 1 })).toBe(false);
      expect(await queue.enqueue({ kind: 'poll', handleId: 1 })).toBe(true);
      expect(await queue.enqueue({ kind: 'poll', handleId: 1 })).toBe(false);
      expect(sorted(await queue.jobs())).toEqual([
        { kind: 'backfill', handleId: 1 },
        { kind: 'poll', handleId: 1 },
      ]);
      // Running, not only queued: still one.
      await waitFor(() => runs.length === 1, 'the first job to run');
      expect(await queue.enqueue({ kind: 'backfill', handleId: 1 })).toBe(false);
      gate.resolve();
      await queue.idle();
      expect(runs).toEqual([
        { kind: 'backfill', handleId: 1 },
        { kind: 'poll', handleId: 1 },
      ]);
      expect(await queue.enqueue({ kind: 'backfill', handleId: 1 })).toBe(true);
      await queue.idle();
      expect(runs).toHaveLength(3);
    });

    it('holds jobs until started', async () => {
      const runs: number[] = [];
      const queue = makeQueue({
        handler: async (job) => {
          runs.push(job.handleId);
        },
      });
      await queue.enqueue({ kind: 'poll', handleId: 7 });
      await sleep(100);
      expect(runs).toEqual([]);
      expect(await queue.jobs()).toEqual([{ kind: 'poll', handleId: 7 }]);
      queue.start();
      await queue.idle();
      expect(runs).toEqual([7]);
    });

    it('stop aborts the running jobs, waits for them, then lists no job and refuses new ones', async () => {
      const started: number[] = [];
      const finished: number[] = [];
      let abortedSeen = false;
      const queue = makeQueue({
        concurrency: 1,
        handler: async (job, signal) => {
          started.push(job.handleId);
          await aborted(signal);
          abortedSeen = signal.aborted;
          await sleep(20);
          finished.push(job.handleId);
        },
      });
      queue.start();
      await queue.enqueue({ kind: 'backfill', handleId: 1 });
      await queue.enqueue({ kind: 'backfill', handleId: 2 });
      await waitFor(() => started.length === 1, 'the first job to run');
      await queue.stop();
      expect(abortedSeen).toBe(true);
      expect(finished).toEqual([1]);
      expect(started).toEqual([1]);
      expect(await queue.enqueue({ kind: 'backfill', handleId: 3 })).toBe(false);
      expect(await queue.jobs()).toEqual([]);
      await queue.idle();
      await queue.settled({ kind: 'backfill', handleId: 2 });
      await queue.stop();
    });

    it('reports a failing job to onError, does not retry it, and keeps going', async () => {
      const failures: unknown[] = [];
      const runs: number[] = [];
      const queue = makeQueue({
        handler: async (job) => {
          runs.push(job.handleId);
          if (job.handleId === 1) throw new Error('boom');
        },
        onError: (_job, error) => failures.push(error),
      });
      queue.start();
      await queue.enqueue({ kind: 'poll', handleId: 1 });
      await queue.enqueue({ kind: 'poll', handleId: 2 });
      await queue.idle();
      await sleep(50);
      expect(runs.sort()).toEqual([1, 2]);
      expect(failures).toEqual([new Error('boom')]);
      expect(await queue.jobs()).toEqual([]);
    });

    it('cancel(handle) drops its queued jobs, aborts its running one, waits, and leaves the others', async () => {
      const gates = new Map([2, 3].map((id) => [id, deferred()]));
      const started: Job[] = [];
      const aborts: number[] = [];
      const finished: number[] = [];
      const queue = makeQueue({
        concurrency: 2,
        handler: async (job, signal) => {
          started.push(job);
          if (job.handleId === 1 && job.kind === 'backfill') {
            await aborted(signal);
            aborts.push(job.handleId);
            await sleep(20);
          } else {
            await until(gates.get(job.handleId)?.promise, signal);
          }
          finished.push(job.handleId);
        },
      });
      queue.start();
      await queue.enqueue({ kind: 'backfill', handleId: 1 });
      await queue.enqueue({ kind: 'backfill', handleId: 2 });
      await queue.enqueue({ kind: 'poll', handleId: 1 });
      await queue.enqueue({ kind: 'backfill', handleId: 3 });
      await waitFor(() => started.length === 2, 'two jobs to run');
      expect(sorted(started)).toEqual([
        { kind: 'backfill', handleId: 1 },
        { kind: 'backfill', handleId: 2 },
      ]);
      expect(sorted(await queue.jobs())).toEqual([
        { kind: 'backfill', handleId: 1 },
        { kind: 'backfill', handleId: 2 },
        { kind: 'backfill', handleId: 3 },
        { kind: 'poll', handleId: 1 },
      ]);

      await queue.cancel(1);
      // Returned before cancel resolved; the queued poll of handle 1 never ran.
      expect(aborts).toEqual([1]);
      expect(finished).toEqual([1]);
      expect(sorted(await queue.jobs())).toEqual([
        { kind: 'backfill', handleId: 2 },
        { kind: 'backfill', handleId: 3 },
      ]);
      // The queue keeps running: handle 1 can be queued again, the others finish.
      expect(await queue.enqueue({ kind: 'poll', handleId: 1 })).toBe(true);
      gates.get(2)?.resolve();
      gates.get(3)?.resolve();
      await queue.idle();
      expect(finished.sort()).toEqual([1, 1, 2, 3]);
      expect(aborts).toEqual([1]);
      expect(await queue.jobs()).toEqual([]);
      await queue.cancel(9);
    });

    const across = target.acrossProcesses;
    // Only for queues shared by several processes; the in-process queue has no such cases.
    const acrossIt = it;
    (across ? describe : () => undefined)('across processes', () => {
      const unexpected: JobHandler = async (job) => {
        throw new Error(`a queue that was never started ran ${JSON.stringify(job)}`);
      };

      acrossIt('a second instance sees the first one’s jobs, as duplicates too', async () => {
        const first = makeQueue({ handler: unexpected });
        const second = makeQueue({ handler: async () => {} });
        expect(await first.enqueue({ kind: 'poll', handleId: 1 })).toBe(true);
        expect(await second.enqueue({ kind: 'poll', handleId: 1 })).toBe(false);
        expect(await second.enqueue({ kind: 'backfill', handleId: 1 })).toBe(true);
        expect(await first.enqueue({ kind: 'backfill', handleId: 1 })).toBe(false);
        const both = [
          { kind: 'backfill', handleId: 1 },
          { kind: 'poll', handleId: 1 },
        ];
        expect(sorted(await first.jobs())).toEqual(both);
        expect(sorted(await second.jobs())).toEqual(both);
        second.start();
        await first.idle();
        expect(await first.jobs()).toEqual([]);
        expect(await first.enqueue({ kind: 'poll', handleId: 1 })).toBe(true);
        await first.settled({ kind: 'poll', handleId: 1 });
      });

      acrossIt(
        'a producer that was never started queues, and a started consumer runs',
        async () => {
          const runs: Job[] = [];
          const producer = makeQueue({ handler: unexpected });
          const consumer = makeQueue({
            handler: async (job) => {
              await sleep(20);
              runs.push(job);
            },
          });
          expect(await producer.enqueue({ kind: 'profiles', handleId: 0 })).toBe(true);
          await sleep(50);
          expect(runs).toEqual([]);
          consumer.start();
          await producer.settled({ kind: 'profiles', handleId: 0 });
          expect(runs).toEqual([{ kind: 'profiles', handleId: 0 }]);
          await producer.idle();
        },
      );

      acrossIt(
        'cancel on one instance aborts the job running on another and waits for it',
        async () => {
          const started: Job[] = [];
          const finished: Job[] = [];
          const consumer = makeQueue({
            concurrency: 1,
            handler: async (job, signal) => {
              started.push(job);
              await aborted(signal);
              await sleep(30);
              finished.push(job);
            },
          });
          const producer = makeQueue({ handler: unexpected });
          consumer.start();
          await producer.enqueue({ kind: 'backfill', handleId: 5 });
          await producer.enqueue({ kind: 'poll', handleId: 5 });
          await producer.enqueue({ kind: 'poll', handleId: 6 });
          await waitFor(() => started.length === 1, 'the backfill to run on the consumer');

          await producer.cancel(5);
          expect(finished).toEqual([{ kind: 'backfill', handleId: 5 }]);
          expect(await producer.jobs()).toContainEqual({ kind: 'poll', handleId: 6 });
          expect(await producer.jobs()).not.toContainEqual({ kind: 'poll', handleId: 5 });
          // Handle 6 was left alone: it runs (and is aborted by its own stop below).
          await waitFor(() => started.length === 2, 'the poll of handle 6 to run');
          expect(started[1]).toEqual({ kind: 'poll', handleId: 6 });
          await consumer.stop();
          // The aborted backfill counts as done: it is not run again.
          expect(started).toHaveLength(2);
          expect(await producer.jobs()).toEqual([]);
        },
      );

      acrossIt('a stopped consumer leaves its queued jobs to the others', async () => {
        const firstRuns: number[] = [];
        const secondRuns: number[] = [];
        const first = makeQueue({
          concurrency: 1,
          handler: async (job, signal) => {
            firstRuns.push(job.handleId);
            await aborted(signal);
          },
        });
        first.start();
        await first.enqueue({ kind: 'backfill', handleId: 1 });
        await first.enqueue({ kind: 'backfill', handleId: 2 });
        await waitFor(() => firstRuns.length === 1, 'the first job to run');
        await first.stop();
        const second = makeQueue({
          handler: async (job) => {
            secondRuns.push(job.handleId);
          },
        });
        expect(await second.jobs()).toEqual([{ kind: 'backfill', handleId: 2 }]);
        second.start();
        await second.idle();
        expect(firstRuns).toEqual([1]);
        expect(secondRuns).toEqual([2]);
      });

      acrossIt(
        'a job whose consumer vanished without stop() runs again on another consumer once its lock expires',
        async () => {
          if (!across) return;
          const lockDurationMs = 1_000;
          const job: Job = { kind: 'backfill', handleId: 4 };
          const producer = makeQueue({ handler: unexpected, lockDurationMs });
          expect(await producer.enqueue(job)).toBe(true);
          const crashing = across.startForeignConsumer({ lockDurationMs });
          foreign.push(crashing);
          expect(await crashing.running).toEqual(job);
          crashing.kill();
          const killedAt = Date.now();

          const reruns: { job: Job; afterMs: number }[] = [];
          const consumer = makeQueue({
            lockDurationMs,
            handler: async (rerun) => {
              reruns.push({ job: rerun, afterMs: Date.now() - killedAt });
            },
          });
          consumer.start();
          await producer.settled(job);
          expect(reruns.map((rerun) => rerun.job)).toEqual([job]);
          // At the first stalled-job check after the lock expired: within 1.25 locks, plus slack.
          expect(reruns[0]?.afterMs).toBeLessThan(lockDurationMs * 1.25 + 750);
        },
      );
    });
  });
}
