import { StoppedAlert } from './stopped-alert';
import { UnavailableNote } from './unavailable-note';

export interface ChannelNoticesProps {
  /** Why delivery stopped for good (shown while the channel is still connected). */
  stoppedReason: string | null;
  connected: boolean;
  /** The server can reach the service (its bot token is set). */
  available: boolean;
  /** What the operator must do when it cannot: the server's hint, else the card's own text. */
  unavailableHint: string;
}

/** The notices at the top of a Telegram or Discord card: delivery stopped, or no bot token. */
export function ChannelNotices({
  stoppedReason,
  connected,
  available,
  unavailableHint,
}: ChannelNoticesProps) {
  return (
    <>
      {stoppedReason && connected ? <StoppedAlert reason={stoppedReason} /> : null}
      {!available ? <UnavailableNote hint={unavailableHint} /> : null}
    </>
  );
}
