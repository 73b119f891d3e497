/**
 * The Telegram Bot API client (docs/spec-notes.md, Telegram): JSON POSTs to
 * `${TELEGRAM_API_BASE_URL}/bot${TELEGRAM_BOT_TOKEN}/${method}`, answers unwrapped from the
 * `{ok, result}` envelope, every failure turned into a DeliveryError:
 *
 * - 429 -> rate_limited, waiting `parameters.retry_after` (else the Retry-After header); the
 *   chat is also paused in the rate gate so other messages to it wait as well.
 * - 5xx, network failures and our own time limits -> transient.
 * - The chat cannot be reached (not found, blocked, never started, deactivated, kicked, no
 *   right to post), the token is refused (401, or a bare 404 'Not Found'), or any 403 ->
 *   permanent, with a reason a person can act on: nothing sent to that chat can work.
 * - A group that became a supergroup (400 with `parameters.migrate_to_chat_id`) -> moved, with
 *   the new chat id: the same message sent there goes through.
 * - Any other 400 is about this message, not the chat (a photo URL Telegram cannot fetch, a
 *   caption or text too long, an image it will not take) -> message: the chat is fine and the
 *   notice can go as plain text with the link instead.
 * - "can't parse entities": the client resends the message once as plain text (tags dropped,
 *   entities decoded), so a formatting slip costs the styling, never the notification.
 *
 * Pacing: before every send the client takes slots from its rate gate (by default Telegram's
 * 30 msg/s overall, 1 msg/s per chat and 20 a minute per group, keyed by chat id); an album
 * takes one slot per photo, as Telegram counts each photo as a message. When the gate would make
 * a send wait longer than `maxPacingWaitMs` the send is refused as rate_limited instead of
 * blocking the worker. A worker sharing the gate only reads it (`whenCanSend`): acquiring there
 * as well would count every message twice.
 *
 * A send that times out may still have been delivered: Telegram has no idempotency key, so the
 * worker's retry can duplicate it. That is preferred to losing it.
 */
import { createTelegramRateGate, type RateGate } from '../rate-gate.js';
import { BotApiClient, headerSecondsMs, requestJson } from '../http-json.js';
import { DeliveryError, type TelegramClient, type TelegramUpdate } from '../types.js';
import { htmlToPlainText } from '../format/telegram-html.js';
import type { TelegramOutgoing } from '../format/telegram-format.js';

export interface TelegramClientOptions {
  /** TELEGRAM_BOT_TOKEN; without it the client is unavailable. */
  token: string | undefined;
  /** TELEGRAM_API_BASE_URL, e.g. https://api.telegram.org (a trailing slash is tolerated). */
  baseUrl: string;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Time limit of one request other than getUpdates. Default 15,000 ms. */
  requestTimeoutMs?: number;
  /** getUpdates may take its long-poll timeout plus this much. Default 10,000 ms. */
  pollGraceMs?: number;
  /** Pacing of sends; by default a gate of Telegram's limits of this client's own. */
  rateGate?: RateGate;
  /** Longest wait for the rate gate before a send is refused as rate_limited. Default 10,000 ms. */
  maxPacingWaitMs?: number;
}

export const TELEGRAM_NOT_SET_UP =
  'Telegram is not set up on this server (the operator sets TELEGRAM_BOT_TOKEN).';
export const TELEGRAM_BAD_TOKEN =
  'The bot token was refused: the operator must check TELEGRAM_BOT_TOKEN';

/**
 * Refusals that concern the chat, not the message, matched on Telegram's description, and what
 * the person can do about them. Nothing else sent to that chat would go through.
 */
const CHAT_REASONS: { match: RegExp; reason: string }[] = [
  {
    match: /chat not found|chat_id is empty|PEER_ID_INVALID/i,
    reason: 'Telegram says the chat was not found: check the Chat ID',
  },
  {
    match: /bot was blocked by the user/i,
    reason: 'You blocked the bot in Telegram: unblock it and test again',
  },
  {
    match: /bot can't initiate conversation/i,
    reason:
      'The bot cannot write to you first: open the bot in Telegram, press Start and test again',
  },
  {
    match: /user is deactivated/i,
    reason: 'This Telegram account is deactivated: use the Chat ID of an active account',
  },
  {
    match: /bot was kicked|bot is not a member|group chat was deleted|chat was deactivated/i,
    reason: 'The bot was removed from this chat: add it back and test again',
  },
  {
    match:
      /not enough rights to send (text )?messages|have no rights to send a message|need administrator rights|CHAT_WRITE_FORBIDDEN|CHAT_RESTRICTED/i,
    reason: 'The bot may not post in this chat: allow it to send messages and test again',
  },
  {
    // Only when Telegram did not say where the group went (it normally does: 'moved').
    match: /upgraded to a supergroup/i,
    reason: 'This group became a supergroup with a new Chat ID: enter the new Chat ID',
  },
];

