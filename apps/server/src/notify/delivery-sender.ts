/**
 * Sends one claim and records how it went (delivery-worker.ts tells the whole story): loads
 * what the rows need, sends a digest or the notice (as plain text when a message of it is
 * refused, to the chat's new id when a Telegram group moved), then marks the rows as the
 * outcome rules say (delivery-outcome.ts) and tells the channel's circuit.
 */
import type { Db } from '../db/index.js';
import type { NotificationChannel, OutboxChannel } from '../db/types.js';
import type { Logger } from '../lib/logger.js';
import { TokenCipherError } from '../lib/token-cipher.js';
import { moveTelegramChat, stopChannel } from './channel-state.repository.js';
import { noticeParts, sendPart, sendPlain, type NotifyChannels } from './channels.js';
import type { DeliveryCircuits } from './delivery-circuit.js';
import { isWebhookChannel } from './webhook/webhook-channel.js';
import {
  deliveryOutcome,
  skipReason,
  type DeliveryOutcome,
  type SendResult,
  type SendStage,
} from './delivery-outcome.js';
import type { DeliverySlots } from './delivery-slots.js';
import { alertMessage, storedFiring, type AlertNotice } from './format/alert-format.js';
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
  stopWebhook,
  type DeliveryContext,
  type OutboxRow,
} from './outbox.repository.js';
import { DeliveryError, type TweetNotice } from './types.js';
import { webhookPayload, type WebhookEvent } from './webhook/webhook-payloads.js';
import { WEBHOOK_SECRET_UNREADABLE } from './webhook/secret.js';
import type { WebhookTarget } from './webhook/webhook-sender.js';

/** What one claim sends, and how its outcome is recorded. */
export interface DeliveryJob {
  rows: OutboxRow[];
  digest: boolean;
  /** The claim is this channel's probe while its circuit is open. */
  probe: boolean;
}

/**
 * A row of the job that still goes: a post (its tweet still stored) as its notification shows
 * it, or an alert with its post, if any.
 */
interface PendingNotice {
  row: OutboxRow;
  /** The post's notice: the new post, or the post an alert fired on (null for handle alerts). */
  notice: TweetNotice | null;
  alert: AlertNotice | null;
}

