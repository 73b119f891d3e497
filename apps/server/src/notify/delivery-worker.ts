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
import type { NotificationChannel, OutboxChannel } from '../db/types.js';
import type { Logger } from '../lib/logger.js';
import type { NotifyChannels } from './channels.js';
import { unlockChat } from './delivery-chats.repository.js';
import { DeliveryCircuit, DeliveryCircuits } from './delivery-circuit.js';
import { defaultRetryDelayMs } from './delivery-outcome.js';
import { DeliverySender, type DeliveryJob } from './delivery-sender.js';
import { CHANNELS, DeliverySlots } from './delivery-slots.js';
import {
  claimNextDelivery,
  releaseExpiredClaims,
  releaseOwnClaims,
  renewClaims,
} from './outbox-claims.repository.js';
import { fanOutPending } from './outbox-fan-out.repository.js';
import { expireDeliveries } from './outbox.repository.js';

/** What the alert rules are told about delivery when they run. */
export interface AlertPassContext extends DeliveredChannels {
  now: Date;
}

/** Where this server delivers: what fan-out and the alert rules queue deliveries for. */
export interface DeliveredChannels {
  /** The messaging channels this server delivers on (available now). */
  channels: readonly NotificationChannel[];
  /** Webhooks are delivered by this server. */
  webhooks: boolean;
}

/** Where `channels` deliver now. */
export function deliveredChannels(channels: NotifyChannels): DeliveredChannels {
  return {
    channels: CHANNELS.filter((channel) => channels[channel].available),
    webhooks: channels.webhook !== undefined,
  };
}

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
  /**
   * Runs the alert rules after each fan-out (alerts/evaluation.ts runAlertPass, given here by
   * the process that starts the worker); their deliveries are queued like the fan-out's.
   */
  evaluateAlerts?: (context: AlertPassContext) => Promise<void>;
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

export class DeliveryWorker {
  private readonly db: Db;
  private readonly channels: NotifyChannels;
  private readonly tickMs: number;
  private readonly retryDelayMs: (failures: number) => number;
  private readonly leaseMs: number;
  private readonly stopGraceMs: number;
  private readonly probeEveryMs: number;
  private readonly maxAgeMs: number;
  private readonly digestAfter: number;
  private readonly log: Logger;
  private readonly now: () => Date;
  readonly workerId: string;
  private readonly abort = new AbortController();
  private readonly circuits: DeliveryCircuits;
  /** Sends in flight and the chats they went to: what cannot be claimed now. */
  private readonly slots: DeliverySlots;
  /** Sends each claim and records its outcome. */
  private readonly sender: DeliverySender;
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
  private readonly evaluateAlertsHook: ((context: AlertPassContext) => Promise<void>) | undefined;

  constructor(options: DeliveryWorkerOptions) {
    // Every send in flight (and every pacing wait) listens to this one signal.
    setMaxListeners(0, this.abort.signal);
    this.db = options.db;
    this.channels = options.channels;
    this.tickMs = options.tickMs ?? 1000;
    this.retryDelayMs = options.retryDelayMs ?? ((failures) => defaultRetryDelayMs(failures));
    this.leaseMs = options.leaseMs ?? 60_000;
    this.stopGraceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    this.probeEveryMs = options.probeEveryMs ?? 60_000;
    this.maxAgeMs = options.maxAgeMs ?? 24 * 3_600_000;
    this.digestAfter = options.digestAfter ?? 5;
    this.evaluateAlertsHook = options.evaluateAlerts;
    this.workerId =
      options.workerId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.log = options.log ?? silentLog;
    this.now = options.now ?? (() => new Date());
    const circuit = () =>
      new DeliveryCircuit({
        openAfter: options.circuitAfter ?? 3,
        probeEveryMs: this.probeEveryMs,
      });
    this.circuits = new DeliveryCircuits(circuit);
    const concurrency = Math.max(1, options.concurrency ?? 8);
    this.slots = new DeliverySlots(this.channels, this.circuits, concurrency);
    this.sender = new DeliverySender({
      db: this.db,
      channels: this.channels,
      slots: this.slots,
      circuits: this.circuits,
      workerId: this.workerId,
      signal: this.abort.signal,
      retryDelayMs: this.retryDelayMs,
      probeEveryMs: this.probeEveryMs,
      log: this.log,
      now: this.now,
      onChannelBack: () => this.poke(),
    });
  }

