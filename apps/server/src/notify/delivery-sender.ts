/**
 * Sends one claim and records how it went (delivery-worker.ts tells the whole story): loads
 * what the rows need, sends a digest or the notice (as plain text when a message of it is
 * refused, to the chat's new id when a Telegram group moved), then marks the rows as the
 * outcome rules say (delivery-outcome.ts) and tells the channel's circuit.
 */
import type { Db } from '../db/index.js';
import type { NotificationChannel } from '../db/types.js';
import type { Logger } from '../lib/logger.js';
import { moveTelegramChat, stopChannel } from './channel-state.repository.js';
import { noticeParts, sendPart, sendPlain, type NotifyChannels } from './channels.js';
import type { DeliveryCircuit } from './delivery-circuit.js';
import {
  deliveryOutcome,
  skipReason,
  type DeliveryOutcome,
  type SendResult,
  type SendStage,
} from './delivery-outcome.js';
import type { DeliverySlots } from './delivery-slots.js';
import { digestMessage, fallbackMessage } from './format/fallback-format.js';
import { toTweetNotice } from './notice.js';
import {
  cancelPendingDeliveries,
  loadDeliveryContext,
  markFinished,
  markPartSent,
  markRetry,
  markSent,
  resumeChannel,
  type OutboxRow,
} from './outbox.repository.js';
import type { DeliveryError, TweetNotice } from './types.js';

/** What one claim sends, and how its outcome is recorded. */
export interface DeliveryJob {
  rows: OutboxRow[];
  digest: boolean;
  /** The claim is this channel's probe while its circuit is open. */
  probe: boolean;
}

/** A row of the job whose tweet is still stored, as its notification shows it. */
interface PendingNotice {
  row: OutboxRow;
  notice: TweetNotice;
}

/** A send that did not get through, once nothing more is tried at once. */
type FailedOutcome = Exclude<DeliveryOutcome, { kind: 'sent' | 'plain_text' | 'follow_move' }>;

/** How a send settled: accepted, or what it threw. */
async function settle(stage: SendStage, sending: () => Promise<unknown>): Promise<SendResult> {
  try {
    await sending();
    return { stage, ok: true };
  } catch (error) {
    return { stage, ok: false, error };
  }
}

export interface DeliverySenderOptions {
  db: Db;
  channels: NotifyChannels;
  /** Where each user was last sent to (the gates are asked about it). */
  slots: DeliverySlots;
  circuits: Record<NotificationChannel, DeliveryCircuit>;
  /** The worker's name in the database: only it may mark the rows it claimed. */
  workerId: string;
  /** Aborts the sends in flight (the worker stops). */
  signal: AbortSignal;
  retryDelayMs: (failures: number) => number;
  probeEveryMs: number;
  log: Logger;
  now: () => Date;
  /** A channel is back and its backlog due: the worker looks for work. */
  onChannelBack: () => void;
}

export class DeliverySender {
  private readonly db: Db;
  private readonly channels: NotifyChannels;
  private readonly slots: DeliverySlots;
  private readonly circuits: Record<NotificationChannel, DeliveryCircuit>;
  private readonly workerId: string;
  private readonly signal: AbortSignal;
  private readonly retryDelayMs: (failures: number) => number;
  private readonly probeEveryMs: number;
  private readonly log: Logger;
  private readonly now: () => Date;
  private readonly onChannelBack: () => void;

  constructor(options: DeliverySenderOptions) {
    this.db = options.db;
    this.channels = options.channels;
    this.slots = options.slots;
    this.circuits = options.circuits;
    this.workerId = options.workerId;
    this.signal = options.signal;
    this.retryDelayMs = options.retryDelayMs;
    this.probeEveryMs = options.probeEveryMs;
    this.log = options.log;
    this.now = options.now;
    this.onChannelBack = options.onChannelBack;
  }

  private nowIso(): string {
    return this.now().toISOString();
  }

