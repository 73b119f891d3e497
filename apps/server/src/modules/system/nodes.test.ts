import { afterEach, describe, expect, it } from 'vitest';
import { createTestDb, DIALECTS, type TestDb } from '../../../test/helpers.js';
import { listNodes } from './nodes.repository.js';
import { createLocalCluster } from '../../cluster/cluster.js';
import { ClusterRefusedError, joinCluster } from './nodes.js';

describe.each(DIALECTS)('node registry (%s)', (dialect) => {
  let db: TestDb;

  afterEach(async () => {
    await db.dispose();
  });

  it('refuses a second node without Redis, clears a node whose process is gone, and counts the workers', async () => {
    db = await createTestDb(dialect);
    const alive = new Set([process.pid, 424_242]);
    const isRunning = (pid: number) => alive.has(pid);
    const first = await joinCluster({ db, nodeId: 'one', role: 'all', shared: false, isRunning });
    await expect(
      joinCluster({ db, nodeId: 'two', role: 'all', shared: false, isRunning }),
    ).rejects.toBeInstanceOf(ClusterRefusedError);
    await first.leave();

    // With Redis: an API node and two workers; each worker counts two.
    const api = await joinCluster({ db, nodeId: 'api', role: 'api', shared: true, isRunning });
    const w1 = await joinCluster({ db, nodeId: 'w1', role: 'worker', shared: true, isRunning });
    const w2 = await joinCluster({ db, nodeId: 'w2', role: 'worker', shared: true, isRunning });
    expect(w2.workers()).toBe(2);
    expect(api.workers()).toBe(1);
    expect((await w1.peers()).map((node) => node.id).sort()).toEqual(['api', 'w2']);
    // A process without Redis beside them is refused too.
    await expect(
      joinCluster({ db, nodeId: 'lone', role: 'all', shared: false, isRunning }),
    ).rejects.toThrow(/works on this database/);

    // A node of this host whose process died (kill -9) is cleared at the next start, with the
    // handle leases it held.
    await db.db.updateTable('cluster_nodes').set({ pid: 999_999 }).where('id', '=', 'w1').execute();
    const w3 = await joinCluster({ db, nodeId: 'w3', role: 'worker', shared: true, isRunning });
    expect((await listNodes(db.db)).map((node) => node.id).sort()).toEqual(['api', 'w2', 'w3']);
    for (const node of [api, w2, w3]) await node.leave();
    expect(await listNodes(db.db)).toEqual([]);
  });

  it('recounts the workers on every node as soon as one joins or leaves', async () => {
    db = await createTestDb(dialect);
    const bus = createLocalCluster();
    const join = (nodeId: string) =>
      joinCluster({ db, nodeId, role: 'worker', shared: true, bus, isRunning: () => true });
    const first = await join('w1');
    expect(first.workers()).toBe(1);
    const second = await join('w2');
    // No heartbeat has run (every 10 s): the announcement made the first node count again.
    await expect.poll(() => first.workers()).toBe(2);
    await second.leave();
    await expect.poll(() => first.workers()).toBe(1);
    await first.leave();
    await bus.close();
  });
});
