/**
 * The delivery worker: turns new tweets into outbox rows (fan-out) and sends every due row to
 * its channel, exactly once per (user, handle, tweet, channel).
 *
 * - Claims are made in the database: a chat is locked for one send at a time whichever process
 *   sends (delivery_chat_locks), each chat gets its notices oldest first, and a claimed row
 *   belongs to its worker (`claimed_by`): only that worker can mark it, and a starting worker
 *   leaves other live workers' claims alone. Leases are short and renewed while sending, so a
 *   crashed worker's rows and chats are free again within a lease.
 * - A row is marked 'sent' as soon as its service accepted the last message, row by row. Discord
 *   messages carry a nonce (`enforce_nonce`), so a resend after a crash between Discord's accept
 *   and our mark is not a duplicate. Parts of a multi-part notice are counted (`parts_sent`).
 * - Message-level refusals (a photo URL, a caption, Discord 50035) get a fallback: the same
 *   notice as plain text with the link. Only chat-level refusals (chat not found, bot blocked or
 *   kicked, DMs closed, bad token) stop the user's channel, with the reason on Settings. A group
 *   that became a supergroup is followed to its new chat id.
 * - Outages: transient failures (5xx, network, time-outs) open the channel's circuit. While it
 *   is open nothing is dropped and nothing is claimed for that channel except one probe every
 *   `probeEveryMs` (60 s); when a probe gets through, the circuit closes and the backlog is due
 *   at once, oldest first, paced by the rate gates. Rows expire only by age
 *   (NOTIFY_MAX_AGE_HOURS), as 'expired' in the delivery log.
 * - After downtime, more than `digestAfter` (NOTIFY_DIGEST_AFTER) notices of one handle waiting
 *   for one chat go as one digest message listing them with their links.
 * - 429: back to pending after the service's `retry_after`.
 * - Wakes at once when told (`wake()`, e.g. after monitoring stored new tweets), otherwise ticks.
 *   `stop()` waits for the sends in flight (and aborts them only after a grace period), then
 *   gives back what it still holds.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import type { Db } from '../db/index.js';
import type { NotificationChannel } from '../db/types.js';
import type { Logger } from '../lib/logger.js';
import { moveTelegramChat, stopChannel } from './channel-state.repository.js';
import { noticeParts, sendPart, sendPlain, type NotifyChannels } from './channels.js';
import { digestMessage, fallbackMessage } from './format/fallback-format.js';
import { toTweetNotice } from './notice.js';
import {
  cancelPendingDeliveries,
  claimNextDelivery,
  expireDeliveries,
  fanOutPending,
  loadDeliveryContext,
  markFinished,
  markPartSent,
  markRetry,
  markSent,
  releaseExpiredClaims,
  releaseOwnClaims,
  renewClaims,
  resumeChannel,
  unlockChat,
  type ClaimExclusions,
  type DeliveryContext,
  type OutboxRow,
} from './outbox.repository.js';
import { DeliveryError, type TweetNotice } from './types.js';

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
  /** Wait before attempt n + 1 after n transient failures. Default: 2 s doubling, cap 60 s. */
  retryDelayMs?: (failures: number) => number;
  /** How long a claim (row and chat) is held without renewal. Default 60 s, renewed each third. */
  leaseMs?: number;
  /** How long stop() lets sends in flight finish before aborting them. Default 10 s. */
  stopGraceMs?: number;
  /** Transient failures in a row that open a channel's circuit. Default 3. */
  circuitAfter?: number;
  /** While a channel's circuit is open, one probe this often. Default 60 s. */
  probeEveryMs?: number;
  /** Rows older than this are given up as 'expired' (NOTIFY_MAX_AGE_HOURS). Default 24 h. */
  maxAgeMs?: number;
  /** More waiting notices of one handle for one chat than this go as a digest. Default 5. */
  digestAfter?: number;
  /** This worker's name in the database (claims); default host, pid and a random part. */
  workerId?: string;
  log?: Logger;
  /** Clock (tests pin it). */
  now?: () => Date;
}

const silentLog: Logger = { info: () => {}, warn: () => {}, error: () => {} };
/**
 * Tweets per fan-out transaction, and batches per round before sending resumes. Small
 * transactions (a tweet of 100 followers on 2 channels is 200 rows) keep each one short, so
 * sends in flight are recorded between them and the process never stalls on a big one.
 */