  /**
   * Sends a claim and records how it went: a digest of its notices, or its one notice (as plain
   * text when a message of it is refused), to the chat's new id when a Telegram group moved.
   */
  async deliver(job: DeliveryJob): Promise<void> {
    const head = job.rows[0]!;
    const ready = await this.pendingNotices(job);
    if (!ready) return;
    const { notices } = ready;
    let target = ready.target;
    this.slots.setTarget(head.channel, head.user_id, target);
    const rows = notices.map((entry) => entry.row);
    const attempts = Math.max(...rows.map((row) => row.attempts));
    const digest = job.digest && notices.length > 1;
    let result = await this.sendJob(head, notices, target, digest);
    // A moved Telegram group is followed once per send; a second move is an error like others.
    let movedAlready = false;
    for (;;) {
      const outcome = this.outcomeOf(result, movedAlready, attempts);
      if (outcome.kind === 'plain_text') {
        result = await this.sendPlainText(notices[0]!, target, outcome.refusal);
      } else if (outcome.kind === 'follow_move') {
        target = await this.followMove(head, target, outcome.movedTo);
        movedAlready = true;
        result = await this.sendJob(head, notices, target, digest);
      } else if (outcome.kind === 'sent') {
        const unrecorded = await this.recordSent(rows, outcome, result.stage);
        if (!unrecorded) return;
        result = unrecorded;
      } else {
        await this.recordFailure(rows, target, outcome, job.probe);
        return;
      }
    }
  }

  /** What the send's result means, with what this worker knows now. */
  private outcomeOf(result: SendResult, movedAlready: boolean, attempts: number) {
    return deliveryOutcome(result, {
      stopping: this.signal.aborted,
      movedAlready,
      attempts,
      now: this.now().getTime(),
      retryDelayMs: this.retryDelayMs,
      probeEveryMs: this.probeEveryMs,
    });
  }

  /**
   * Marks the rows sent and tells the circuit the channel works. Recording is part of the send:
   * when it fails, that failure is returned to be handled as the send's (the rows are retried).
   */
  private async recordSent(
    rows: OutboxRow[],
    outcome: Extract<DeliveryOutcome, { kind: 'sent' }>,
    stage: SendStage,
  ): Promise<SendResult | undefined> {
    const ids = rows.map((row) => row.id);
    const recorded = await settle(stage, () =>
      markSent(this.db.db, ids, this.workerId, {
        now: this.nowIso(),
        attempts: outcome.attempts,
        note: outcome.note,
      }),
    );
    if (!recorded.ok) return recorded;
    this.succeeded(rows[0]!.channel);
    return undefined;
  }

  /**
   * The job's notices, once it is known they are still wanted: rows no longer wanted are
   * cancelled (skipReason), and so are rows whose tweet is gone; the rest still go. Undefined
   * when nothing is left to send.
   */
  private async pendingNotices(
    job: DeliveryJob,
  ): Promise<{ notices: PendingNotice[]; target: string } | undefined> {
    const head = job.rows[0]!;
    const contexts = await Promise.all(job.rows.map((row) => loadDeliveryContext(this.db.db, row)));
    const context = contexts[0]!;
    const skip = skipReason(context, head.channel);
    if (skip !== null) {
      const ids = job.rows.map((row) => row.id);
      await markFinished(this.db.db, ids, this.workerId, { status: 'cancelled', error: skip });
      return undefined;
    }
    const notices: PendingNotice[] = [];
    const gone: number[] = [];
    job.rows.forEach((row, index) => {
      const own = contexts[index]!;
      if (own.tweet && own.handle)
        notices.push({ row, notice: toTweetNotice(own.tweet, own.handle) });
      else gone.push(row.id);
    });
    if (gone.length > 0) {
      await markFinished(this.db.db, gone, this.workerId, {
        status: 'cancelled',
        error: 'The tweet is no longer stored',
      });
    }
    if (notices.length === 0) return undefined;
    const target =
      head.channel === 'telegram'
        ? (context.settings?.telegram_chat_id ?? '')
        : (context.settings?.discord_user_id ?? '');
    return { notices, target };
  }

  /** Sends the notices as one digest, or the first notice as itself. */
  private sendJob(
    head: OutboxRow,
    notices: PendingNotice[],
    target: string,
    digest: boolean,
  ): Promise<SendResult> {
    if (!digest) return this.sendNotice(notices[0]!, target);
    const message = digestMessage(
      head.channel,
      notices.map((entry) => entry.notice),
    );
    return settle({ step: 'digest', count: notices.length }, () =>
      sendPlain(this.channels, target, message, this.signal, `d${head.id}`),
    );
  }

