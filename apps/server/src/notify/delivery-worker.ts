/**
 * The delivery worker: turns new tweets into outbox rows (fan-out) and sends every due row to
 * its channel, exactly once per (user, handle, tweet, channel) as far as the services allow.
 *
 * - Claims one due row at a time, atomically ('pending' -> 'sending' with a lease), and only for
 *   chats the rate gates would let through now; a chat is never sent two messages at once, so
 *   its notifications go out in order and one busy chat cannot hold every slot.
 * - Marks a row 'sent' as soon as its service accepted the last message, row by row, never in
 *   batches. The only window in which a message can be sent twice is between the service
 *   accepting it and that one UPDATE (a crash there, or a send that timed out after Telegram had
 *   delivered it): delivery is at-least-once, with that window kept as small as it can be.
 *   Messages of a multi-part notification are counted (`parts_sent`), so a retry sends only
 *   the rest.
 * - 429: back to pending after the service's `retry_after`, without using up an attempt.
 *   Transient failures: exponential backoff with jitter (2 s doubling, at most 10 min), 'failed'
 *   after `maxAttempts`. Permanent failures: that row 'failed', the user's channel stopped with
 *   the reason (shown on the Settings page) and the user's other pending rows of the channel
 *   cancelled: one failure, not a retry storm.
 * - Rows a crashed process left in 'sending' go back to pending at start; rows whose lease ran
 *   out (a hung worker) are swept back periodically.
 * - Wakes at once when told (`wake()`, e.g. after monitoring stored new tweets), otherwise ticks.
 *   `stop()` waits for the sends in flight (and aborts them only after a grace period).
 */
import { setMaxListeners } from 'node:events';
import type { Db } from '../db/index.js';
import type { NotificationChannel } from '../db/types.js';
import type { CollectorLogger } from '../collector/context.js';
import { stopChannel } from '../modules/settings/settings.repository.js';
import { noticeParts, sendPart, type NotifyChannels } from './channels.js';
import { toTweetNotice } from './notice.js';
import {
  cancelPendingDeliveries,
  claimNextDelivery,
  fanOutPending,
  loadDeliveryContext,
  markFinished,
  markPartSent,
  markRetry,
  markSent,
  releaseSendingDeliveries,
  type ClaimExclusions,
  type DeliveryContext,
  type OutboxRow,
} from './outbox.repository.js';
import { DeliveryError } from './types.js';

const CHANNELS: readonly NotificationChannel[] = ['telegram', 'discord'];

export interface DeliveryWorkerOptions {
  db: Db;
  channels: NotifyChannels;
  /**
   * Sends in flight at once per channel (NOTIFY_CONCURRENCY), so a slow service never holds the
   * other's slots. Default 8.
   */
  concurrency?: number;
  /** How often the worker looks for due work without being woken. Default 1000 ms. */
  tickMs?: number;
  /** Attempts of a transient failure before the row is 'failed'. Default 10. */
  maxAttempts?: number;
  /** Wait before attempt n + 1 after n transient failures. Default: 2 s doubling, cap 10 min. */
  retryDelayMs?: (failures: number) => number;
  /** How long a claimed row is reserved for its worker. Default 10 min. */
  leaseMs?: number;
  /** How long stop() lets sends in flight finish before aborting them. Default 10 s. */
  stopGraceMs?: number;
  log?: CollectorLogger;
  /** Clock (tests pin it). */
  now?: () => Date;
}

const silentLog: CollectorLogger = { info: () => {}, warn: () => {}, error: () => {} };
/** Tweets per fan-out transaction, and batches per round before sending resumes. */
const FANOUT_BATCH = 200;
const FANOUT_ROUNDS = 10;
const LEASE_SWEEP_MS = 60_000;
/** A rate-limited row waits at least this long, whatever the service said. */
const MIN_RATE_LIMIT_WAIT_MS = 250;