const FANOUT_BATCH = 25;
const FANOUT_ROUNDS = 80;
/** A Discord DM channel takes 5 messages per 5 s: one a second, on average, across processes. */
const DISCORD_CHAT_SPACING_MS = 1_000;
/** A rate-limited row waits at least this long, whatever the service said. */
const MIN_RATE_LIMIT_WAIT_MS = 250;
/** How often claims of crashed workers (lease run out) are looked for. */
const RELEASE_SWEEP_MS = 5_000;
/** How often rows past their age are expired. */
const EXPIRE_SWEEP_MS = 30_000;
/** How long stop() lets sends in flight finish before aborting them, by default. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

/** The delivery log's reason for an expired row (NOTIFY_MAX_AGE_HOURS). */
export function expiredReason(maxAgeMs: number): string {
  const hours = maxAgeMs / 3_600_000;
  const age =
    hours >= 1
      ? `${Number(hours.toFixed(1))} hour${hours === 1 ? '' : 's'}`
      : `${Math.round(maxAgeMs / 1000)} s`;
  return `Given up: not delivered within ${age}.`;
}

/** The delivery log's note on a digest's rows. */
export const digestNote = (count: number) => `Sent in one digest of ${count} posts.`;

/** The delivery log's note on a notice that went as plain text. */
export const plainTextNote = (reason: string) => `Sent as plain text: ${reason}`;