  /** Sends one notice's parts from where a previous attempt stopped, counting each one sent. */
  private sendNotice({ row, notice }: PendingNotice, target: string): Promise<SendResult> {
    return settle({ step: 'notice' }, async () => {
      const parts = noticeParts(row.channel, notice);
      for (let sent = row.parts_sent; sent < parts.length; sent++) {
        await sendPart(this.channels, target, parts[sent]!, this.signal, `n${row.id}.${sent}`);
        if (sent + 1 < parts.length)
          await markPartSent(this.db.db, row.id, this.workerId, sent + 1);
      }
    });
  }

  /** A message of the notice was refused for itself: the whole notice goes as plain text. */
  private sendPlainText(
    { row, notice }: PendingNotice,
    target: string,
    refusal: DeliveryError,
  ): Promise<SendResult> {
    this.log.warn(
      { delivery: row.id, err: refusal },
      'message refused: sending the notice as plain text',
    );
    const message = fallbackMessage(row.channel, notice);
    return settle({ step: 'plain_text', refusal: refusal.message }, () =>
      sendPlain(this.channels, target, message, this.signal, `f${row.id}`),
    );
  }

  /** A Telegram group became a supergroup: its users follow it to `movedTo`. */
  private async followMove(head: OutboxRow, target: string, movedTo: string): Promise<string> {
    const moved = await moveTelegramChat(this.db.db, target, movedTo, this.nowIso());
    this.log.info(
      { from: target, to: movedTo, users: moved },
      'Telegram group became a supergroup: following its new chat id',
    );
    this.slots.setTarget(head.channel, head.user_id, movedTo);
    return movedTo;
  }

  /** A send got through: the channel works (closing its circuit, with the backlog due now). */
  private succeeded(channel: NotificationChannel): void {
    if (!this.circuits[channel].recordSuccess()) return;
    this.log.info({ channel }, 'channel is back: sending what waited');
    void resumeChannel(this.db.db, channel, this.nowIso())
      .then(() => this.onChannelBack())
      .catch((error: unknown) => this.log.warn({ err: error }, 'could not resume a channel'));
  }

  /** A transient failure: the channel may be down (its circuit opens after a few in a row). */
  private troubled(channel: NotificationChannel, probe: boolean, error?: DeliveryError): void {
    if (this.circuits[channel].recordFailure(probe)) {
      this.log.warn({ channel, err: error }, 'channel is down: holding its notifications');
    }
  }

  /** Records a send that did not get through: retried later, refused, or the channel stopped. */
  private async recordFailure(
    rows: OutboxRow[],
    target: string,
    outcome: FailedOutcome,
    probe: boolean,
  ): Promise<void> {
    const head = rows[0]!;
    const ids = rows.map((row) => row.id);
    if (outcome.kind === 'retry') {
      if (outcome.channel === 'troubled') this.troubled(head.channel, probe, outcome.failure);
      await markRetry(this.db.db, ids, this.workerId, {
        nextAttemptAt: new Date(outcome.at).toISOString(),
        attempts: outcome.attempts,
        error: outcome.error,
      });
      return;
    }
    // The service answered: the channel is up, whatever it thought of this message.
    this.succeeded(head.channel);
    const failed = { status: 'failed', attempts: outcome.attempts, error: outcome.error } as const;
    if (outcome.kind === 'refused') {
      this.log.warn(
        { delivery: head.id, err: outcome.failure },
        'notification refused by the service',
      );
      await markFinished(this.db.db, ids, this.workerId, failed);
      return;
    }
    const { reason } = outcome;
    this.log.warn(
      { user: head.user_id, channel: head.channel, reason },
      'delivery stopped for this channel',
    );
    await markFinished(this.db.db, ids, this.workerId, failed);
    await stopChannel(this.db.db, head.user_id, head.channel, target, reason, this.nowIso());
    await cancelPendingDeliveries(this.db.db, head.user_id, head.channel, `Stopped: ${reason}`);
  }
}