/** Exponential backoff: 2 s, 4 s, 8 s ... at most 10 minutes, each +-20 % at random. */
export function defaultRetryDelayMs(failures: number, random: () => number = Math.random): number {
  const base = Math.min(10 * 60_000, 2_000 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

interface InFlight {
  userId: number;
  channel: NotificationChannel;
  done: Promise<void>;
}

export class DeliveryWorker {
  private readonly db: Db;
  private readonly channels: NotifyChannels;
  private readonly concurrency: number;
  private readonly tickMs: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: (failures: number) => number;
  private readonly leaseMs: number;
  private readonly stopGraceMs: number;
  private readonly log: CollectorLogger;
  private readonly now: () => Date;
  private readonly abort = new AbortController();
  private readonly inFlight = new Map<number, InFlight>();
  /** The chat (or Discord user) each user was last sent to, to ask the gates about it. */
  private readonly targets: Record<NotificationChannel, Map<number, string>> = {
    telegram: new Map(),
    discord: new Map(),
  };
  private state: 'created' | 'running' | 'stopped' = 'created';
  private loop: Promise<void> | undefined;
  private woken = false;
  /** New tweets wait for their fan-out (we were told so). */
  private fanoutDue = true;
  private lastFanout = 0;
  private wakeUp: (() => void) | undefined;
  private lastLeaseSweep = 0;

  constructor(options: DeliveryWorkerOptions) {
    // Every send in flight (and every pacing wait) listens to this one signal.
    setMaxListeners(0, this.abort.signal);
    this.db = options.db;
    this.channels = options.channels;
    this.concurrency = Math.max(1, options.concurrency ?? 8);
    this.tickMs = options.tickMs ?? 1000;
    this.maxAttempts = options.maxAttempts ?? 10;
    this.retryDelayMs = options.retryDelayMs ?? ((failures) => defaultRetryDelayMs(failures));
    this.leaseMs = options.leaseMs ?? 10 * 60_000;
    this.stopGraceMs = options.stopGraceMs ?? 10_000;
    this.log = options.log ?? silentLog;
    this.now = options.now ?? (() => new Date());
  }

  /** Puts rows a previous process left in 'sending' back to pending, then starts working. */
  async start(): Promise<void> {
    if (this.state !== 'created') return;
    this.state = 'running';
    const released = await releaseSendingDeliveries(this.db, this.nowIso(), false);
    if (released > 0) this.log.warn({ released }, 'deliveries interrupted earlier are retried');
    this.lastLeaseSweep = Date.now();
    this.loop = this.run();
  }

  /** Looks for work now (new tweets were stored, a setting changed). */
  wake(): void {
    this.fanoutDue = true;
    this.poke();
  }

  /** Looks for sends to start now (a slot came free); no fan-out needed for that. */
  private poke(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops claiming, waits for the sends in flight (aborting them after the grace period). */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasRunning = this.state === 'running';
    this.state = 'stopped';
    if (!wasRunning) return;
    this.poke();
    await this.loop;
    const pending = [...this.inFlight.values()].map((entry) => entry.done);
    const timer = setTimeout(() => this.abort.abort(), this.stopGraceMs);
    await Promise.allSettled(pending);
    clearTimeout(timer);
  }

  /** Sends in flight right now (tests, metrics). */
  get busy(): number {
    return this.inFlight.size;
  }

  private nowIso(): string {
    return this.now().toISOString();
  }

  private async run(): Promise<void> {
    while (this.state === 'running') {
      this.woken = false;
      let waitMs = this.tickMs;
      try {
        await this.sweepLeases();
        // Every tick also looks for tweets another process stored.
        if (this.fanoutDue || Date.now() - this.lastFanout >= this.tickMs) {
          this.fanoutDue = false;
          this.lastFanout = Date.now();
          await this.fanOut();
        }
        waitMs = Math.min(waitMs, await this.fill());
      } catch (error) {
        this.log.error({ err: error }, 'delivery round failed');
      }
      if (this.state !== 'running') break;
      if (!this.woken) await this.sleep(waitMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      this.wakeUp = done;
    });
  }

  private async sweepLeases(): Promise<void> {
    if (Date.now() - this.lastLeaseSweep < LEASE_SWEEP_MS) return;
    this.lastLeaseSweep = Date.now();
    const released = await releaseSendingDeliveries(this.db, this.nowIso(), true);
    if (released > 0) this.log.warn({ released }, 'deliveries whose lease ran out are retried');
  }

  private async fanOut(): Promise<void> {
    const channels = CHANNELS.filter((channel) => this.channels[channel].available);
    for (let round = 0; round < FANOUT_ROUNDS; round++) {
      const result = await fanOutPending(this.db, {
        now: this.nowIso(),
        channels,
        limit: FANOUT_BATCH,
      });
      if (result.tweets < FANOUT_BATCH) return;
    }
  }

  /**
   * Claims and starts rows while slots are free. Returns how long until a chat held back by its
   * gate could go (Infinity when only a finishing send can free something up: it wakes us).
   */
  private async fill(): Promise<number> {
    while (this.state === 'running') {
      const { exclude, readyInMs } = this.exclusions();
      if (CHANNELS.every((channel) => exclude[channel] === 'all')) return readyInMs;
      const at = this.now();
      const row = await claimNextDelivery(this.db, {
        now: at.toISOString(),
        leaseUntil: new Date(at.getTime() + this.leaseMs).toISOString(),
        exclude,
      });
      if (!row) return readyInMs;
      this.begin(row);
    }
    return Infinity;
  }

  /**
   * Who cannot be sent to now: a channel without its token, with every slot busy or past its
   * overall rate; a user whose chat has a send in flight or is held back by its gate.
   */
  private exclusions(): { exclude: ClaimExclusions; readyInMs: number } {
    const exclude: ClaimExclusions = {};
    let readyInMs = Infinity;
    const at = Date.now();
    for (const channel of CHANNELS) {
      const users = new Set<number>();
      let inFlight = 0;
      for (const entry of this.inFlight.values()) {
        if (entry.channel !== channel) continue;
        users.add(entry.userId);
        inFlight += 1;
      }
      if (!this.channels[channel].available || inFlight >= this.concurrency) {
        exclude[channel] = 'all';
        continue;
      }
      const gate = channel === 'telegram' ? this.channels.telegramGate : this.channels.discordGate;
      const overall = gate ? gate.whenCanSend() - at : 0;
      if (overall > 0) {
        exclude[channel] = 'all';
        readyInMs = Math.min(readyInMs, overall);
        continue;
      }
      for (const [userId, target] of this.targets[channel]) {
        const wait = gate ? gate.whenCanSend(target) - at : 0;
        if (wait > 0) {
          users.add(userId);
          readyInMs = Math.min(readyInMs, wait);
        } else if (!users.has(userId)) {
          this.targets[channel].delete(userId);
        }
      }
      if (users.size > 0) exclude[channel] = [...users];
    }
    return { exclude, readyInMs };
  }

  private begin(row: OutboxRow): void {
    const done = this.deliver(row)
      .catch((error: unknown) =>
        this.log.error({ err: error, delivery: row.id }, 'delivery failed'),
      )
      .finally(() => {
        this.inFlight.delete(row.id);
        this.poke();
      });
    this.inFlight.set(row.id, { userId: row.user_id, channel: row.channel, done });
  }

  private async deliver(row: OutboxRow): Promise<void> {
    const context = await loadDeliveryContext(this.db, row);
    const skip = skipReason(context, row.channel);
    if (skip !== null || !context.tweet || !context.handle) {
      await markFinished(this.db, row.id, {
        status: 'cancelled',
        error: skip ?? 'The tweet is no longer stored',
      });
      return;
    }
    const target =
      row.channel === 'telegram'
        ? (context.settings?.telegram_chat_id ?? '')
        : (context.settings?.discord_user_id ?? '');
    this.targets[row.channel].set(row.user_id, target);
    const parts = noticeParts(row.channel, toTweetNotice(context.tweet, context.handle));
    let sent = row.parts_sent;
    try {
      while (sent < parts.length) {
        const part = parts[sent];
        if (!part) break;
        await sendPart(this.channels, target, part, this.abort.signal);
        sent += 1;
        if (sent < parts.length) await markPartSent(this.db, row.id, sent);
      }
      await markSent(this.db, row.id, this.nowIso(), row.attempts + 1);
    } catch (error) {
      await this.failed(row, target, error);
    }
  }

  private async failed(row: OutboxRow, target: string, error: unknown): Promise<void> {
    const now = this.now();
    if (this.abort.signal.aborted) {
      // Stopped mid-send: whether it arrived is unknown; it is retried (at-least-once).
      await markRetry(this.db, row.id, {
        nextAttemptAt: now.toISOString(),
        attempts: row.attempts,
        error: 'Interrupted by shutdown',
      });
      return;
    }
    const failure =
      error instanceof DeliveryError
        ? error
        : new DeliveryError('transient', error instanceof Error ? error.message : String(error));
    if (failure.kind === 'rate_limited') {
      const waitMs = Math.max(MIN_RATE_LIMIT_WAIT_MS, failure.retryAfterMs ?? 1000);
      await markRetry(this.db, row.id, {
        nextAttemptAt: new Date(now.getTime() + waitMs).toISOString(),
        attempts: row.attempts,
        error: failure.message,
      });
      return;
    }
    const attempts = row.attempts + 1;
    if (failure.kind === 'transient') {
      if (attempts >= this.maxAttempts) {
        this.log.warn({ delivery: row.id, err: failure }, 'delivery given up after retries');
        await markFinished(this.db, row.id, { status: 'failed', attempts, error: failure.message });
        return;
      }
      await markRetry(this.db, row.id, {
        nextAttemptAt: new Date(now.getTime() + this.retryDelayMs(attempts)).toISOString(),
        attempts,
        error: failure.message,
      });
      return;
    }
    const reason = failure.reason ?? failure.message;
    this.log.warn(
      { user: row.user_id, channel: row.channel, reason },
      'delivery stopped for this channel',
    );
    await markFinished(this.db, row.id, { status: 'failed', attempts, error: failure.message });
    await stopChannel(this.db.db, row.user_id, row.channel, target, reason, now.toISOString());
    await cancelPendingDeliveries(this.db, row.user_id, row.channel, `Stopped: ${reason}`);
  }
}

/** Why a claimed row must not be sent any more, or null when it should go. */
function skipReason(context: DeliveryContext, channel: NotificationChannel): string | null {
  const settings = context.settings;
  if (!settings || !settings.bot_running) return 'The bot is not running';
  const target = channel === 'telegram' ? settings.telegram_chat_id : settings.discord_user_id;
  if (!target) return `${channel === 'telegram' ? 'Telegram' : 'Discord'} is disconnected`;
  const stopped =
    channel === 'telegram' ? settings.telegram_stopped_reason : settings.discord_stopped_reason;
  if (stopped) return `Stopped: ${stopped}`;
  if (!context.link) return 'The handle is no longer followed';
  const enabled =
    channel === 'telegram' ? context.link.telegram_enabled : context.link.discord_enabled;
  if (!enabled) return 'Notifications were switched off for this handle';
  return null;
}