/** Exponential backoff: 2 s, 4 s, 8 s ... at most 60 s (the probe period), each +-20 %. */
export function defaultRetryDelayMs(failures: number, random: () => number = Math.random): number {
  const base = Math.min(60_000, 2_000 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

interface InFlight {
  userId: number;
  channel: NotificationChannel;
  done: Promise<void>;
}

/** A channel's health: closed (sending), or open (down: one probe every probeEveryMs). */
interface Circuit {
  failures: number;
  open: boolean;
  /** When the next probe may go (open circuit). */
  probeAt: number;
  /** A probe is in flight. */
  probing: boolean;
}

/** What one claim sends, and how its outcome is recorded. */
interface Job {
  rows: OutboxRow[];
  digest: boolean;
  /** The claim is this channel's probe while its circuit is open. */
  probe: boolean;
}

export class DeliveryWorker {
  private readonly db: Db;
  private readonly channels: NotifyChannels;
  private readonly concurrency: number;
  private readonly tickMs: number;
  private readonly retryDelayMs: (failures: number) => number;
  private readonly leaseMs: number;
  private readonly stopGraceMs: number;
  private readonly circuitAfter: number;
  private readonly probeEveryMs: number;
  private readonly maxAgeMs: number;
  private readonly digestAfter: number;
  private readonly log: Logger;
  private readonly now: () => Date;
  readonly workerId: string;
  private readonly abort = new AbortController();
  private readonly inFlight = new Map<number, InFlight>();
  private readonly circuits: Record<NotificationChannel, Circuit> = {
    telegram: { failures: 0, open: false, probeAt: 0, probing: false },
    discord: { failures: 0, open: false, probeAt: 0, probing: false },
  };
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
  private lastRenewal = 0;
  private lastExpiry = 0;
  private lastRelease = 0;

  constructor(options: DeliveryWorkerOptions) {
    // Every send in flight (and every pacing wait) listens to this one signal.
    setMaxListeners(0, this.abort.signal);
    this.db = options.db;
    this.channels = options.channels;
    this.concurrency = Math.max(1, options.concurrency ?? 8);
    this.tickMs = options.tickMs ?? 1000;
    this.retryDelayMs = options.retryDelayMs ?? ((failures) => defaultRetryDelayMs(failures));
    this.leaseMs = options.leaseMs ?? 60_000;
    this.stopGraceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    this.circuitAfter = Math.max(1, options.circuitAfter ?? 3);
    this.probeEveryMs = options.probeEveryMs ?? 60_000;
    this.maxAgeMs = options.maxAgeMs ?? 24 * 3_600_000;
    this.digestAfter = options.digestAfter ?? 5;
    this.workerId =
      options.workerId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.log = options.log ?? silentLog;
    this.now = options.now ?? (() => new Date());
  }

  /** Frees what crashed workers left (leases that ran out), then starts working. */
  async start(): Promise<void> {
    if (this.state !== 'created') return;
    this.state = 'running';
    const released = await releaseExpiredClaims(this.db, this.nowIso());
    if (released > 0) this.log.warn({ released }, 'deliveries interrupted earlier are retried');
    this.lastRenewal = Date.now();
    this.lastRelease = Date.now();
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
    try {
      await releaseOwnClaims(this.db, this.workerId, this.nowIso());
    } catch (error) {
      this.log.warn({ err: error }, 'could not give back claimed deliveries');
    }
  }

  /** Sends in flight right now (tests, metrics). */
  get busy(): number {
    return this.inFlight.size;
  }

  /** Whether a channel is taken as down (its circuit is open). */
  isDown(channel: NotificationChannel): boolean {
    return this.circuits[channel].open;
  }

  private nowIso(): string {
    return this.now().toISOString();
  }

  private async run(): Promise<void> {
    while (this.state === 'running') {
      this.woken = false;
      let waitMs = this.tickMs;
      try {
        await this.housekeeping();
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

  /** Renews this worker's leases, frees crashed workers' claims, expires rows past their age. */
  private async housekeeping(): Promise<void> {
    const at = Date.now();
    if (at - this.lastRenewal >= this.leaseMs / 3) {
      this.lastRenewal = at;
      const leaseUntil = new Date(this.now().getTime() + this.leaseMs).toISOString();
      await renewClaims(this.db, this.workerId, leaseUntil);
    }
    if (at - this.lastRelease >= Math.min(RELEASE_SWEEP_MS, this.leaseMs / 3)) {
      this.lastRelease = at;
      const released = await releaseExpiredClaims(this.db, this.nowIso());
      if (released > 0) this.log.warn({ released }, 'deliveries whose lease ran out are retried');
    }
    if (at - this.lastExpiry >= Math.min(EXPIRE_SWEEP_MS, this.maxAgeMs)) {
      this.lastExpiry = at;
      const cutoff = new Date(this.now().getTime() - this.maxAgeMs).toISOString();
      const expired = await expireDeliveries(this.db, cutoff, expiredReason(this.maxAgeMs));
      if (expired > 0) this.log.warn({ expired }, 'deliveries expired undelivered');
    }
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
      // Let the sends in flight be recorded between two transactions.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Claims and starts rows while slots are free. Returns how long until a chat held back by its
   * gate (or a channel's probe) could go (Infinity when only a finishing send can free something
   * up: it wakes us).
   */
  private async fill(): Promise<number> {
    while (this.state === 'running') {
      const { exclude, readyInMs, probing } = this.exclusions();
      if (CHANNELS.every((channel) => exclude[channel] === 'all')) return readyInMs;
      const at = this.now();
      const claim = await claimNextDelivery(this.db, {
        now: at.toISOString(),
        leaseUntil: new Date(at.getTime() + this.leaseMs).toISOString(),
        owner: this.workerId,
        exclude,
        digestAfter: this.digestAfter,
      });
      if (!claim) return readyInMs;
      const head = claim.rows[0];
      if (!head) return readyInMs;
      const probe = probing.includes(head.channel);
      if (probe) this.circuits[head.channel].probing = true;
      this.begin({ rows: claim.rows, digest: claim.digest, probe });
    }
    return Infinity;
  }

  /**
   * Who cannot be sent to now: a channel without its token, with every slot busy, past its
   * overall rate or down (its circuit open, except for one probe when due); a user whose chat
   * has a send in flight or is held back by its gate.
   */
  private exclusions(): {
    exclude: ClaimExclusions;
    readyInMs: number;
    probing: NotificationChannel[];
  } {
    const exclude: ClaimExclusions = {};
    const probing: NotificationChannel[] = [];
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
      const circuit = this.circuits[channel];
      if (circuit.open) {
        if (circuit.probing || at < circuit.probeAt) {
          exclude[channel] = 'all';
          if (!circuit.probing) readyInMs = Math.min(readyInMs, circuit.probeAt - at);
          continue;
        }
        probing.push(channel);
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
    return { exclude, readyInMs, probing };
  }

  private begin(job: Job): void {
    const head = job.rows[0]!;
    const done = this.deliver(job)
      .catch((error: unknown) =>
        this.log.error({ err: error, delivery: head.id }, 'delivery failed'),
      )
      .finally(async () => {
        this.inFlight.delete(head.id);
        if (job.probe) this.circuits[head.channel].probing = false;
        await unlockChat(
          this.db,
          head.channel,
          head.user_id,
          this.workerId,
          this.chatSpacingUntil(head.channel, head.user_id),
        ).catch((error: unknown) => this.log.warn({ err: error }, 'could not unlock a chat'));
        this.poke();
      });
    this.inFlight.set(head.id, { userId: head.user_id, channel: head.channel, done });
  }

  /**
   * Until when the chat must rest after a send, for every process (Telegram: its gate's next
   * slot for the chat, 1 a second and 20 a minute in groups; Discord: 1 s, its DM channels' 5
   * per 5 s on average). Undefined when it need not.
   */
  private chatSpacingUntil(channel: NotificationChannel, userId: number): string | undefined {
    const target = this.targets[channel].get(userId);
    if (!target) return undefined;
    const gate = channel === 'telegram' ? this.channels.telegramGate : undefined;
    const at = gate ? gate.whenCanSend(target) : Date.now() + DISCORD_CHAT_SPACING_MS;
    return at > Date.now() ? new Date(at).toISOString() : undefined;
  }

  private async deliver(job: Job): Promise<void> {
    const head = job.rows[0]!;
    const ids = job.rows.map((row) => row.id);
    const contexts = await Promise.all(job.rows.map((row) => loadDeliveryContext(this.db, row)));
    const context = contexts[0]!;
    const skip = skipReason(context, head.channel);
    if (skip !== null) {
      await markFinished(this.db, ids, this.workerId, { status: 'cancelled', error: skip });
      return;
    }
    // Rows whose tweet is gone are dropped from the job; the rest still go.
    const notices: { row: OutboxRow; notice: TweetNotice }[] = [];
    const gone: number[] = [];
    job.rows.forEach((row, index) => {
      const own = contexts[index]!;
      if (own.tweet && own.handle)
        notices.push({ row, notice: toTweetNotice(own.tweet, own.handle) });
      else gone.push(row.id);
    });
    if (gone.length > 0) {
      await markFinished(this.db, gone, this.workerId, {
        status: 'cancelled',
        error: 'The tweet is no longer stored',
      });
    }
    if (notices.length === 0) return;
    let target =
      head.channel === 'telegram'
        ? (context.settings?.telegram_chat_id ?? '')
        : (context.settings?.discord_user_id ?? '');
    this.targets[head.channel].set(head.user_id, target);
    const rows = notices.map((entry) => entry.row);
    const sentIds = rows.map((row) => row.id);
    const attempts = Math.max(...rows.map((row) => row.attempts)) + 1;
    // A moved Telegram group is followed once per send; a second move is an error like others.
    for (let moves = 0; ; moves++) {
      try {
        let note: string | null = null;
        if (job.digest && notices.length > 1) {
          await sendPlain(
            this.channels,
            target,
            digestMessage(
              head.channel,
              notices.map((entry) => entry.notice),
            ),
            this.abort.signal,
            `d${head.id}`,
          );
          note = digestNote(notices.length);
        } else {
          note = await this.sendNotice(notices[0]!.row, notices[0]!.notice, target);
        }
        await markSent(this.db, sentIds, this.workerId, { now: this.nowIso(), attempts, note });
        this.succeeded(head.channel);
        return;
      } catch (error) {
        if (
          error instanceof DeliveryError &&
          error.kind === 'moved' &&
          error.movedTo &&
          moves === 0
        ) {
          const moved = await moveTelegramChat(this.db.db, target, error.movedTo, this.nowIso());
          this.log.info(
            { from: target, to: error.movedTo, users: moved },
            'Telegram group became a supergroup: following its new chat id',
          );
          target = error.movedTo;
          this.targets[head.channel].set(head.user_id, target);
          continue;
        }
        await this.failed(rows, target, error, job);
        return;
      }
    }
  }

  /**
   * Sends one notice's parts from where a previous attempt stopped. A part the service refuses
   * for itself (message-level) is replaced by the plain-text fallback of the whole notice; the
   * note for the log says so.
   */
  private async sendNotice(
    row: OutboxRow,
    notice: TweetNotice,
    target: string,
  ): Promise<string | null> {
    const parts = noticeParts(row.channel, notice);
    let sent = row.parts_sent;
    while (sent < parts.length) {
      const part = parts[sent];
      if (!part) break;
      try {
        await sendPart(this.channels, target, part, this.abort.signal, `n${row.id}.${sent}`);
      } catch (error) {
        if (!(error instanceof DeliveryError) || error.kind !== 'message') throw error;
        this.log.warn(
          { delivery: row.id, err: error },
          'message refused: sending the notice as plain text',
        );
        try {
          await sendPlain(
            this.channels,
            target,
            fallbackMessage(row.channel, notice),
            this.abort.signal,
            `f${row.id}`,
          );
        } catch (fallbackError) {
          // The plain text was refused as well: this notice cannot be sent; the chat is fine.
          if (fallbackError instanceof DeliveryError && fallbackError.kind === 'message') {
            throw new DeliveryError(
              'message',
              `${error.message}; fallback: ${fallbackError.message}`,
            );
          }
          throw fallbackError;
        }
        return plainTextNote(error.message);
      }
      sent += 1;
      if (sent < parts.length) await markPartSent(this.db, row.id, this.workerId, sent);
    }
    return null;
  }

  /** A send got through: the channel works (closing its circuit, with the backlog due now). */
  private succeeded(channel: NotificationChannel): void {
    const circuit = this.circuits[channel];
    circuit.failures = 0;
    if (!circuit.open) return;
    circuit.open = false;
    circuit.probing = false;
    this.log.info({ channel }, 'channel is back: sending what waited');
    void resumeChannel(this.db, channel, this.nowIso())
      .then(() => this.poke())
      .catch((error: unknown) => this.log.warn({ err: error }, 'could not resume a channel'));
  }

  /** A transient failure: the channel may be down (its circuit opens after a few in a row). */
  private troubled(channel: NotificationChannel, probe: boolean, error: DeliveryError): void {
    const circuit = this.circuits[channel];
    circuit.failures += 1;
    if (!probe && !circuit.open && circuit.failures < this.circuitAfter) return;
    if (!circuit.open) {
      this.log.warn({ channel, err: error }, 'channel is down: holding its notifications');
    }
    circuit.open = true;
    circuit.probeAt = Date.now() + this.probeEveryMs;
  }

  private async failed(rows: OutboxRow[], target: string, error: unknown, job: Job): Promise<void> {
    const head = rows[0]!;
    const ids = rows.map((row) => row.id);
    const now = this.now();
    const attempts = Math.max(...rows.map((row) => row.attempts));
    if (this.abort.signal.aborted) {
      // Stopped mid-send: whether it arrived is unknown; it is retried (the nonce covers Discord).
      await markRetry(this.db, ids, this.workerId, {
        nextAttemptAt: now.toISOString(),
        attempts,
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
      await markRetry(this.db, ids, this.workerId, {
        nextAttemptAt: new Date(now.getTime() + waitMs).toISOString(),
        attempts,
        error: failure.message,
      });
      return;
    }
    if (failure.kind === 'transient' || failure.kind === 'moved') {
      this.troubled(head.channel, job.probe, failure);
      const delay = Math.min(this.retryDelayMs(attempts + 1), this.probeEveryMs);
      await markRetry(this.db, ids, this.workerId, {
        nextAttemptAt: new Date(now.getTime() + delay).toISOString(),
        attempts: attempts + 1,
        error: failure.message,
      });
      return;
    }
    // The service answered: the channel is up, whatever it thought of this message.
    this.succeeded(head.channel);
    if (failure.kind === 'message') {
      this.log.warn({ delivery: head.id, err: failure }, 'notification refused by the service');
      await markFinished(this.db, ids, this.workerId, {
        status: 'failed',
        attempts: attempts + 1,
        error: failure.message,
      });
      return;
    }
    const reason = failure.reason ?? failure.message;
    this.log.warn(
      { user: head.user_id, channel: head.channel, reason },
      'delivery stopped for this channel',
    );
    await markFinished(this.db, ids, this.workerId, {
      status: 'failed',
      attempts: attempts + 1,
      error: failure.message,
    });
    await stopChannel(this.db.db, head.user_id, head.channel, target, reason, now.toISOString());
    await cancelPendingDeliveries(this.db, head.user_id, head.channel, `Stopped: ${reason}`);
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