/** What a job is sent to: a chat or Discord user id, or a webhook endpoint. */
/** A chat or Discord user id, or a webhook endpoint (`unreadable`: its secret does not open). */
type DeliveryTarget = string | (WebhookTarget & { preset: string; unreadable?: boolean });

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
  circuits: DeliveryCircuits;
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
  private readonly circuits: DeliveryCircuits;
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
    if (typeof target === 'string') this.slots.setTarget(head.channel, head.user_id, target);
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
  ): Promise<{ notices: PendingNotice[]; target: DeliveryTarget } | undefined> {
    const head = job.rows[0]!;
    const contexts = await Promise.all(job.rows.map((row) => loadDeliveryContext(this.db.db, row)));
    const context = contexts[0]!;
    const skip = skipReason(context, head.channel, head.alert_firing_id !== null);
    if (skip !== null) {
      const ids = job.rows.map((row) => row.id);
      await markFinished(this.db.db, ids, this.workerId, { status: 'cancelled', error: skip });
      return undefined;
    }
    const notices: PendingNotice[] = [];
    const gone: number[] = [];
    job.rows.forEach((row, index) => {
      const pending = pendingNotice(row, contexts[index]!);
      if (pending) notices.push(pending);
      else gone.push(row.id);
    });
    if (gone.length > 0) {
      await markFinished(this.db.db, gone, this.workerId, {
        status: 'cancelled',
        error: 'The tweet is no longer stored',
      });
    }
    if (notices.length === 0) return undefined;
    return { notices, target: this.targetOf(head, context) };
  }

  /** The chat, Discord user or webhook endpoint (with its opened secret) the job goes to. */
  private targetOf(head: OutboxRow, context: DeliveryContext): DeliveryTarget {
    if (isWebhookChannel(head.channel)) {
      const endpoint = context.endpoint!;
      try {
        return {
          url: endpoint.url,
          preset: endpoint.preset,
          secret: this.channels.webhook?.openSecret(endpoint.secret_sealed, endpoint.id) ?? '',
        };
      } catch (error) {
        if (!(error instanceof TokenCipherError)) throw error;
        return { url: endpoint.url, preset: endpoint.preset, secret: '', unreadable: true };
      }
    }
    return head.channel === 'telegram'
      ? (context.settings?.telegram_chat_id ?? '')
      : (context.settings?.discord_user_id ?? '');
  }

  /** Sends the notices as one digest, or the first notice as itself. */
  private sendJob(
    head: OutboxRow,
    notices: PendingNotice[],
    target: DeliveryTarget,
    digest: boolean,
  ): Promise<SendResult> {
    if (!digest || typeof target !== 'string' || isWebhookChannel(head.channel)) {
      return this.sendNotice(notices[0]!, target);
    }
    const message = digestMessage(
      head.channel,
      notices.flatMap((entry) => (entry.notice ? [entry.notice] : [])),
    );
    return settle({ step: 'digest', count: notices.length }, () =>
      sendPlain(this.channels, target, message, this.signal, `d${head.id}`),
    );
  }

  /**
   * Sends one notice: a webhook request; an alert's message; or a post's parts from where a
   * previous attempt stopped, counting each one sent.
   */
  private sendNotice(pending: PendingNotice, target: DeliveryTarget): Promise<SendResult> {
    const { row, notice, alert } = pending;
    return settle({ step: 'notice' }, async () => {
      if (typeof target !== 'string') {
        await this.sendWebhook(row, pending, target);
        return;
      }
      const channel = row.channel as NotificationChannel;
      if (alert) {
        await sendPlain(
          this.channels,
          target,
          alertMessage(channel, alert),
          this.signal,
          `a${row.id}`,
        );
        return;
      }
      const parts = noticeParts(channel, notice!);
      for (let sent = row.parts_sent; sent < parts.length; sent++) {
        await sendPart(this.channels, target, parts[sent]!, this.signal, `n${row.id}.${sent}`);
        if (sent + 1 < parts.length)
          await markPartSent(this.db.db, row.id, this.workerId, sent + 1);
      }
    });
  }

  /** One signed request to a webhook endpoint, in its preset's format. */
  private async sendWebhook(
    row: OutboxRow,
    { notice, alert }: PendingNotice,
    target: Exclude<DeliveryTarget, string>,
  ): Promise<void> {
    const webhook = this.channels.webhook;
    if (!webhook) throw new DeliveryError('transient', 'Webhooks are not delivered by this server');
    // Never signed with a secret that does not open for this endpoint: it stops, and says why.
    if (target.unreadable) {
      throw new DeliveryError(
        'permanent',
        WEBHOOK_SECRET_UNREADABLE,
        undefined,
        WEBHOOK_SECRET_UNREADABLE,
      );
    }
    const event: WebhookEvent = alert
      ? {
          type: 'alert',
          handle: alert.handle,
          notice: alert.post,
          alert: {
            rule: alert.ruleName,
            summary: alert.summary,
            firedAt: alert.firedAt,
            numbers: alert.numbers,
          },
        }
      : { type: 'post', notice: notice! };
    const preset =
      target.preset === 'slack' || target.preset === 'discord' ? target.preset : 'generic';
    await webhook.client.deliver(target, webhookPayload(preset, event, this.now()), {
      signal: this.signal,
      deliveryId: String(row.id),
    });
  }

  /** A message of the notice was refused for itself: the whole notice goes as plain text. */
  private sendPlainText(
    { row, notice }: PendingNotice,
    target: DeliveryTarget,
    refusal: DeliveryError,
  ): Promise<SendResult> {
    // Only a post's notice has a plainer form (an alert's message is plain text already).
    if (typeof target !== 'string' || !notice || isWebhookChannel(row.channel)) {
      return Promise.resolve({
        stage: { step: 'plain_text', refusal: refusal.message },
        ok: false,
        error: refusal,
      });
    }
    this.log.warn(
      { delivery: row.id, err: refusal },
      'message refused: sending the notice as plain text',
    );
    const message = fallbackMessage(row.channel as NotificationChannel, notice);
    return settle({ step: 'plain_text', refusal: refusal.message }, () =>
      sendPlain(this.channels, target, message, this.signal, `f${row.id}`),
    );
  }

  /** A Telegram group became a supergroup: its users follow it to `movedTo`. */
  private async followMove(
    head: OutboxRow,
    target: DeliveryTarget,
    movedTo: string,
  ): Promise<string> {
    // Only a Telegram chat moves (a group became a supergroup): its target is the chat id.
    const from = typeof target === 'string' ? target : '';
    const moved = await moveTelegramChat(this.db.db, from, movedTo, this.nowIso());
    this.log.info(
      { from, to: movedTo, users: moved },
      'Telegram group became a supergroup: following its new chat id',
    );
    this.slots.setTarget(head.channel, head.user_id, movedTo);
    return movedTo;
  }

  /** A send got through: the channel works (closing its circuit, with the backlog due now). */
  private succeeded(channel: OutboxChannel): void {
    if (!this.circuits.of(channel).recordSuccess()) return;
    this.log.info({ channel }, 'channel is back: sending what waited');
    void resumeChannel(this.db.db, channel, this.nowIso())
      .then(() => this.onChannelBack())
      .catch((error: unknown) => this.log.warn({ err: error }, 'could not resume a channel'));
  }

  /** A transient failure: the channel may be down (its circuit opens after a few in a row). */
  private troubled(channel: OutboxChannel, probe: boolean, error?: DeliveryError): void {
    if (this.circuits.of(channel).recordFailure(probe)) {
      this.log.warn({ channel, err: error }, 'channel is down: holding its notifications');
    }
  }

  /** Records a send that did not get through: retried later, refused, or the channel stopped. */
  private async recordFailure(
    rows: OutboxRow[],
    target: DeliveryTarget,
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
    if (typeof target !== 'string') {
      // Only a webhook row has an endpoint for its target.
      if (isWebhookChannel(head.channel)) {
        await stopWebhook(this.db.db, head.user_id, head.channel, reason, this.nowIso());
      }
      return;
    }
    const channel = head.channel as NotificationChannel;
    await stopChannel(this.db.db, head.user_id, channel, target, reason, this.nowIso());
    await cancelPendingDeliveries(this.db.db, head.user_id, channel, `Stopped: ${reason}`);
  }
}

/** A row's notice as it goes now, or null when its post is no longer stored. */
function pendingNotice(row: OutboxRow, context: DeliveryContext): PendingNotice | null {
  const handle = context.handle;
  if (!handle) return null;
  const notice = context.tweet ? toTweetNotice(context.tweet, handle) : null;
  if (row.alert_firing_id === null) return notice ? { row, notice, alert: null } : null;
  const firing = context.firing;
  if (!firing || (firing.tweet_id !== null && !notice)) return null;
  return {
    row,
    notice,
    alert: {
      handle: handle.username,
      ruleName: firing.rule_name,
      ...storedFiring(handle.username, firing),
      firedAt: firing.fired_at,
      post: notice,
    },
  };
}
