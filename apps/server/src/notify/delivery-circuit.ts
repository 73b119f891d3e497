/**
 * A service's health as the delivery worker sees it (one circuit per channel):
 *
 * - closed: sending. Transient failures are counted; `openAfter` of them in a row open it.
 * - open: the service is taken as down. Nothing is claimed for it, nothing is dropped; one
 *   probe may go every `probeEveryMs`.
 * - half-open: the probe is in flight. If it gets through (or the service answers at all), the
 *   circuit closes and the backlog is due at once; if it fails, the next probe waits again.
 */

import type { OutboxChannel, WebhookChannel } from '../db/types.js';
import { isWebhookChannel } from './webhook/webhook-channel.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

/** Whether the worker may claim a send for the channel now. */
export type CircuitAdmission =
  /** Closed: send as usual. */
  | { kind: 'send' }
  /** Open and a probe is due: the next claim is the probe. */
  | { kind: 'probe' }
  /** Open: nothing now; a probe could go in `readyInMs` (Infinity while one is in flight). */
  | { kind: 'hold'; readyInMs: number };

export interface DeliveryCircuitOptions {
  /** Transient failures in a row that open the circuit. */
  openAfter: number;
  /** While open, one probe this often. */
  probeEveryMs: number;
  /** Clock (epoch ms). */
  now?: () => number;
}

export class DeliveryCircuit {
  private readonly openAfter: number;
  private readonly probeEveryMs: number;
  private readonly now: () => number;
  private failures = 0;
  private open = false;
  /** When the next probe may go (open circuit). */
  private probeAt = 0;
  /** A probe is in flight. */
  private probing = false;

  constructor(options: DeliveryCircuitOptions) {
    this.openAfter = Math.max(1, options.openAfter);
    this.probeEveryMs = options.probeEveryMs;
    this.now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (!this.open) return 'closed';
    return this.probing ? 'half-open' : 'open';
  }

  /** Whether the service is taken as down (open or half-open). */
  get isDown(): boolean {
    return this.open;
  }

  /** Whether a send may be claimed at `at` (epoch ms), and whether it would be the probe. */
  admission(at: number): CircuitAdmission {
    if (!this.open) return { kind: 'send' };
    if (this.probing) return { kind: 'hold', readyInMs: Infinity };
    if (at < this.probeAt) return { kind: 'hold', readyInMs: this.probeAt - at };
    return { kind: 'probe' };
  }

  /** The probe was claimed and is on its way. */
  probeStarted(): void {
    this.probing = true;
  }

  /** The probe's send is over (its outcome was recorded with the calls below). */
  probeEnded(): void {
    this.probing = false;
  }

  /**
   * The service answered (a send got through, or was refused for itself): the failures in a
   * row start again. Returns true when this closed an open circuit: the backlog is due now.
   */
  recordSuccess(): boolean {
    this.failures = 0;
    if (!this.open) return false;
    this.open = false;
    this.probing = false;
    return true;
  }

  /**
   * A transient failure (`probe`: of the probe). The circuit opens after `openAfter` in a row,
   * or at once for a probe; an open circuit's next probe waits `probeEveryMs` from now. Returns
   * true when this opened the circuit.
   */
  recordFailure(probe: boolean): boolean {
    this.failures += 1;
    if (!probe && !this.open && this.failures < this.openAfter) return false;
    const opened = !this.open;
    this.open = true;
    this.probeAt = this.now() + this.probeEveryMs;
    return opened;
  }
}

/**
 * One circuit per outbox channel: Telegram's and Discord's from the start, a webhook endpoint's
 * from its first send, so one endpoint that is down holds back only its own deliveries.
 */
export class DeliveryCircuits {
  private readonly circuits = new Map<OutboxChannel, DeliveryCircuit>();

  constructor(private readonly make: () => DeliveryCircuit) {
    this.circuits.set('telegram', make());
    this.circuits.set('discord', make());
  }

  of(channel: OutboxChannel): DeliveryCircuit {
    let circuit = this.circuits.get(channel);
    if (!circuit) {
      circuit = this.make();
      this.circuits.set(channel, circuit);
    }
    return circuit;
  }

  /** The webhook channels with a circuit, and their circuits. */
  *webhooks(): Generator<[WebhookChannel, DeliveryCircuit]> {
    for (const [channel, circuit] of this.circuits) {
      if (isWebhookChannel(channel)) yield [channel, circuit];
    }
  }
}
