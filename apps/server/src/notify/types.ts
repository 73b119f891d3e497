/**
 * The messaging services Perch forwards tweets to: narrow clients of
 * the Telegram Bot API and Discord API v10, each with its base URL from config, and the one
 * error type the delivery worker acts on.
 */

/**
 * How a failed send is handled:
 * - rate_limited: wait `retryAfterMs` and retry;
 * - transient: the service or the network is in trouble: retry (the channel's circuit opens);
 * - message: this message was refused (a photo URL, a caption too long, Discord 50035...), the
 *   chat is fine: the notice goes again as plain text with the link;
 * - moved: a Telegram group became a supergroup: `movedTo` is its new chat id, sent to at once;
 * - permanent: the chat cannot be reached (not found, bot blocked or kicked, DMs closed, bad
 *   token): that user's channel stops, with `reason` on Settings.
 */
export type DeliveryErrorKind = 'rate_limited' | 'transient' | 'message' | 'moved' | 'permanent';

export class DeliveryError extends Error {
  constructor(
    readonly kind: DeliveryErrorKind,
    /** What the service said (e.g. 'Forbidden: bot was blocked by the user'). */
    message: string,
    /** For 'rate_limited': how long the service asked to wait. */
    readonly retryAfterMs?: number,
    /** For 'permanent': a short reason a person can act on, shown on the Settings page. */
    readonly reason?: string,
    /** For 'moved': the chat's new id (Telegram's `migrate_to_chat_id`). */
    readonly movedTo?: string,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** A tweet as a notification shows it. */
export interface TweetNotice {
  handle: string;
  /** Display name of the account, when known. */
  authorName: string | null;
  tweetId: string;
  text: string;
  url: string;
  createdAt: string;
  likes: number;
  retweets: number;
  replies: number;
  quotes: number;
  /** Full-size photo URLs (at most 10 are sent). */
  photoUrls: string[];
  /** A still of the first video or GIF, when there is one. */
  previewUrl: string | null;
}

export interface TelegramUpdate {
  updateId: number;
  /** A private message: who sent it, in which chat, with what text. */
  message?: { chatId: string; text: string; fromUsername: string | null };
  /** The user blocked ('kicked') or unblocked ('member') the bot. */
  chatMember?: { chatId: string; status: string };
}

export interface TelegramClient {
  /** False without TELEGRAM_BOT_TOKEN: every call then throws a permanent DeliveryError. */
  readonly available: boolean;
  /** The bot's own username (for t.me links); cached after the first call. */
  botUsername(signal?: AbortSignal): Promise<string>;
  /** Sends HTML text (already escaped) to a chat; returns the message id. */
  sendMessage(chatId: string, html: string, signal?: AbortSignal): Promise<number>;
  /** A photo by URL with an HTML caption (<= 1024 characters after parsing). */
  sendPhoto(
    chatId: string,
    photoUrl: string,
    captionHtml: string,
    signal?: AbortSignal,
  ): Promise<number>;
  /** 2-10 photos by URL, the caption on the first. */
  sendMediaGroup(
    chatId: string,
    photoUrls: string[],
    captionHtml: string,
    signal?: AbortSignal,
  ): Promise<number>;
  /** Removes the bot's webhook, if any: getUpdates answers 409 while one is set. */
  deleteWebhook(signal?: AbortSignal): Promise<void>;
  /** Long-polls updates after `offset` (update_id + 1 of the last one handled). */
  getUpdates(
    offset: number,
    timeoutSeconds: number,
    signal?: AbortSignal,
  ): Promise<TelegramUpdate[]>;
}

export interface DiscordEmbedMessage {
  content?: string;
  embeds: {
    title?: string;
    description?: string;
    url?: string;
    timestamp?: string;
    color?: number;
    author?: { name: string; url?: string };
    image?: { url: string };
    footer?: { text: string };
    fields?: { name: string; value: string; inline?: boolean }[];
  }[];
}

export interface DiscordClient {
  /** False without DISCORD_BOT_TOKEN: every call then throws a permanent DeliveryError. */
  readonly available: boolean;
  /** Opens (or finds) the DM channel with a user; returns the channel id. */
  openDm(userId: string, signal?: AbortSignal): Promise<string>;
  /**
   * Posts a message to a channel; returns the message id. With a `nonce` (at most 25
   * characters) the message is sent with `enforce_nonce: true`: Discord answers a resend of the
   * same nonce within minutes with the first message instead of posting it twice.
   */
  send(
    channelId: string,
    message: DiscordEmbedMessage,
    signal?: AbortSignal,
    nonce?: string,
  ): Promise<string>;
}