  /** Frees what crashed workers left (leases that ran out), then starts working. */
  async start(): Promise<void> {
    if (this.state !== 'created') return;
    this.state = 'running';
    const released = await releaseExpiredClaims(this.db.db, this.nowIso());
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
    const pending = [...this.slots.inFlight.values()].map((entry) => entry.done);
    const timer = setTimeout(() => this.abort.abort(), this.stopGraceMs);
    await Promise.allSettled(pending);
    clearTimeout(timer);
    try {
      await releaseOwnClaims(this.db.db, this.workerId, this.nowIso());
    } catch (error) {
      this.log.warn({ err: error }, 'could not give back claimed deliveries');
    }
  }

  /** Sends in flight right now (tests, metrics). */
  get busy(): number {
    return this.slots.inFlight.size;
  }

  /** Whether a channel is taken as down (its circuit is open). */
  isDown(channel: OutboxChannel): boolean {
    return this.circuits.of(channel).isDown;
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
          await this.evaluateAlerts();
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
      await renewClaims(this.db.db, this.workerId, leaseUntil);
    }
    if (at - this.lastRelease >= Math.min(RELEASE_SWEEP_MS, this.leaseMs / 3)) {
      this.lastRelease = at;
      const released = await releaseExpiredClaims(this.db.db, this.nowIso());
      if (released > 0) this.log.warn({ released }, 'deliveries whose lease ran out are retried');
    }
    if (at - this.lastExpiry >= Math.min(EXPIRE_SWEEP_MS, this.maxAgeMs)) {
      this.lastExpiry = at;
      const cutoff = new Date(this.now().getTime() - this.maxAgeMs).toISOString();
      const expired = await expireDeliveries(this.db.db, cutoff, expiredReason(this.maxAgeMs));
      if (expired > 0) this.log.warn({ expired }, 'deliveries expired undelivered');
    }
  }

  private async fanOut(): Promise<void> {
    const { channels, webhooks } = deliveredChannels(this.channels);
    for (let round = 0; round < FANOUT_ROUNDS; round++) {
      const result = await fanOutPending(this.db, {
        now: this.nowIso(),
        channels,
        webhooks,
        limit: FANOUT_BATCH,
      });
      if (result.tweets < FANOUT_BATCH) return;
      // Let the sends in flight be recorded between two transactions.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Runs the alert rules, if this worker was given them, on what the channels deliver now. */
  private async evaluateAlerts(): Promise<void> {
    await this.evaluateAlertsHook?.({ now: this.now(), ...deliveredChannels(this.channels) });
  }

  /**
   * Claims and starts rows while slots are free. Returns how long until a chat held back by its
   * gate (or a channel's probe) could go (Infinity when only a finishing send can free something
   * up: it wakes us).
   */
  private async fill(): Promise<number> {
    while (this.state === 'running') {
      const { exclude, readyInMs, probing } = this.slots.exclusions();
      const allHeld =
        CHANNELS.every((channel) => exclude[channel] === 'all') && exclude.webhook === 'all';
      if (allHeld) return readyInMs;
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
      if (probe) this.circuits.of(head.channel).probeStarted();
      this.begin({ rows: claim.rows, digest: claim.digest, probe });
    }
    return Infinity;
  }

  private begin(job: DeliveryJob): void {
    const head = job.rows[0]!;
    const done = this.sender
      .deliver(job)
      .catch((error: unknown) =>
        this.log.error({ err: error, delivery: head.id }, 'delivery failed'),
      )
      .finally(async () => {
        this.slots.inFlight.delete(head.id);
        if (job.probe) this.circuits.of(head.channel).probeEnded();
        await unlockChat(
          this.db.db,
          head.channel,
          head.user_id,
          this.workerId,
          this.slots.chatSpacingUntil(head.channel, head.user_id),
        ).catch((error: unknown) => this.log.warn({ err: error }, 'could not unlock a chat'));
        this.poke();
      });
    this.slots.inFlight.set(head.id, { userId: head.user_id, channel: head.channel, done });
  }
}
