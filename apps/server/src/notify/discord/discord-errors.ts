/**
 * What a Discord refusal means (discord-client.ts tells the whole story). Errors key on
 * Discord's JSON `code`, then on the status:
 * - the user cannot be reached (50007/50278: DMs closed or no shared server; 10013: unknown
 *   user; 50001/50013 and any other 403: no access), or the token is refused (401) ->
 *   permanent, with a reason for the person;
 * - the message itself was refused (50035 invalid form body, whose error tree is put in the
 *   message for the log, or any other 400) -> message: the notice can go again as plain text;
 *   on the DM route, where only the user id is sent, a 400 is about the user -> permanent;
 * - 10003 (the DM channel is gone), 5xx -> transient; 40003 (opening DMs too fast) ->
 *   rate_limited.
 * Some refusals also tell the client to act (`effect`): forget the DM channel, hold every DM
 * opening back, stop using the token.
 */
import { DeliveryError } from '../types.js';

export const DISCORD_NOT_SET_UP =
  'Discord is not set up on this server (the operator sets DISCORD_BOT_TOKEN).';
export const DISCORD_BAD_TOKEN =
  'The bot token was refused: the operator must check DISCORD_BOT_TOKEN';
export const DISCORD_DMS_CLOSED =
  'Discord will not let the bot message you: share a server with the bot and allow DMs from server members';
export const DISCORD_UNKNOWN_USER = 'Discord user not found: check the User ID';
export const DISCORD_NO_ACCESS =
  'Discord does not let the bot message you: share a server with the bot, allow DMs from its members and test again';
export const DISCORD_MALFORMED =
  'Discord refused the notification as malformed: the operator can find the details in the server log';

/** The JSON body of a Discord error answer. */
export interface DiscordWireError {
  code?: number;
  message?: string;
  errors?: unknown;
  retry_after?: number;
  global?: boolean;
}

/** What the client must do about a refusal besides throwing its error. */
export type DiscordFailureEffect =
  /** The DM channel is gone: forget it, so the retry opens the DM again. */
  | 'forget_dm_channel'
  /** Opening DMs too fast: every opening waits `retryAfterMs`, not just this one. */
  | 'hold_dm_openings'
  /** The token was refused: it is not used again (Discord bans an IP that keeps trying). */
  | 'token_refused'
  | null;

export interface DiscordFailure {
  error: DeliveryError;
  effect: DiscordFailureEffect;
}

/** 'embeds.0.description: Must be 4096 or fewer in length.' for each leaf of a 50035 tree. */
export function flattenFormErrors(tree: unknown, path: string[] = []): string[] {
  if (tree === null || typeof tree !== 'object') return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(tree)) {
    if (key === '_errors' && Array.isArray(value)) {
      for (const item of value as { message?: string; code?: string }[]) {
        out.push(`${path.join('.') || '(body)'}: ${item.message ?? item.code ?? 'invalid'}`);
      }
    } else {
      out.push(...flattenFormErrors(value, [...path, key]));
    }
  }
  return out;
}

const permanent = (message: string, reason: string): DiscordFailure => ({
  error: new DeliveryError('permanent', message, undefined, reason),
  effect: null,
});

/** The refusals Discord names by their JSON code; undefined for the others. */
function failureByCode(code: number | undefined, message: string, wire: DiscordWireError) {
  switch (code) {
    case 50007:
    case 50278:
      return permanent(message, DISCORD_DMS_CLOSED);
    case 10013:
      return permanent(message, DISCORD_UNKNOWN_USER);
    case 50001:
    case 50013:
      return permanent(message, DISCORD_NO_ACCESS);
    case 10003:
      return {
        error: new DeliveryError('transient', message),
        effect: 'forget_dm_channel' as const,
      };
    case 40003: {
      const waitMs = Math.ceil(
        typeof wire.retry_after === 'number' ? wire.retry_after * 1000 : 10_000,
      );
      return {
        error: new DeliveryError('rate_limited', message, waitMs),
        effect: 'hold_dm_openings' as const,
      };
    }
  }
  return undefined;
}

/**
 * What a failed answer (other than a plain 429) means. `dmRoute`: the answer is to opening a
 * DM, where the only thing sent is the user id.
 */
export function discordFailure(
  status: number,
  wire: DiscordWireError,
  dmRoute: boolean,
): DiscordFailure {
  const text = wire.message ?? `HTTP ${status}`;
  const message = `Discord: ${text}${wire.code ? ` (${wire.code})` : ''}`;
  const known = failureByCode(wire.code, message, wire);
  if (known) return known;
  if (status === 401) {
    return {
      error: new DeliveryError('permanent', message, undefined, DISCORD_BAD_TOKEN),
      effect: 'token_refused',
    };
  }
  if (status >= 500) return { error: new DeliveryError('transient', message), effect: null };
  const details = wire.code === 50035 ? flattenFormErrors(wire.errors) : [];
  const logged = details.length > 0 ? `${message}: ${details.join('; ')}` : message;
  if (status === 400 || status === 413) {
    // On the DM route the only thing sent is the user id: a refusal there is about the user.
    if (dmRoute) return permanent(logged, DISCORD_UNKNOWN_USER);
    const reason = wire.code === 50035 ? DISCORD_MALFORMED : `Discord refused the message: ${text}`;
    return { error: new DeliveryError('message', logged, undefined, reason), effect: null };
  }
  if (status === 403) return permanent(logged, DISCORD_NO_ACCESS);
  return permanent(logged, `Discord refused the message: ${text}`);
}
