import { BOT_AUTO_START_DELAY_MS, type BotStatus, type Settings } from '@perch/shared';
import { useEffect, useEffectEvent, useState } from 'react';
import { useStartBotMutation } from '../api/start-bot';
import { botStartErrorText } from '../utils/settings-messages';

export interface BotAutoStartConditions {
  /** The loaded settings (undefined until they arrive). */
  settings: Settings | undefined;
  /** The health check's verdict (undefined before its first answer). */
  apiConnected: boolean | undefined;
  botRunning: boolean;
}

/**
 * The automatic start of doc 1 §4 Settings: Twitter connected, Telegram or Discord connected,
 * the bot not running, the API connected and the settings loaded.
 */
export function shouldAutoStartBot({
  settings,
  apiConnected,
  botRunning,
}: BotAutoStartConditions): boolean {
  if (!settings || apiConnected !== true || botRunning) return false;
  return settings.twitterConnected && (settings.telegramConnected || settings.discordConnected);
}

/** The connections a failed start was tried with: a change of them earns a new attempt. */
function attemptKey(settings: Settings | undefined): string {
  if (!settings) return '';
  return [
    settings.twitter_username,
    settings.telegram_chat_id,
    settings.discord_user_id,
    settings.twitterConnection,
  ].join('|');
}

export interface BotAutoStartOptions extends BotAutoStartConditions {
  /** `manual` when the person pressed Start (the automatic start only turns the badge on). */
  onStarted: (status: BotStatus, manual: boolean) => void;
  onFailed: (text: string) => void;
}

/**
 * Starts the bot 5 s after the conditions hold (the timer restarts if they stop holding in
 * between). A refused start is not retried in a loop: the next automatic attempt waits until the
 * connections change; `startNow` tries again at once.
 */
export function useBotAutoStart({ onStarted, onFailed, ...conditions }: BotAutoStartOptions) {
  const startMutation = useStartBotMutation();
  const [failedFor, setFailedFor] = useState<string | null>(null);
  const key = attemptKey(conditions.settings);
  const failed = failedFor !== null && failedFor === key;
  const due = shouldAutoStartBot(conditions) && !failed && !startMutation.isPending;

  const start = (manual: boolean) => {
    const triedWith = key;
    startMutation.mutateAsync().then(
      (status) => {
        setFailedFor(null);
        onStarted(status, manual);
      },
      (error: unknown) => {
        setFailedFor(triedWith);
        onFailed(botStartErrorText(error));
      },
    );
  };
  const startWhenDue = useEffectEvent(() => start(false));

  useEffect(() => {
    if (!due) return;
    const timer = setTimeout(() => startWhenDue(), BOT_AUTO_START_DELAY_MS);
    return () => clearTimeout(timer);
  }, [due]);

  return {
    /** A start is scheduled (within 5 s) or running. */
    starting: due || startMutation.isPending,
    /** The last attempt with these connections failed. */
    failed,
    startNow: () => {
      if (!startMutation.isPending) start(true);
    },
  };
}
