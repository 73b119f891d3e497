import type { NotificationPreferences } from '@perch/shared';
import type { Db } from '../../db/index.js';
import { parsePreferences } from '../../notify/preferences.js';
import type { UserRow } from '../users/users.repository.js';
import { findUserSettings, upsertUserSettings } from './settings.repository.js';
import { nowOf, type SettingsDeps } from './settings-state.js';

export async function getPreferences(db: Db, user: UserRow): Promise<NotificationPreferences> {
  const row = await findUserSettings(db.db, user.id);
  return parsePreferences(row?.notification_preferences);
}

export async function updatePreferences(
  deps: SettingsDeps,
  user: UserRow,
  patch: Partial<NotificationPreferences>,
): Promise<NotificationPreferences> {
  const current = await getPreferences(deps.db, user);
  const next = { ...current, ...stripUndefined(patch) };
  await upsertUserSettings(deps.db.db, user.id, {
    notification_preferences: JSON.stringify(next),
    updated_at: nowOf(deps).toISOString(),
  });
  return next;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, item]) => item !== undefined),
  ) as Partial<T>;
}
