/**
 * A loopback fake of the Telegram Bot API methods Perch uses (docs/spec-notes.md, Fakes), on
 * 127.0.0.1:0 with node:http, so the real client is tested over real HTTP.
 *
 * - Route `/bot<token>/<method>` (method names case-insensitive), GET or POST, parameters from
 *   the query string, a JSON body or a form body. A well-formed but wrong token answers 401
 *   'Unauthorized', a malformed one 404 'Not Found', as api.telegram.org does.
 * - getMe, sendMessage, sendPhoto, sendMediaGroup (2-10 photos), getUpdates (long poll with
 *   offset, limit and timeout; a second poller ends the first with 409), setWebhook /
 *   deleteWebhook (getUpdates answers 409 while a webhook is set).
 * - HTML parse mode is checked like Telegram does: unknown tags, unbalanced tags and unclosed
 *   tags give the real "can't parse entities" errors; text is counted after parsing (4096 for a
 *   message, 1024 for a caption).
 * - Flood control: more than `perChatPerSecond` messages to one chat, or `globalPerSecond`
 *   overall, within a second, or more than `perGroupPerMinute` to one group (a negative chat id)
 *   within a minute, gets a 429 with `parameters.retry_after` and a Retry-After header. An album
 *   counts one message per photo; to one chat, the photos beyond its per-second limit count as
 *   sent a second apart, so the chat's next message waits as long as that many messages would.
 * - Every accepted message is recorded; knobs make a chat unreachable or migrated (a group that
 *   became a supergroup: 400 with `parameters.migrate_to_chat_id`), refuse a photo URL, take the
 *   whole server down, rate-limit or fail the next requests, or stall them (for time limits).
 */
import http from 'node:http';
import { listenOnLoopback, takeScripted } from './loopback.js';

export type FakeTelegramChatState =
  'ok' | 'not_found' | 'blocked' | 'never_started' | 'deactivated' | 'kicked';

export interface FakeTelegramMessage {
  messageId: number;
  chatId: string;
  method: 'sendMessage' | 'sendPhoto' | 'sendMediaGroup';
  /** The text or caption as sent. */
  raw: string;
  /** The text or caption as the person reads it (tags parsed, entities decoded). */
  text: string;
  parseMode: string | null;
  photoUrls: string[];
  /** Epoch ms when it was accepted. */
  at: number;
}

export interface FakeTelegramRequest {
  method: string;
  chatId: string | null;
  status: number;
  description: string | null;
  at: number;
}

export interface FakeTelegramFrom {
  username?: string;
  firstName?: string;
}

/** Flood limits; `perGroupPerMinute` defaults to 20 when omitted. */
export interface FakeTelegramFloodLimits {
  perChatPerSecond: number;
  globalPerSecond: number;
  perGroupPerMinute?: number;
}

/** How a server that is down answers: a proxy's 502 page, or a connection reset. */
export type FakeTelegramOutage = 'bad_gateway' | 'reset';

export interface FakeTelegramServerOptions {
  /** Default '7000000001:AAH-fake-telegram-token_for_tests'. */
  token?: string;
  /** getMe's username. Default 'perch_test_bot'. */
  botUsername?: string;
  now?: () => number;
  /**
   * Flood limits; `null` turns flood control off. Default 1 per chat and 30 overall a second, 20
   * per group a minute.
   */
  floodLimits?: FakeTelegramFloodLimits | null;
  /**
   * Slack given to the flood windows: requests that leave a paced client a second apart can
   * arrive closer together (new connections are slow to open). The check is there to catch a
   * client that does not pace, not to meter one to the millisecond. Default 200 ms.
   */
  floodToleranceMs?: number;
}

/** The description of a photo Telegram could not fetch or use (refusePhotoUrl's default). */
export const TELEGRAM_WRONG_PHOTO_URL = 'Bad Request: wrong file identifier/HTTP URL specified';
export const TELEGRAM_GROUP_MIGRATED = 'Bad Request: group chat was upgraded to a supergroup chat';