interface Envelope {
  ok?: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number | string };
}

interface WireMessage {
  message_id: number;
  chat: { id: number | string };
  from?: { username?: string };
  text?: string;
  caption?: string;
}

interface WireUpdate {
  update_id: number;
  message?: WireMessage;
  my_chat_member?: { chat: { id: number | string }; new_chat_member?: { status?: string } };
}

const isParseError = (error: unknown) =>
  error instanceof DeliveryError && /can't parse entities/i.test(error.message);

/** Maps a failed answer to the DeliveryError the worker acts on. */
function toDeliveryError(status: number, body: Envelope | null, headers: Headers): DeliveryError {
  const description = body?.description ?? `HTTP ${status}`;
  const message = `Telegram: ${description}`;
  if (status === 429) {
    const fromBody = body?.parameters?.retry_after;
    const retryAfterMs =
      typeof fromBody === 'number' && fromBody >= 0
        ? fromBody * 1000
        : (headerSecondsMs(headers, 'retry-after') ?? 1000);
    return new DeliveryError('rate_limited', message, retryAfterMs);
  }
  if (status >= 500) return new DeliveryError('transient', message);
  if (status === 401 || (status === 404 && /^not found$/i.test(description.trim()))) {
    return new DeliveryError('permanent', message, undefined, TELEGRAM_BAD_TOKEN);
  }
  if (status === 409 && /terminated by other getUpdates/i.test(description)) {
    // Another process polls with the same token; this one backs off and tries again.
    return new DeliveryError('transient', message);
  }
  const movedTo = body?.parameters?.migrate_to_chat_id;
  if (typeof movedTo === 'number' || (typeof movedTo === 'string' && movedTo !== '')) {
    return new DeliveryError('moved', message, undefined, undefined, String(movedTo));
  }
  const known = CHAT_REASONS.find((r) => r.match.test(description));
  if (known) return new DeliveryError('permanent', message, undefined, known.reason);
  const refused = `Telegram refused the message: ${description}`;
  if (status === 400) return new DeliveryError('message', message, undefined, refused);
  // 403 and anything unexpected: the bot may not write there at all.
  return new DeliveryError('permanent', message, undefined, refused);
}

/** A caption as HTML, or as the plain text it shows (the retry after a parse error). */
const caption = (captionHtml: string, asHtml: boolean) =>
  asHtml ? { caption: captionHtml, parse_mode: 'HTML' } : { caption: htmlToPlainText(captionHtml) };

/** The client of one bot token: it owns the pacing and the bot's username. */
export class TelegramApiClient extends BotApiClient implements TelegramClient {
  private readonly pollGraceMs: number;
  private readonly gate: RateGate;
  private readonly maxPacingWaitMs: number;
  private username: Promise<string> | null = null;

  constructor(options: TelegramClientOptions) {
    super(options);
    this.pollGraceMs = options.pollGraceMs ?? 10_000;
    this.gate = options.rateGate ?? createTelegramRateGate();
    this.maxPacingWaitMs = options.maxPacingWaitMs ?? 10_000;
  }

  private requireToken(): void {
    if (!this.token) {
      throw new DeliveryError('permanent', TELEGRAM_NOT_SET_UP, undefined, TELEGRAM_NOT_SET_UP);
    }
  }

