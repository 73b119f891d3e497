import { PLACEHOLDER_TWITTER_USERNAME } from '@perch/shared';
import type { Db } from '../../db/index.js';
import type { NotifyChannels } from '../../notify/channels.js';
import type { DuplicateTestGuard } from './duplicate-test-guard.js';
import {
  findUserSettings,
  findXAccountUsername,
  type UserSettingsRow,
} from './settings.repository.js';

/** What the settings rules need besides the database. */
export interface SettingsDeps {
  db: Db;
  channels: NotifyChannels;
  /** Tells the delivery worker to look for work now (optional: without one it ticks). */
  wakeWorker?: () => void;
  /** One per app: repeated identical tests send one message. */
  duplicateTests?: DuplicateTestGuard;
  now?: () => Date;
}

export const nowOf = (deps: Pick<SettingsDeps, 'now'>) => (deps.now ?? (() => new Date()))();

/** The connection state a settings row (and an OAuth-connected X account) adds up to. */
export interface Connections {
  twitterUsername: string | null;
  twitterConnection: 'oauth' | 'username' | 'none';
  twitterConnected: boolean;
  telegramConnected: boolean;
  discordConnected: boolean;
  canStart: boolean;
}

export function connectionsOf(
  row: UserSettingsRow | undefined,
  xUsername: string | null,
): Connections {
  const typed = row?.twitter_username ?? null;
  const typedSet = typed !== null && typed !== '' && typed !== PLACEHOLDER_TWITTER_USERNAME;
  const twitterConnection = xUsername ? 'oauth' : typedSet ? 'username' : 'none';
  const twitterConnected = twitterConnection !== 'none';
  const telegramConnected = Boolean(row?.telegram_chat_id);
  const discordConnected = Boolean(row?.discord_user_id);
  return {
    twitterUsername: xUsername ?? (typedSet ? typed : null),
    twitterConnection,
    twitterConnected,
    telegramConnected,
    discordConnected,
    canStart: twitterConnected && (telegramConnected || discordConnected),
  };
}

/** The user's settings row and the connections it adds up to. */
export async function loadState(db: Db, userId: number) {
  const [row, xUsername] = await Promise.all([
    findUserSettings(db.db, userId),
    findXAccountUsername(db.db, userId),
  ]);
  return { row, connections: connectionsOf(row, xUsername) };
}
