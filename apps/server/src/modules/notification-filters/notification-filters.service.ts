import {
  FILTER_MESSAGES,
  isFilterActive,
  type Handle,
  type NotificationFilter,
} from '@perch/shared';
import type { Db } from '../../db/index.js';
import { notFound } from '../../lib/errors.js';
import { findLinkedHandle } from '../handles/handles.repository.js';
import { HANDLE_NOT_FOUND, toHandle } from '../handles/handles.service.js';
import type { UserRow } from '../users/users.repository.js';
import { writeLinkFilter } from './notification-filters.repository.js';

/** GET /handles/{id}/notifications/filter: the user's filter of a handle they follow. */
export async function getHandleFilter(
  db: Db,
  user: UserRow,
  handleId: number,
): Promise<NotificationFilter> {
  const linked = await findLinkedHandle(db.db, user.id, handleId);
  if (!linked) throw notFound(HANDLE_NOT_FOUND);
  return toHandle(linked).notification_filter ?? { include: [], exclude: [], media_only: false };
}

/**
 * PUT /handles/{id}/notifications/filter: replaces the filter (validated and normalised by the
 * request schema). It applies to tweets found from now on; notices already waiting still go.
 */
export async function setHandleFilter(
  db: Db,
  user: UserRow,
  handleId: number,
  filter: NotificationFilter,
): Promise<{ handle: Handle; message: string }> {
  if (!(await writeLinkFilter(db.db, user.id, handleId, filter))) throw notFound(HANDLE_NOT_FOUND);
  const linked = await findLinkedHandle(db.db, user.id, handleId);
  if (!linked) throw notFound(HANDLE_NOT_FOUND);
  const handle = toHandle(linked);
  return {
    handle,
    message: isFilterActive(filter)
      ? FILTER_MESSAGES.saved(handle.handle)
      : FILTER_MESSAGES.cleared(handle.handle),
  };
}
