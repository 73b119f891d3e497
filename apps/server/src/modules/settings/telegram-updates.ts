/**
 * The bot's side of Telegram (docs/spec-notes.md, Telegram): a getUpdates long-poll, run only when
 * TELEGRAM_BOT_TOKEN is set, in one process.
 *
 * - `/start <code>` (the one-click link): links that chat to the code's user, once, and answers
 *   'Connected! ...'. An unknown, used or expired code is answered with how to get a new one.
 * - `/start` alone (or `/id`): answers with the chat id, to be typed on the Settings page.
 * - The user blocks the bot (`my_chat_member` -> kicked): Telegram delivery stops for that chat
 *   with the reason shown on the Settings page; unblocking (-> member) resumes it.
 *
 * The offset of the last handled update is confirmed to Telegram by the next call, so after a
 * restart Telegram hands over only what was not confirmed; handling an update twice is harmless
 * (a used code from the same chat answers 'Connected!' again).
 *
 * Telegram hands updates to one consumer only:
 * - While a webhook is set, getUpdates is refused (409). The poller removes any webhook before
 *   its first poll, and again when a poll is refused for one (pending updates are kept).
 * - A second poll with the same token ends the first with a 409 "terminated by other getUpdates
 *   request": another process polls this bot. That is said once, as a warning the operator can
 *   act on, and this process backs off (doubling up to 5 minutes) instead of fighting over the
 *   updates. It warns again only after a quiet spell of 10 minutes.
 *
 * A poll that keeps failing (Telegram or the network down) is retried with a growing wait, and
 * logged as an episode, not per try: one warning when it starts (with the error), one every
 * `TELEGRAM_POLL_DOWN_REPORT_MS` while it lasts (how long, how many tries, the last error's
 * message), and one line when a poll works again.
 */
import { SETTINGS_MESSAGES } from '@perch/shared';
import { silentLog, type Logger } from '../../lib/logger.js';
import type { Cluster, ClusterLock } from '../../cluster/cluster.js';
import { sleep as realSleep } from '../../lib/sleep.js';
import { nowOf, type SettingsDeps } from './settings-state.js';
import {
  linkTelegramChat,
  telegramChatBlocked,
  telegramChatUnblocked,
} from './telegram-link.service.js';
import { escapeHtml } from '../../notify/format/telegram-html.js';
import { DeliveryError, type TelegramUpdate } from '../../notify/types.js';

export interface TelegramUpdatesOptions extends SettingsDeps {
  log?: Logger;
  /** Long-poll timeout of one getUpdates call (s). Default 25. */
  timeoutSeconds?: number;
  /** Wait after a failed call, doubling up to 30 s. Default 1000 ms. */
  retryBaseMs?: number;
  /** Wait after another process took over the updates (409), doubling up to 5 min. Default 5 s. */
  conflictRetryMs?: number;
  /**
   * Scale-out: only the node holding this lock polls (one poller per bot token); the others try
   * to take it over every `lockRetryMs`, which they do once its holder stops renewing it.
   */
  lock?: { cluster: Cluster; name: string; ttlMs?: number; retryMs?: number };
  /**
   * Waits between tries; rejects once `signal` is aborted. Tests pass one that moves their clock
   * (`now`, which the poller reads too) instead of waiting.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const MAX_RETRY_MS = 30_000;
const MAX_CONFLICT_RETRY_MS = 5 * 60_000;
/** A conflict after this long without one is a new episode: it is warned about again. */
const CONFLICT_QUIET_MS = 10 * 60_000;
/** While polls keep failing, a line this often says for how long and after how many tries. */
export const TELEGRAM_POLL_DOWN_REPORT_MS = 10 * 60_000;

export const TELEGRAM_POLL_FAILED = 'telegram polling failed: retrying with a growing wait';
export const TELEGRAM_POLL_STILL_FAILING = 'telegram polling still fails';
export const TELEGRAM_POLL_RECOVERED = 'telegram polling works again';

export const TELEGRAM_POLL_CONFLICT_WARNING =
  'another process is polling this bot token (TELEGRAM_BOT_TOKEN): only one process per token may set TELEGRAM_POLL_UPDATES=true; this one backs off';
export const TELEGRAM_WEBHOOK_WARNING =
  'a webhook was set for this bot token (TELEGRAM_BOT_TOKEN): it is removed so that getUpdates can poll';

const isPollConflict = (error: unknown) =>
  error instanceof DeliveryError && /terminated by other getUpdates/i.test(error.message);
const isWebhookActive = (error: unknown) =>
  error instanceof DeliveryError && /webhook is active/i.test(error.message);

/** Polls failing in a row: since when, how many, and when that was last said. */
interface PollOutage {
  since: number;
  tries: number;
  reportedAt: number;
}

/** `/start`, `/start@my_bot`, with an optional payload. */
const START = /^\/start(?:@\w+)?(?:\s+(\S+))?\s*$/i;
const CHAT_ID = /^\/(?:id|chatid)(?:@\w+)?\s*$/i;

export class TelegramUpdatesPoller {
  private readonly options: TelegramUpdatesOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private offset = 0;
  /** False until deleteWebhook succeeded (and again after a poll refused for a webhook). */
  private webhookCleared = false;
  /** Conflicts (409 from another poller) in the current episode, and when the last one was. */
  private conflicts = 0;
  private lastConflictAt = -Infinity;
  private lastWebhookWarningAt = -Infinity;
  /** The lock this node polls under (scale-out). */
  private held: ClusterLock | null = null;
  /** Set while polls fail in a row. */
  private outage: PollOutage | null = null;