export interface FakeTelegramServer {
  baseUrl: string;
  token: string;
  botUsername: string;
  /** Accepted messages, oldest first (one per API call; a media group is one). */
  messages: FakeTelegramMessage[];
  requests: FakeTelegramRequest[];
  messagesTo(chatId: string | number): FakeTelegramMessage[];
  /** Sets how a chat answers; 'ok' also undoes migrateChat for it. */
  setChat(chatId: string | number, state: FakeTelegramChatState): void;
  /**
   * The group `chatId` becomes a supergroup: sends to it answer 400 'Bad Request: group chat
   * was upgraded to a supergroup chat' with `parameters.migrate_to_chat_id`, and the new id
   * (default '-100' followed by the old id's digits) takes messages. Returns the new id.
   */
  migrateChat(chatId: string | number, newChatId?: string | number): string;
  /**
   * Sends of this photo URL (sendPhoto, or an item of sendMediaGroup) answer 400 with
   * `description` (default 'Bad Request: wrong file identifier/HTTP URL specified'; Telegram
   * also says 'Bad Request: failed to get HTTP URL content', 'Bad Request: wrong type of the
   * web page content' or 'Bad Request: PHOTO_INVALID_DIMENSIONS').
   */
  refusePhotoUrl(url: string, description?: string): void;
  /**
   * Takes the whole server down (every request answers a 502 proxy page, or has its connection
   * reset) or brings it back. A long poll in progress ends the same way.
   */
  setDown(down: boolean, how?: FakeTelegramOutage): void;
  /** 429 answers given so far (flood control and rateLimitNext alike). */
  readonly rateLimited: number;
  /** The next `times` send requests get a 429 with this retry_after. */
  rateLimitNext(times: number, retryAfterSeconds?: number): void;
  /** The next `times` requests fail with `status` (500: Telegram's JSON; 502-504: a proxy page). */
  failNext(times: number, status?: number): void;
  /** The next `times` requests get no answer until the server closes. */
  stallNext(times: number): void;
  setFloodLimits(limits: FakeTelegramFloodLimits | null): void;
  /** Queues a private message from the user of `chatId`; returns its update_id. */
  userSends(chatId: string | number, text: string, from?: FakeTelegramFrom): number;
  /** The user opens t.me/<bot>?start=<code> and presses Start. */
  userStarts(chatId: string | number, code: string, from?: FakeTelegramFrom): number;
  /** The user blocks the bot: sends fail with 403 and a `kicked` my_chat_member update queues. */
  userBlocks(chatId: string | number): number;
  userUnblocks(chatId: string | number): number;
  close(): Promise<void>;
}

const DEFAULT_TOKEN = '7000000001:AAH-fake-telegram-token_for_tests';
const BOT_ID = 7000000001;
const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;

/** Tags Telegram's HTML parse mode understands (docs/spec-notes.md, Telegram HTML). */
const SUPPORTED_TAGS = new Set([
  'a',
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'code',
  'pre',
  'blockquote',
  'tg-emoji',
]);
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/**
 * Telegram's HTML parse mode, strictly enough to refuse what Telegram refuses, with its error
 * texts. Returns the text a person reads, or the error after "can't parse entities: ".
 */
