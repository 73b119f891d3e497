import { describe, expect, it } from 'vitest';
import { describeJobQueueContract } from './job-queue.contract.js';
import { InProcessJobQueue } from './job-queue.js';

// One process holds the whole queue: the cases across processes do not apply.
describeJobQueueContract('InProcessJobQueue', {
  makeQueue: ({ handler, concurrency, onError }) =>
    new InProcessJobQueue({ handler, concurrency, onError }),
});

describe('InProcessJobQueue', () => {
  it('size counts the jobs queued or running', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queue = new InProcessJobQueue({ concurrency: 1, handler: () => gate });
    queue.start();
    await queue.enqueue({ kind: 'backfill', handleId: 1 });
    await queue.enqueue({ kind: 'poll', handleId: 1 });
    expect(queue.size).toBe(2);
    release();
    await queue.idle();
    expect(queue.size).toBe(0);
    await queue.stop();
  });
});