  constructor(options: TelegramUpdatesOptions) {
    this.options = options;
    this.log = options.log ?? silentLog;
    this.now = () => nowOf(options).getTime();
    this.sleep = options.sleep ?? realSleep;
  }

  /** Starts polling (does nothing without a bot token). */
  start(): void {
    if (this.loop || !this.options.channels.telegram.available) return;
    this.loop = this.run();
  }

  /** Ends the long-poll in flight and waits for the loop to finish. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.held?.release();
  }

  /** Whether this node may poll now: always in one process; with the lock in scale-out. */
  private async mayPoll(signal: AbortSignal): Promise<boolean> {
    const lock = this.options.lock;
    if (!lock || this.held?.held) return true;
    try {
      this.held = await lock.cluster.tryLock(lock.name, lock.ttlMs ?? 30_000);
    } catch (error) {
      this.log.warn({ err: error }, 'could not ask for the Telegram updates lock');
    }
    if (this.held) {
      this.log.info({ node: lock.cluster.nodeId }, 'this process polls the Telegram updates');
      return true;
    }
    await this.sleep(lock.retryMs ?? 15_000, signal).catch(() => undefined);
    return false;
  }

  private async run(): Promise<void> {
    const { signal } = this.abort;
    const { telegram } = this.options.channels;
    const timeout = this.options.timeoutSeconds ?? 25;
    const base = this.options.retryBaseMs ?? 1000;
    let failures = 0;
    while (!signal.aborted) {
      if (!(await this.mayPoll(signal))) continue;
      let step = 'deleteWebhook';
      try {
        if (!this.webhookCleared) {
          await telegram.deleteWebhook(signal);
          this.webhookCleared = true;
        }
        step = 'getUpdates';
        const updates = await telegram.getUpdates(this.offset, timeout, signal);
        failures = 0;
        this.pollRecovered();
        for (const update of updates) {
          if (signal.aborted) return;
          await this.handle(update);
          this.offset = Math.max(this.offset, update.updateId + 1);
        }
      } catch (error) {
        if (signal.aborted) return;
        let wait: number;
        if (isPollConflict(error)) {
          wait = this.conflictWait();
        } else {
          failures += 1;
          wait =
            error instanceof DeliveryError && error.kind === 'rate_limited'
              ? (error.retryAfterMs ?? base)
              : Math.min(MAX_RETRY_MS, base * 2 ** (failures - 1));
          if (isWebhookActive(error)) {
            this.webhookCleared = false;
            this.webhookWarning(wait);
          } else {
            this.pollFailed(error, step, wait);
          }
        }
        await this.sleep(wait, signal).catch(() => undefined);
      }
    }
  }