export function parseTelegramHtml(html: string): { text: string } | { error: string } {
  const byteOffset = (index: number) => Buffer.byteLength(html.slice(0, index));
  const stack: string[] = [];
  let text = '';
  let i = 0;
  while (i < html.length) {
    const ch = html[i]!;
    if (ch === '&') {
      const entity = /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/y;
      entity.lastIndex = i;
      const match = entity.exec(html);
      const name = match?.[1];
      let decoded: string | undefined;
      if (name?.startsWith('#')) {
        const hex = name[1] === 'x' || name[1] === 'X';
        const code = Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10);
        if (code > 0 && code <= 0x10ffff) decoded = String.fromCodePoint(code);
      } else if (name !== undefined) {
        decoded = NAMED_ENTITIES[name];
      }
      // Unknown entities are kept as written, as Telegram does.
      if (match && decoded !== undefined) {
        text += decoded;
        i += match[0].length;
      } else {
        text += '&';
        i += 1;
      }
      continue;
    }
    if (ch !== '<') {
      text += ch;
      i += 1;
      continue;
    }
    const start = i;
    if (html[i + 1] === '/') {
      const close = html.indexOf('>', i);
      if (close === -1) return { error: `Unclosed end tag at byte offset ${byteOffset(start)}` };
      const name = html
        .slice(i + 2, close)
        .trim()
        .toLowerCase();
      const open = stack.pop();
      if (open === undefined)
        return { error: `Unexpected end tag at byte offset ${byteOffset(start)}` };
      if (open !== name) {
        return {
          error: `Unmatched end tag at byte offset ${byteOffset(start)}, expected "</${open}>", found "</${name}>"`,
        };
      }
      i = close + 1;
      continue;
    }
    let j = i + 1;
    while (j < html.length && !/[\s>]/.test(html[j]!)) j++;
    const name = html.slice(i + 1, j).toLowerCase();
    if (!SUPPORTED_TAGS.has(name)) {
      return { error: `Unsupported start tag "${name}" at byte offset ${byteOffset(start)}` };
    }
    const attributes = new Map<string, string>();
    for (;;) {
      while (j < html.length && /\s/.test(html[j]!)) j++;
      if (j >= html.length)
        return { error: `Unclosed start tag at byte offset ${byteOffset(start)}` };
      if (html[j] === '>') break;
      const attr = /([^\s=>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>"']+))?/y;
      attr.lastIndex = j;
      const match = attr.exec(html);
      if (!match) return { error: `Unclosed start tag at byte offset ${byteOffset(start)}` };
      const value = match[2] ?? '';
      const unquoted = /^["']/.test(value) ? value.slice(1, -1) : value;
      const parsed = parseTelegramHtml(unquoted);
      attributes.set(match[1]!.toLowerCase(), 'text' in parsed ? parsed.text : unquoted);
      j = attr.lastIndex;
    }
    if (name === 'span' && attributes.get('class') !== 'tg-spoiler') {
      return {
        error: `Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(start)}`,
      };
    }
    stack.push(name);
    i = j + 1;
  }
  const open = stack.pop();
  if (open !== undefined)
    return { error: `Can't find end tag corresponding to start tag "${open}"` };
  return { text };
}

/** Characters as Telegram counts them (code points), after trimming like Telegram does. */
const visibleLength = (text: string) => [...text.trim()].length;

type Params = Record<string, unknown>;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly retryAfter?: number,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

/** Earliest instant at which `log` (sorted) has room for `count` more under `limit`. */
function floodFreeAt(log: number[], limit: number, windowMs: number, count: number): number {
  const keep = limit - Math.min(count, limit);
  if (log.length <= keep) return 0;
  return log[log.length - keep - 1]! + windowMs;
}

/** Counts `count` messages at `at`: those beyond the limit as sent when they would fit. */
function floodBook(log: number[], limit: number, windowMs: number, at: number, count: number) {
  for (let i = 0; i < count; i++) log.push(Math.max(at, floodFreeAt(log, limit, windowMs, 1)));
}

function floodPrune(log: number[], at: number, windowMs: number): void {
  let expired = 0;
  while (expired < log.length && log[expired]! <= at - windowMs) expired++;
  if (expired > 0) log.splice(0, expired);
}

interface Poller {
  offset: number;
  limit: number;
  res: http.ServerResponse;
  timer: NodeJS.Timeout;
  entry: FakeTelegramRequest;
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeTelegramServer(
  options: FakeTelegramServerOptions = {},
): Promise<FakeTelegramServer> {
  const token = options.token ?? DEFAULT_TOKEN;
  const botUsername = options.botUsername ?? 'perch_test_bot';
  const now = options.now ?? Date.now;
  const tolerance = options.floodToleranceMs ?? 200;
  let flood: FakeTelegramFloodLimits | null =
    options.floodLimits === undefined
      ? { perChatPerSecond: 1, globalPerSecond: 30, perGroupPerMinute: 20 }
      : options.floodLimits;
  /** Arrivals flood control counts, oldest first: overall, per chat, per group (a minute). */
  const floodLog = { all: [] as number[], chats: new Map<string, number[]>() };
  const groupLog = new Map<string, number[]>();
  const migrated = new Map<string, string>();
  const refusedPhotos = new Map<string, string>();
  let outage: FakeTelegramOutage | null = null;
  let rateLimited = 0;
  const messages: FakeTelegramMessage[] = [];
  const requests: FakeTelegramRequest[] = [];
  const chats = new Map<string, FakeTelegramChatState>();
  const failures: { status: number; times: number }[] = [];
  const rateLimits: { retryAfter: number; times: number }[] = [];
  let stalls = 0;
  const stalled = new Set<http.ServerResponse>();
  const updates: { update_id: number; [kind: string]: unknown }[] = [];
  let nextUpdateId = 100_000_001;
  let nextMessageId = 1;
  let webhook: string | null = null;
  let poller: Poller | null = null;

  function send(
    res: http.ServerResponse,
    entry: FakeTelegramRequest,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    entry.status = status;
    if (status === 429) rateLimited += 1;
    const envelope = body as { description?: string };
    entry.description = envelope.description ?? null;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  function sendError(res: http.ServerResponse, entry: FakeTelegramRequest, error: ApiError): void {
    const body: Record<string, unknown> = {
      ok: false,
      error_code: error.status,
      description: error.description,
    };
    const headers: Record<string, string> = {};
    if (error.parameters) body.parameters = error.parameters;
    if (error.retryAfter !== undefined) {
      body.parameters = { retry_after: error.retryAfter };
      headers['retry-after'] = String(error.retryAfter);
    }
    send(res, entry, error.status, body, headers);
  }

  const bot = { id: BOT_ID, is_bot: true, first_name: 'Perch', username: botUsername };

  function chatOf(params: Params): string {
    const raw = params.chat_id;
    const chatId = raw === undefined || raw === null ? '' : String(raw).trim();
    if (chatId === '') throw new ApiError(400, 'Bad Request: chat_id is empty');
    if (!/^-?[0-9]{1,16}$/.test(chatId)) throw new ApiError(400, 'Bad Request: chat not found');
    const movedTo = migrated.get(chatId);
    if (movedTo !== undefined) {
      throw new ApiError(400, TELEGRAM_GROUP_MIGRATED, undefined, {
        migrate_to_chat_id: Number(movedTo),
      });
    }
    switch (chats.get(chatId) ?? 'ok') {
      case 'not_found':
        throw new ApiError(400, 'Bad Request: chat not found');
      case 'blocked':
        throw new ApiError(403, 'Forbidden: bot was blocked by the user');
      case 'never_started':
        throw new ApiError(403, "Forbidden: bot can't initiate conversation with a user");
      case 'deactivated':
        throw new ApiError(403, 'Forbidden: user is deactivated');
      case 'kicked':
        throw new ApiError(403, 'Forbidden: bot was kicked from the group chat');
      default:
        return chatId;
    }
  }

  /** The text as read, after checking parse mode and length. */
  function readable(raw: unknown, parseMode: unknown, limit: number, caption: boolean): string {
    const value = typeof raw === 'string' ? raw : raw === undefined ? '' : String(raw);
    let text = value;
    if (parseMode === 'HTML') {
      const parsed = parseTelegramHtml(value);
      if ('error' in parsed) {
        throw new ApiError(400, `Bad Request: can't parse entities: ${parsed.error}`);
      }
      text = parsed.text;
    } else if (parseMode !== undefined && parseMode !== null && parseMode !== '') {
      if (parseMode !== 'MarkdownV2' && parseMode !== 'Markdown') {
        throw new ApiError(400, `Bad Request: unsupported parse_mode "${String(parseMode)}"`);
      }
    }
    if (!caption && visibleLength(text) === 0) {
      throw new ApiError(400, 'Bad Request: message text is empty');
    }
    if (visibleLength(text) > limit) {
      throw new ApiError(
        400,
        caption ? 'Bad Request: message caption is too long' : 'Bad Request: message is too long',
      );
    }
    return text;
  }

  function photoUrl(value: unknown): string {
    if (typeof value !== 'string' || !/^https?:\/\/[^\s]+$/.test(value)) {
      throw new ApiError(400, 'Bad Request: wrong HTTP URL specified');
    }
    const refused = refusedPhotos.get(value);
    if (refused !== undefined) throw new ApiError(400, refused);
    return value;
  }

  const isGroup = (chatId: string) => chatId.startsWith('-');
  const chatType = (chatId: string) =>
    chatId.startsWith('-100') ? 'supergroup' : isGroup(chatId) ? 'group' : 'private';
  const logOf = (logs: Map<string, number[]>, chatId: string) => {
    let log = logs.get(chatId);
    if (!log) {
      log = [];
      logs.set(chatId, log);
    }
    return log;
  };

  /**
   * Refuses a send of `count` messages (an album counts each photo) with a 429 when it would go
   * over the flood limits; otherwise counts it.
   */
  function checkFlood(chatId: string, count: number): void {
    if (!flood) return;
    const at = now();
    const second = 1000 - tolerance;
    const minute = 60_000 - tolerance;
    const perGroup = flood.perGroupPerMinute ?? 20;
    const chatLog = logOf(floodLog.chats, chatId);
    floodPrune(floodLog.all, at, second);
    floodPrune(chatLog, at, second);
    let freeAt = Math.max(
      floodFreeAt(chatLog, flood.perChatPerSecond, second, count),
      floodFreeAt(floodLog.all, flood.globalPerSecond, second, count),
    );
    const group = isGroup(chatId) ? logOf(groupLog, chatId) : null;
    if (group) {
      floodPrune(group, at, minute);
      freeAt = Math.max(freeAt, floodFreeAt(group, perGroup, minute, count));
    }
    if (freeAt > at) {
      const retryAfter = Math.max(1, Math.ceil((freeAt - at) / 1000));
      throw new ApiError(429, `Too Many Requests: retry after ${retryAfter}`, retryAfter);
    }
    floodBook(chatLog, flood.perChatPerSecond, second, at, count);
    floodBook(floodLog.all, flood.globalPerSecond, second, at, count);
    if (group) floodBook(group, perGroup, minute, at, count);
  }

  function accept(
    chatId: string,
    method: FakeTelegramMessage['method'],
    raw: unknown,
    parseMode: unknown,
    text: string,
    photoUrls: string[],
  ): FakeTelegramMessage {
    checkFlood(chatId, Math.max(1, photoUrls.length));
    const message: FakeTelegramMessage = {
      messageId: nextMessageId++,
      chatId,
      method,
      raw: typeof raw === 'string' ? raw : '',
      text,
      parseMode: typeof parseMode === 'string' ? parseMode : null,
      photoUrls,
      at: now(),
    };
    messages.push(message);
    return message;
  }

  const wireMessage = (message: FakeTelegramMessage, index = 0) => ({
    message_id: message.messageId + index,
    from: bot,
    chat: { id: Number(message.chatId), type: chatType(message.chatId) },
    date: Math.floor(message.at / 1000),
    ...(message.method === 'sendMessage'
      ? { text: message.text }
      : { photo: [{ file_id: `photo-${message.messageId}-${index}`, width: 1280, height: 720 }] }),
    ...(message.method !== 'sendMessage' && index === 0 && message.text !== ''
      ? { caption: message.text }
      : {}),
  });

  function sendMessage(params: Params): unknown {
    const chatId = chatOf(params);
    const text = readable(params.text, params.parse_mode, TEXT_LIMIT, false);
    return wireMessage(accept(chatId, 'sendMessage', params.text, params.parse_mode, text, []));
  }

  function sendPhoto(params: Params): unknown {
    const chatId = chatOf(params);
    const url = photoUrl(params.photo);
    const text = readable(params.caption, params.parse_mode, CAPTION_LIMIT, true);
    return wireMessage(accept(chatId, 'sendPhoto', params.caption, params.parse_mode, text, [url]));
  }

  function sendMediaGroup(params: Params): unknown {
    const chatId = chatOf(params);
    let media = params.media;
    if (typeof media === 'string') {
      try {
        media = JSON.parse(media);
      } catch {
        throw new ApiError(400, "Bad Request: can't parse media JSON object");
      }
    }
    if (!Array.isArray(media) || media.length < 2 || media.length > 10) {
      throw new ApiError(400, 'Bad Request: media group must contain 2-10 items');
    }
    const items = media as Params[];
    const urls = items.map((item) => {
      if (item.type !== 'photo') throw new ApiError(400, 'Bad Request: wrong media type');
      return photoUrl(item.media);
    });
    const first = items[0]!;
    let text = '';
    items.forEach((item, index) => {
      const read = readable(item.caption, item.parse_mode, CAPTION_LIMIT, true);
      if (index === 0) text = read;
    });
    const message = accept(chatId, 'sendMediaGroup', first.caption, first.parse_mode, text, urls);
    nextMessageId += urls.length - 1;
    return urls.map((_, index) => ({
      ...wireMessage(message, index),
      media_group_id: `g${message.messageId}`,
    }));
  }

  /** What a server that is down answers: a proxy's 502 page, or a reset connection. */
  function down(res: http.ServerResponse, entry: FakeTelegramRequest): void {
    if (outage === 'reset') {
      entry.status = 0;
      res.socket?.destroy();
      return;
    }
    entry.status = 502;
    entry.description = null;
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
  }

  function pending(offset: number, limit: number) {
    // An offset confirms (and forgets) every update before it, as Telegram does.
    while (updates.length > 0 && updates[0]!.update_id < offset) updates.shift();
    return updates.slice(0, limit);
  }

  function answerPoller(): void {
    if (!poller) return;
    const { res, offset, limit, timer, entry } = poller;
    const ready = pending(offset, limit);
    if (ready.length === 0) return;
    clearTimeout(timer);
    poller = null;
    send(res, entry, 200, { ok: true, result: ready });
  }

  function getUpdates(params: Params, res: http.ServerResponse, entry: FakeTelegramRequest): void {
    if (webhook !== null) {
      throw new ApiError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    }
    const offset = Number(params.offset ?? 0);
    const limit = Math.min(100, Math.max(1, Number(params.limit ?? 100)));
    const timeout = Math.min(50, Math.max(0, Number(params.timeout ?? 0)));
    if (poller) {
      const previous = poller;
      poller = null;
      clearTimeout(previous.timer);
      sendError(
        previous.res,
        previous.entry,
        new ApiError(
          409,
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
        ),
      );
    }
    const ready = pending(offset, limit);
    if (ready.length > 0 || timeout === 0) {
      send(res, entry, 200, { ok: true, result: ready });
      return;
    }
    const timer = setTimeout(() => {
      if (poller?.res !== res) return;
      poller = null;
      send(res, entry, 200, { ok: true, result: [] });
    }, timeout * 1000);
    poller = { offset, limit, res, timer, entry };
    res.on('close', () => {
      if (poller?.res !== res) return;
      clearTimeout(timer);
      poller = null;
    });
  }

  function queueUpdate(kind: string, payload: unknown): number {
    const updateId = nextUpdateId++;
    updates.push({ update_id: updateId, [kind]: payload });
    answerPoller();
    return updateId;
  }

  const person = (chatId: string | number, from: FakeTelegramFrom = {}) => ({
    id: Number(chatId),
    is_bot: false,
    first_name: from.firstName ?? 'Ann',
    ...(from.username ? { username: from.username } : {}),
  });

  function readParams(req: http.IncomingMessage, url: URL, raw: string): Params {
    const params: Params = Object.fromEntries(url.searchParams);
    if (raw === '') return params;
    const type = req.headers['content-type'] ?? '';
    if (type.includes('application/json')) {
      const body: unknown = JSON.parse(raw);
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new ApiError(400, 'Bad Request: invalid JSON object');
      }
      return { ...params, ...(body as Params) };
    }
    if (type.includes('application/x-www-form-urlencoded')) {
      return { ...params, ...Object.fromEntries(new URLSearchParams(raw)) };
    }
    throw new ApiError(400, 'Bad Request: unsupported content type');
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(url.pathname);
    const entry: FakeTelegramRequest = {
      method: route?.[2] ?? url.pathname,
      chatId: null,
      status: 0,
      description: null,
      at: now(),
    };
    requests.push(entry);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (outage !== null) {
      down(res, entry);
      return;
    }
    if (stalls > 0) {
      stalls -= 1;
      stalled.add(res);
      res.on('close', () => stalled.delete(res));
      return;
    }
    try {
      if (!route || !/^[0-9]+:[A-Za-z0-9_-]+$/.test(route[1]!)) {
        throw new ApiError(404, 'Not Found');
      }
      if (route[1] !== token) throw new ApiError(401, 'Unauthorized');
      const params = readParams(req, url, raw);
      if (params.chat_id !== undefined) entry.chatId = String(params.chat_id);
      const failure = takeScripted(failures);
      if (failure) {
        entry.status = failure.status;
        if (failure.status === 500) {
          throw new ApiError(500, 'Internal Server Error');
        }
        res.writeHead(failure.status, { 'content-type': 'text/html' });
        res.end(`<html><body><h1>${failure.status} Bad Gateway</h1></body></html>`);
        return;
      }
      const method = route[2]!.toLowerCase();
      const isSend =
        method === 'sendmessage' || method === 'sendphoto' || method === 'sendmediagroup';
      const limited = isSend ? takeScripted(rateLimits) : undefined;
      if (limited) {
        throw new ApiError(
          429,
          `Too Many Requests: retry after ${limited.retryAfter}`,
          limited.retryAfter,
        );
      }
      let result: unknown;
      switch (method) {
        case 'getme':
          result = bot;
          break;
        case 'sendmessage':
          result = sendMessage(params);
          break;
        case 'sendphoto':
          result = sendPhoto(params);
          break;
        case 'sendmediagroup':
          result = sendMediaGroup(params);
          break;
        case 'getupdates':
          getUpdates(params, res, entry);
          return;
        case 'setwebhook':
          webhook = typeof params.url === 'string' && params.url !== '' ? params.url : null;
          send(res, entry, 200, { ok: true, result: true, description: 'Webhook was set' });
          return;
        case 'deletewebhook':
          webhook = null;
          send(res, entry, 200, { ok: true, result: true, description: 'Webhook was deleted' });
          return;
        default:
          throw new ApiError(404, 'Not Found: method not found');
      }
      send(res, entry, 200, { ok: true, result });
    } catch (error) {
      if (error instanceof ApiError) sendError(res, entry, error);
      else if (error instanceof SyntaxError) {
        sendError(res, entry, new ApiError(400, "Bad Request: can't parse JSON object"));
      } else throw error;
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, error_code: 500, description: String(error) }));
    });
  });
  const baseUrl = await listenOnLoopback(server);

  const fake: FakeTelegramServer = {
    baseUrl,
    token,
    botUsername,
    messages,
    requests,
    messagesTo: (chatId) => messages.filter((m) => m.chatId === String(chatId)),
    setChat: (chatId, state) => {
      chats.set(String(chatId), state);
      if (state === 'ok') migrated.delete(String(chatId));
    },
    migrateChat: (chatId, newChatId) => {
      const old = String(chatId);
      const moved = newChatId === undefined ? `-100${old.replace(/^-/, '')}` : String(newChatId);
      migrated.set(old, moved);
      migrated.delete(moved);
      return moved;
    },
    refusePhotoUrl: (url, description = TELEGRAM_WRONG_PHOTO_URL) => {
      refusedPhotos.set(url, description);
    },
    setDown: (isDown, how = 'bad_gateway') => {
      outage = isDown ? how : null;
      if (isDown && poller) {
        const { res, timer, entry } = poller;
        poller = null;
        clearTimeout(timer);
        down(res, entry);
      }
    },
    get rateLimited() {
      return rateLimited;
    },
    rateLimitNext: (times, retryAfterSeconds = 3) => {
      rateLimits.push({ retryAfter: retryAfterSeconds, times });
    },
    failNext: (times, status = 500) => {
      failures.push({ status, times });
    },
    stallNext: (times) => {
      stalls += times;
    },
    setFloodLimits: (limits) => {
      flood = limits;
    },
    userSends: (chatId, text, from = {}) =>
      queueUpdate('message', {
        message_id: nextMessageId++,
        from: person(chatId, from),
        chat: { ...person(chatId, from), type: 'private' },
        date: Math.floor(now() / 1000),
        text,
        ...(text.startsWith('/')
          ? { entities: [{ offset: 0, length: text.split(' ')[0]!.length, type: 'bot_command' }] }
          : {}),
      }),
    userStarts: (chatId, code, from) => fake.userSends(chatId, `/start ${code}`, from),
    userBlocks: (chatId) => {
      chats.set(String(chatId), 'blocked');
      return queueUpdate('my_chat_member', memberUpdate(chatId, 'member', 'kicked'));
    },
    userUnblocks: (chatId) => {
      chats.set(String(chatId), 'ok');
      return queueUpdate('my_chat_member', memberUpdate(chatId, 'kicked', 'member'));
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (poller) clearTimeout(poller.timer);
        poller = null;
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };

  function memberUpdate(chatId: string | number, oldStatus: string, newStatus: string) {
    return {
      chat: { ...person(chatId), type: 'private' },
      from: person(chatId),
      date: Math.floor(now() / 1000),
      old_chat_member: { user: bot, status: oldStatus },
      new_chat_member: { user: bot, status: newStatus },
    };
  }

  return fake;
}
