import { COMPONENT_STATUS_CACHE_MS, type BotStatus } from '@perch/shared';

/** What the page last knew about each part (docs/spec-notes.md, Entities), kept in the browser. */
export interface ComponentStatus {
  apiConnected: boolean;
  twitterConnected: boolean;
  telegramConnected: boolean;
  discordConnected: boolean;
  botRunning: boolean;
}

export const COMPONENT_STATUS_KEY = 'perch.settings.component-status';

interface Stored {
  savedAt: number;
  status: ComponentStatus;
}

function isStored(value: unknown): value is Stored {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const status = record.status as Record<string, unknown> | undefined;
  return (
    typeof record.savedAt === 'number' &&
    typeof status === 'object' &&
    status !== null &&
    [
      'apiConnected',
      'twitterConnected',
      'telegramConnected',
      'discordConnected',
      'botRunning',
    ].every((key) => typeof status[key] === 'boolean')
  );
}

/** Remembers the status for the next visit. */
export function saveComponentStatus(status: ComponentStatus, now: number = Date.now()): void {
  try {
    window.localStorage.setItem(COMPONENT_STATUS_KEY, JSON.stringify({ savedAt: now, status }));
  } catch {
    // Storage full or blocked: the page simply starts without it.
  }
}

/** The remembered status and when it was saved, unless it is older than an hour. */
export function loadComponentStatus(now: number = Date.now()): Stored | null {
  try {
    const raw = window.localStorage.getItem(COMPONENT_STATUS_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    if (!isStored(parsed) || now - parsed.savedAt > COMPONENT_STATUS_CACHE_MS) return null;
    return parsed;
  } catch {
    return null;
  }
}

/** The bot status a remembered component status stands for. */
export function botStatusFromComponents(status: ComponentStatus): BotStatus {
  return {
    botRunning: status.botRunning,
    status: status.botRunning ? 'running' : 'stopped',
    canStart: status.twitterConnected && (status.telegramConnected || status.discordConnected),
    twitterConnected: status.twitterConnected,
    telegramConnected: status.telegramConnected,
    discordConnected: status.discordConnected,
  };
}
