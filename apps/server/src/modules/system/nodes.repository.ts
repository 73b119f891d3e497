import type { Selectable } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { ClusterNodesTable } from '../../db/types.js';

export type NodeRow = Selectable<ClusterNodesTable>;

export interface NewNode {
  id: string;
  role: string;
  host: string;
  pid: number;
  shared: boolean;
  now: string;
}

export async function insertNode(db: Executor, node: NewNode): Promise<void> {
  await db
    .insertInto('cluster_nodes')
    .values({
      id: node.id,
      role: node.role,
      host: node.host,
      pid: node.pid,
      shared: node.shared,
      started_at: node.now,
      seen_at: node.now,
    })
    .execute();
}

/** The node is alive (its heartbeat). False when its row was removed as stale meanwhile. */
export async function touchNode(db: Executor, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('cluster_nodes')
    .set({ seen_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteNode(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('cluster_nodes').where('id', '=', id).execute();
}

export function listNodes(db: Executor): Promise<NodeRow[]> {
  return db.selectFrom('cluster_nodes').selectAll().orderBy('started_at').execute();
}
