// The accounts of the simulated collector benches: users bench0, bench1, … and the handles they
// follow, added the way the API adds them. Loaded under tsx: it uses the server's source modules.
import { addHandle } from '../../apps/server/src/modules/handles/handles.service.ts';
import { insertUser } from '../../apps/server/src/modules/users/users.repository.ts';

/** Handles a user follows: the most a user may follow. */
const HANDLES_PER_USER = 10;

/**
 * Adds `handles` (each `{ username }`) to `db` at the virtual instant `clock`, each with
 * `backfillDays`, followed by the bench users in turns of HANDLES_PER_USER (the users are made
 * first). With no collector given, the scheduler finds the backfills due on its first tick.
 */
export async function followedByBenchUsers(db, handles, { backfillDays, clock }) {
  const users = [];
  for (let i = 0; i < handles.length / HANDLES_PER_USER; i++) {
    users.push(
      await insertUser(db.db, {
        username: `bench${i}`,
        email: `bench${i}@example.com`,
        passwordHash: 'x',
        isAdmin: false,
        isSuperAdmin: false,
        createdAt: new Date(clock).toISOString(),
      }),
    );
  }
  for (const [n, handle] of handles.entries()) {
    await addHandle(db, undefined, users[Math.floor(n / HANDLES_PER_USER)], {
      username: handle.username,
      backfillDays,
      now: new Date(clock),
    });
  }
}
