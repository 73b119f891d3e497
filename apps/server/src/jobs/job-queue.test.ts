import { describe, expect, it } from 'vitest';
import { InProcessJobQueue, type Job } from './job-queue.js';

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('InProcessJobQueue', () => {
  it('runs at most `concurrency` jobs at once and all of them in the end', async () => {
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    const queue = new InProcessJobQueue({
      concurrency: 3,
      handler: async (job) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        done.push(job.handleId);
      },
    });
    queue.start();
    for (let id = 1; id <= 10; id += 1) queue.enqueue({ kind: 'poll', handleId: id });
    await queue.idle();
    expect(peak).toBe(3);
    expect(done.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await queue.stop();
  });

  it('settled() resolves when that one job is over, at once when it is not queued', async () => {
    const gates = new Map([1, 2].map((id) => [id, deferred()]));
    const queue = new InProcessJobQueue({
      concurrency: 2,
      handler: (job) => gates.get(job.handleId)?.promise ?? Promise.resolve(),
    });
    queue.start();
    queue.enqueue({ kind: 'poll', handleId: 1 });
    queue.enqueue({ kind: 'poll', handleId: 2 });
    let firstDone = false;
    const first = queue.settled({ kind: 'poll', handleId: 1 }).then(() => (firstDone = true));
    gates.get(2)?.resolve();
    await queue.settled({ kind: 'poll', handleId: 2 });
    expect(firstDone).toBe(false);
    gates.get(1)?.resolve();
    await first;
    expect(firstDone).toBe(true);
    await queue.settled({ kind: 'backfill', handleId: 9 });
    await queue.stop();
  });

  it('keeps one job per (kind, handle) queued or running', async () => {
    const gate = deferred();
    const runs: Job[] = [];
    const queue = new InProcessJobQueue({
      concurrency: 1,
      handler: async (job) => {
        runs.push(job);
        await gate.promise;
      },
    });
    queue.start();
    expect(queue.enqueue({ kind: 'backfill', handleId: 1 })).toBe(true);
    expect(queue.enqueue({ kind: 'backfill', handleId: 1 })).toBe(false);
    expect(queue.enqueue({ kind: 'poll', handleId: 1 })).toBe(true);
    expect(queue.enqueue({ kind: 'poll', handleId: 1 })).toBe(false);
    expect(queue.size).toBe(2);
    gate.resolve();
    await queue.idle();
    expect(runs).toEqual([
      { kind: 'backfill', handleId: 1 },
      { kind: 'poll', handleId: 1 },
    ]);
    expect(queue.enqueue({ kind: 'backfill', handleId: 1 })).toBe(true);
    await queue.idle();
    expect(runs).toHaveLength(3);
    await queue.stop();
  });

  it('holds jobs until started', async () => {
    const runs: number[] = [];
    const queue = new InProcessJobQueue({
      handler: async (job) => {
        runs.push(job.handleId);
      },
    });
    queue.enqueue({ kind: 'poll', handleId: 7 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(runs).toEqual([]);
    queue.start();
    await queue.idle();
    expect(runs).toEqual([7]);
    await queue.stop();
  });

  it('stop aborts the running jobs, waits for them, drops queued ones and refuses new ones', async () => {
    const finished: number[] = [];
    let abortedSeen = false;
    const queue = new InProcessJobQueue({
      concurrency: 1,
      handler: async (job, signal) => {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        abortedSeen = signal.aborted;
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished.push(job.handleId);
      },
    });
    queue.start();
    queue.enqueue({ kind: 'backfill', handleId: 1 });
    queue.enqueue({ kind: 'backfill', handleId: 2 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await queue.stop();
    expect(abortedSeen).toBe(true);
    expect(finished).toEqual([1]);
    expect(queue.enqueue({ kind: 'backfill', handleId: 3 })).toBe(false);
    expect(queue.size).toBe(0);
  });

  it('reports a failing job and keeps going', async () => {
    const failures: unknown[] = [];
    const runs: number[] = [];
    const queue = new InProcessJobQueue({
      handler: async (job) => {
        runs.push(job.handleId);
        if (job.handleId === 1) throw new Error('boom');
      },
      onError: (_job, error) => failures.push(error),
    });
    queue.start();
    queue.enqueue({ kind: 'poll', handleId: 1 });
    queue.enqueue({ kind: 'poll', handleId: 2 });
    await queue.idle();
    expect(runs.sort()).toEqual([1, 2]);
    expect(failures).toHaveLength(1);
    await queue.stop();
  });

  it('cancel(handle) drops its queued jobs, aborts its running one, waits, and leaves the others', async () => {
    const gates = new Map([2, 3].map((id) => [id, deferred()]));
    const aborted: number[] = [];
    const finished: number[] = [];
    const queue = new InProcessJobQueue({
      concurrency: 2,
      handler: async (job, signal) => {
        if (job.handleId === 1 && job.kind === 'backfill') {
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
          aborted.push(job.handleId);
          await new Promise((resolve) => setTimeout(resolve, 20));
        } else {
          await gates.get(job.handleId)?.promise;
        }
        finished.push(job.handleId);
      },
    });
    queue.start();
    queue.enqueue({ kind: 'backfill', handleId: 1 });
    queue.enqueue({ kind: 'backfill', handleId: 2 });
    queue.enqueue({ kind: 'poll', handleId: 1 });
    queue.enqueue({ kind: 'backfill', handleId: 3 });
    expect(queue.jobs()).toEqual([
      { kind: 'backfill', handleId: 1 },
      { kind: 'backfill', handleId: 2 },
      { kind: 'poll', handleId: 1 },
      { kind: 'backfill', handleId: 3 },
    ]);

    await queue.cancel(1);
    // Returned before cancel resolved; the queued poll of handle 1 never ran.
    expect(aborted).toEqual([1]);
    expect(finished).toEqual([1]);
    expect(queue.jobs()).toEqual([
      { kind: 'backfill', handleId: 2 },
      { kind: 'backfill', handleId: 3 },
    ]);
    // The queue keeps running: handle 1 can be queued again, the others finish.
    expect(queue.enqueue({ kind: 'poll', handleId: 1 })).toBe(true);
    gates.get(2)?.resolve();
    gates.get(3)?.resolve();
    await queue.idle();
    expect(finished.sort()).toEqual([1, 1, 2, 3]);
    expect(aborted).toEqual([1]);
    expect(queue.jobs()).toEqual([]);
    await queue.cancel(9);
    await queue.stop();
  });
});
