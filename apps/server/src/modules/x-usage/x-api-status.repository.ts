import type { Selectable } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { XApiState, XApiStatusTable } from '../../db/types.js';

export type XApiStatusRow = Selectable<XApiStatusTable>;

const ROW_ID = 1;

/** The X credentials' state; 'ok' when nothing was ever recorded. */
export async function readXApiStatus(db: Executor): Promise<XApiStatusRow> {
  const row = await db
    .selectFrom('x_api_status')
    .selectAll()
    .where('id', '=', ROW_ID)
    .executeTakeFirst();
  return (
    row ?? {
      id: ROW_ID,
      state: 'ok',
      detail: null,
      since: null,
      last_probe_at: null,
      next_probe_at: null,
      updated_at: new Date(0).toISOString(),
    }
  );
}

export interface XApiStatusUpdate {
  state: XApiState;
  detail: string | null;
  now: string;
  /** When the next probe may run (blocked states only). */
  nextProbeAt: string | null;
}

/**
 * Records the credentials' state. `since` is kept while the state stays the same, so it tells
 * how long X has refused; a probe that failed again only moves the probe times.
 */
export async function writeXApiStatus(db: Executor, update: XApiStatusUpdate): Promise<void> {
  const current = await readXApiStatus(db);
  const since =
    update.state === 'ok'
      ? null
      : current.state === update.state && current.since
        ? current.since
        : update.now;
  const values = {
    state: update.state,
    detail: update.detail,
    since,
    last_probe_at: update.state === 'ok' ? current.last_probe_at : update.now,
    next_probe_at: update.nextProbeAt,
    updated_at: update.now,
  };
  await db
    .insertInto('x_api_status')
    .values({ id: ROW_ID, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}

/**
 * Claims the probe slot: true for exactly one caller per slot (several processes may look at
 * once), which then moves `next_probe_at` to `nextProbeAt`.
 */
export async function claimProbe(db: Executor, now: string, nextProbeAt: string): Promise<boolean> {
  const result = await db
    .updateTable('x_api_status')
    .set({ next_probe_at: nextProbeAt, last_probe_at: now, updated_at: now })
    .where('id', '=', ROW_ID)
    .where('state', '!=', 'ok')
    .where((eb) => eb.or([eb('next_probe_at', 'is', null), eb('next_probe_at', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