  /** One Bot API call; returns its result, or throws the DeliveryError of its answer. */
  private async call<T>(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    limitMs = this.timeoutMs,
  ): Promise<T> {
    this.requireToken();
    const reply = await requestJson(this.doFetch, {
      service: 'Telegram',
      url: `${this.baseUrl}/bot${this.token}/${method}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: params,
      timeoutMs: limitMs,
      signal,
    });
    const body = reply.body as Envelope | null;
    if (reply.status === 200 && body?.ok === true) return body.result as T;
    throw toDeliveryError(reply.status, body, reply.headers);
  }

  /**
   * A send to a chat: paced (`weight` messages: an album counts each photo), with one
   * plain-text retry when Telegram cannot parse the HTML.
   */
  private async send<T>(
    method: string,
    chatId: string,
    html: Record<string, unknown>,
    plain: Record<string, unknown>,
    signal: AbortSignal | undefined,
    weight = 1,
  ): Promise<T> {
    this.requireToken();
    try {
      return await this.paced<T>(method, chatId, html, signal, weight);
    } catch (error) {
      if (!isParseError(error)) throw error;
      return this.paced<T>(method, chatId, plain, signal, weight);
    }
  }

  /**
   * Waits for the gate (refusing as rate_limited when that would take too long), then calls;
   * a 429 pauses the chat in the gate as well.
   */
  private async paced<T>(
    method: string,
    chatId: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    weight: number,
  ): Promise<T> {
    const wait = this.gate.delayFor(chatId, weight);
    if (wait > this.maxPacingWaitMs) {
      throw new DeliveryError('rate_limited', `Telegram: pacing chat ${chatId}`, wait);
    }
    await this.gate.acquire(chatId, signal, weight);
    try {
      return await this.call<T>(method, { chat_id: chatId, ...params }, signal);
    } catch (error) {
      if (error instanceof DeliveryError && error.kind === 'rate_limited') {
        this.gate.pause(error.retryAfterMs ?? 1000, chatId);
      }
      throw error;
    }
  }

  botUsername(signal?: AbortSignal): Promise<string> {
    if (this.username) return this.username;
    const lookup = this.call<{ username?: string }>('getMe', {}, signal).then((me) => {
      if (!me.username) throw new DeliveryError('transient', 'Telegram: getMe has no username');
      return me.username;
    });
    this.username = lookup;
    // A failed look-up is not kept: the next call asks again.
    lookup.catch(() => {
      if (this.username === lookup) this.username = null;
    });
    return lookup;
  }

  async sendMessage(chatId: string, html: string, signal?: AbortSignal): Promise<number> {
    const common = { link_preview_options: { is_disabled: true } };
    const message = await this.send<WireMessage>(
      'sendMessage',
      chatId,
      { ...common, text: html, parse_mode: 'HTML' },
      { ...common, text: htmlToPlainText(html) },
      signal,
    );
    return message.message_id;
  }

  async sendPhoto(
    chatId: string,
    photoUrl: string,
    captionHtml: string,
    signal?: AbortSignal,
  ): Promise<number> {
    const message = await this.send<WireMessage>(
      'sendPhoto',
      chatId,
      { photo: photoUrl, ...caption(captionHtml, true) },
      { photo: photoUrl, ...caption(captionHtml, false) },
      signal,
    );
    return message.message_id;
  }

  async sendMediaGroup(
    chatId: string,
    photoUrls: string[],
    captionHtml: string,
    signal?: AbortSignal,
  ): Promise<number> {
    const media = (asHtml: boolean) =>
      photoUrls.map((url, index) => ({
        type: 'photo',
        media: url,
        ...(index === 0 ? caption(captionHtml, asHtml) : {}),
      }));
    const messages = await this.send<WireMessage[]>(
      'sendMediaGroup',
      chatId,
      { media: media(true) },
      { media: media(false) },
      signal,
      photoUrls.length,
    );
    const first = messages[0];
    if (!first) throw new DeliveryError('transient', 'Telegram: sendMediaGroup sent nothing');
    return first.message_id;
  }

  async deleteWebhook(signal?: AbortSignal): Promise<void> {
    // Updates that arrived meanwhile are kept: getUpdates hands them over next.
    await this.call<boolean>('deleteWebhook', { drop_pending_updates: false }, signal);
  }

  async getUpdates(
    offset: number,
    timeoutSeconds: number,
    signal?: AbortSignal,
  ): Promise<TelegramUpdate[]> {
    const updates = await this.call<WireUpdate[]>(
      'getUpdates',
      {
        offset,
        timeout: timeoutSeconds,
        limit: 100,
        allowed_updates: ['message', 'my_chat_member'],
      },
      signal,
      timeoutSeconds * 1000 + this.pollGraceMs,
    );
    return updates.map(toUpdate);
  }
}

/** Creates the client. One instance per bot token: it owns the pacing and the bot's username. */
export function createTelegramClient(options: TelegramClientOptions): TelegramClient {
  return new TelegramApiClient(options);
}

/** Every update is returned, even of kinds not read here, so the caller's offset moves past it. */
function toUpdate(raw: WireUpdate): TelegramUpdate {
  const update: TelegramUpdate = { updateId: raw.update_id };
  if (raw.message) {
    update.message = {
      chatId: String(raw.message.chat.id),
      text: raw.message.text ?? raw.message.caption ?? '',
      fromUsername: raw.message.from?.username ?? null,
    };
  }
  if (raw.my_chat_member) {
    update.chatMember = {
      chatId: String(raw.my_chat_member.chat.id),
      status: raw.my_chat_member.new_chat_member?.status ?? 'unknown',
    };
  }
  return update;
}

/** Sends one formatted message (see telegramMessages) with the matching method. */
export function sendTelegramOutgoing(
  client: TelegramClient,
  chatId: string,
  message: TelegramOutgoing,
  signal?: AbortSignal,
): Promise<number> {
  switch (message.kind) {
    case 'text':
      return client.sendMessage(chatId, message.html, signal);
    case 'photo':
      return client.sendPhoto(chatId, message.photoUrl, message.captionHtml, signal);
    case 'media_group':
      return client.sendMediaGroup(chatId, message.photoUrls, message.captionHtml, signal);
  }
}
