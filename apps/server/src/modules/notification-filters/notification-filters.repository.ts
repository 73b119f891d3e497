import type { NotificationFilter } from '@perch/shared';
import type { Executor } from '../../db/index.js';

/** Stores a user's filter of a handle on their link; false when they do not follow it. */
export async function writeLinkFilter(
  db: Executor,
  userId: number,
  handleId: number,
  filter: NotificationFilter,
): Promise<boolean> {
  const result = await db
    .updateTable('user_handles')
    .set({
      filter_include: JSON.stringify(filter.include),
      filter_exclude: JSON.stringify(filter.exclude),
      filter_media_only: filter.media_only,
    })
    .where('user_id', '=', userId)
    .where('handle_id', '=', handleId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
