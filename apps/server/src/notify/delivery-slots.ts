/**
 * Who the delivery worker can send to now. A channel is left out while it has no token, while
 * every one of its slots (NOTIFY_CONCURRENCY) is busy, while its overall rate is spent, or while
 * it is down (its circuit open, except for one probe when due); a user is left out while a send
 * to their chat is in flight or its gate holds the chat back. Claims skip what is left out, so
 * a busy chat never holds a slot that another chat could use.
 */
import type { NotificationChannel, OutboxChannel, WebhookChannel } from '../db/types.js';
import type { NotifyChannels } from './channels.js';
import type { DeliveryCircuits } from './delivery-circuit.js';
import { isWebhookChannel } from './webhook/webhook-channel.js';
import type { ClaimExclusions } from './outbox-claims.repository.js';
import type { RateGate } from './rate-gate.js';

export const CHANNELS: readonly NotificationChannel[] = ['telegram', 'discord'];

/** A Discord DM channel takes 5 messages per 5 s: one a second, on average, across processes. */
const DISCORD_CHAT_SPACING_MS = 1_000;

/** A send in flight, by its head row's id. */
export interface InFlightSend {
  userId: number;
  channel: OutboxChannel;
  done: Promise<void>;
}

/** What cannot be claimed now, when something could be, and which channels' claim is a probe. */
export interface SendExclusions {
  exclude: ClaimExclusions;
  /** How long until a chat held back by its gate (or a channel's probe) could go. */
  readyInMs: number;
  probing: OutboxChannel[];
}

export class DeliverySlots {
  /** Sends in flight, by their head row's id. */
  readonly inFlight = new Map<number, InFlightSend>();
  /** The chat (or Discord user) each user was last sent to, to ask the gates about it. */
  private readonly targets: Record<NotificationChannel, Map<number, string>> = {
    telegram: new Map(),
    discord: new Map(),
  };

  constructor(
    private readonly channels: NotifyChannels,
    private readonly circuits: DeliveryCircuits,
    /** Sends in flight at once per channel (all webhook endpoints together count as one). */
    private readonly concurrency: number,
  ) {}

  /** The user's chat on the channel is `target` (the gates are asked about it). */
  setTarget(channel: OutboxChannel, userId: number, target: string): void {
    if (!isWebhookChannel(channel)) this.targets[channel].set(userId, target);
  }

  private gateOf(channel: NotificationChannel): RateGate | undefined {
    return channel === 'telegram' ? this.channels.telegramGate : this.channels.discordGate;
  }

  /** Who cannot be sent to now (this file's header). */
  exclusions(): SendExclusions {
    const result: SendExclusions = { exclude: {}, readyInMs: Infinity, probing: [] };
    const at = Date.now();
    for (const channel of CHANNELS) this.excludeOnChannel(channel, at, result);
    this.excludeWebhooks(at, result);
    return result;
  }

  /**
   * Webhooks share one set of slots; each endpoint has its own circuit, and one send at a time
   * (its chat lock): an endpoint that is down or busy holds back only its own deliveries.
   */
  private excludeWebhooks(at: number, result: SendExclusions) {
    const busy = new Map<WebhookChannel, number[]>();
    let inFlight = 0;
    for (const entry of this.inFlight.values()) {
      if (!isWebhookChannel(entry.channel)) continue;
      inFlight += 1;
      busy.set(entry.channel, [...(busy.get(entry.channel) ?? []), entry.userId]);
    }
    if (!this.channels.webhook || inFlight >= this.concurrency) {
      result.exclude.webhook = 'all';
      return;
    }
    for (const [channel, circuit] of this.circuits.webhooks()) {
      const admission = circuit.admission(at);
      if (admission.kind === 'hold') {
        result.exclude[channel] = 'all';
        result.readyInMs = Math.min(result.readyInMs, admission.readyInMs);
      } else if (admission.kind === 'probe') result.probing.push(channel);
    }
    for (const [channel, users] of busy) {
      if (result.exclude[channel] !== 'all') result.exclude[channel] = users;
    }
  }

  private excludeOnChannel(channel: NotificationChannel, at: number, result: SendExclusions) {
    const users = new Set<number>();
    let inFlight = 0;
    for (const entry of this.inFlight.values()) {
      if (entry.channel !== channel) continue;
      users.add(entry.userId);
      inFlight += 1;
    }
    if (!this.channels[channel].available || inFlight >= this.concurrency) {
      result.exclude[channel] = 'all';
      return;
    }
    const admission = this.circuits.of(channel).admission(at);
    if (admission.kind === 'hold') {
      result.exclude[channel] = 'all';
      result.readyInMs = Math.min(result.readyInMs, admission.readyInMs);
      return;
    }
    if (admission.kind === 'probe') result.probing.push(channel);
    const gate = this.gateOf(channel);
    const overall = gate ? gate.whenCanSend() - at : 0;
    if (overall > 0) {
      result.exclude[channel] = 'all';
      result.readyInMs = Math.min(result.readyInMs, overall);
      return;
    }
    for (const [userId, target] of this.targets[channel]) {
      const wait = gate ? gate.whenCanSend(target) - at : 0;
      if (wait > 0) {
        users.add(userId);
        result.readyInMs = Math.min(result.readyInMs, wait);
      } else if (!users.has(userId)) {
        this.targets[channel].delete(userId);
      }
    }
    if (users.size > 0) result.exclude[channel] = [...users];
  }

  /**
   * Until when the chat must rest after a send, for every process (Telegram: its gate's next
   * slot for the chat, 1 a second and 20 a minute in groups; Discord: 1 s, its DM channels' 5
   * per 5 s on average). Undefined when it need not.
   */
  chatSpacingUntil(channel: OutboxChannel, userId: number): string | undefined {
    if (isWebhookChannel(channel)) return undefined;
    const target = this.targets[channel].get(userId);
    if (!target) return undefined;
    const gate = channel === 'telegram' ? this.channels.telegramGate : undefined;
    const at = gate ? gate.whenCanSend(target) : Date.now() + DISCORD_CHAT_SPACING_MS;
    return at > Date.now() ? new Date(at).toISOString() : undefined;
  }
}
