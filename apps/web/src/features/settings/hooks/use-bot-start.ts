import type { BotStatus } from '@perch/shared';
import { useStartBotMutation } from '../api/start-bot';
import { botStartErrorText } from '../utils/settings-messages';

export interface BotStartOptions {
  onStarted: (status: BotStatus) => void;
  onFailed: (text: string) => void;
}

/**
 * The 'Start forwarding' button. The server starts the forwarder by itself the moment the X
 * account and a channel are connected (and at its own start), so no page has to stay open; the
 * button is for a forwarder that is off although it could run.
 */
export function useBotStart({ onStarted, onFailed }: BotStartOptions) {
  const startMutation = useStartBotMutation();
  return {
    /** A start is running. */
    starting: startMutation.isPending,
    /** The last start failed. */
    failed: startMutation.isError,
    startNow: () => {
      if (startMutation.isPending) return;
      startMutation
        .mutateAsync()
        .then(onStarted, (error: unknown) => onFailed(botStartErrorText(error)));
    },
  };
}