  /**
   * A failed try: the first of an outage is logged with its error, then a line every
   * TELEGRAM_POLL_DOWN_REPORT_MS with how long it lasts and how many tries failed.
   */
  private pollFailed(error: unknown, step: string, retryInMs: number): void {
    const at = this.now();
    if (!this.outage) {
      this.outage = { since: at, tries: 1, reportedAt: at };
      this.log.warn({ err: error, step, retryInMs }, TELEGRAM_POLL_FAILED);
      return;
    }
    this.outage.tries += 1;
    if (at - this.outage.reportedAt < TELEGRAM_POLL_DOWN_REPORT_MS) return;
    this.outage.reportedAt = at;
    this.log.warn(
      {
        step,
        downForMs: at - this.outage.since,
        downFor: minutes(at - this.outage.since),
        tries: this.outage.tries,
        error: error instanceof Error ? error.message : String(error),
        retryInMs,
      },
      TELEGRAM_POLL_STILL_FAILING,
    );
  }

  /** A poll worked: the end of an outage, if there was one, is said once. */
  private pollRecovered(): void {
    if (!this.outage) return;
    const downForMs = this.now() - this.outage.since;
    this.log.info(
      { downForMs, downFor: minutes(downForMs), tries: this.outage.tries },
      TELEGRAM_POLL_RECOVERED,
    );
    this.outage = null;
  }

  /** How long to stay away after another poller took the updates; warns once per episode. */
  private conflictWait(): number {
    const at = this.now();
    if (at - this.lastConflictAt > CONFLICT_QUIET_MS) this.conflicts = 0;
    this.lastConflictAt = at;
    this.conflicts += 1;
    const base = this.options.conflictRetryMs ?? 5_000;
    const wait = Math.min(MAX_CONFLICT_RETRY_MS, base * 2 ** (this.conflicts - 1));
    if (this.conflicts === 1) this.log.warn({ retryInMs: wait }, TELEGRAM_POLL_CONFLICT_WARNING);
    return wait;
  }

  /** Someone set a webhook: said once per quiet spell, even if it is set again and again. */
  private webhookWarning(retryInMs: number): void {
    const at = this.now();
    if (at - this.lastWebhookWarningAt > CONFLICT_QUIET_MS) {
      this.log.warn({ retryInMs }, TELEGRAM_WEBHOOK_WARNING);
    }
    this.lastWebhookWarningAt = at;
  }

  /** One update; its own failures are logged, never stop the loop. */
  private async handle(update: TelegramUpdate): Promise<void> {
    try {
      if (update.chatMember) {
        const { chatId, status } = update.chatMember;
        if (status === 'kicked') await telegramChatBlocked(this.options, chatId);
        else if (status === 'member') await telegramChatUnblocked(this.options, chatId);
        return;
      }
      const message = update.message;
      if (!message) return;
      const text = message.text.trim();
      const start = START.exec(text);
      if (start) {
        const code = start[1];
        if (!code) {
          await this.reply(message.chatId, SETTINGS_MESSAGES.telegramChatIdReply(message.chatId));
          return;
        }
        const outcome = await linkTelegramChat(this.options, code, message.chatId);
        await this.reply(
          message.chatId,
          outcome.status === 'invalid'
            ? SETTINGS_MESSAGES.telegramLinkInvalid
            : SETTINGS_MESSAGES.telegramLinkConnected(message.chatId),
        );
        if (outcome.status === 'linked') {
          this.log.info({ user: outcome.userId }, 'telegram chat linked');
        }
        return;
      }
      if (CHAT_ID.test(text)) {
        await this.reply(message.chatId, SETTINGS_MESSAGES.telegramChatIdReply(message.chatId));
      }
    } catch (error) {
      this.log.error({ err: error, update: update.updateId }, 'telegram update not handled');
    }
  }

  private async reply(chatId: string, text: string): Promise<void> {
    try {
      await this.options.channels.telegram.sendMessage(chatId, escapeHtml(text), this.abort.signal);
    } catch (error) {
      this.log.warn({ err: error }, 'telegram reply not sent');
    }
  }
}

/** A duration for a person: '25 min', or '40 s' under a minute. */
function minutes(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}
