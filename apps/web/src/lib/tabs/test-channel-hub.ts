import { afterEach, beforeEach, vi } from 'vitest';
import type { TabChannel } from './leader-election';

type Listener = (event: MessageEvent) => void;

interface HubChannel extends TabChannel {
  readonly name: string;
  deliver(data: unknown): void;
}

/**
 * An in-memory stand-in for BroadcastChannel, for tests that run several "tabs" in one process.
 * Like the real thing, a message reaches every other open channel of the same name, never the
 * sender, as a structured clone and asynchronously (a microtask later, so fake timers need no
 * extra tick). `disconnect` cuts a channel off without closing it: a tab that died silently.
 */
export class TestChannelHub {
  private readonly channels = new Set<HubChannel>();
  private readonly cut = new Set<TabChannel>();
  /** Every message posted, in order, with its sender channel. */
  readonly log: { channel: TabChannel; data: unknown; at: number }[] = [];

  /** The factory to hand to TabLeaderElection's `createChannel`. */
  readonly createChannel = (name: string): HubChannel => {
    const listeners = new Set<Listener>();
    let closed = false;
    const channels = this.channels;
    const { cut, log } = this;
    const channel: HubChannel = {
      name,
      postMessage(message: unknown) {
        if (closed) throw new Error('InvalidStateError: channel is closed');
        if (cut.has(channel)) return;
        const data = structuredClone(message);
        log.push({ channel, data, at: Date.now() });
        for (const other of channels) {
          if (other !== channel && other.name === name) {
            queueMicrotask(() => other.deliver(structuredClone(data)));
          }
        }
      },
      addEventListener(_type: 'message', listener: Listener) {
        listeners.add(listener);
      },
      removeEventListener(_type: 'message', listener: Listener) {
        listeners.delete(listener);
      },
      close() {
        closed = true;
        channels.delete(channel);
      },
      deliver(data: unknown) {
        if (closed || cut.has(channel)) return;
        const event = new MessageEvent('message', { data });
        for (const listener of [...listeners]) listener(event);
      },
    };
    channels.add(channel);
    return channel;
  };

  /** Stops all traffic to and from this channel, as if its tab had been killed. */
  disconnect(channel: TabChannel): void {
    this.cut.add(channel);
  }

  /** Lets a disconnected channel talk again (a frozen tab that wakes up). */
  reconnect(channel: TabChannel): void {
    this.cut.delete(channel);
  }

  /** When messages of one type (optionally from one tab id) were posted, in order. */
  postedAt(type: string, from?: string): number[] {
    return this.log
      .filter(({ data }) => {
        const message = data as { type?: unknown; from?: unknown } | null;
        return message?.type === type && (from === undefined || message.from === from);
      })
      .map((entry) => entry.at);
  }
}

/** The current test's hub, and what to undo when the test ends (run in order). */
export interface TabTestBed {
  hub: TestChannelHub;
  cleanups: (() => void)[];
}

/**
 * Runs every test of the file on fake timers from time 0 with a fresh hub; the cleanups each
 * test registers (stopping its tabs) run after it. Call at the top of a file.
 */
export function tabTestBed(): TabTestBed {
  const bed: TabTestBed = { hub: new TestChannelHub(), cleanups: [] };
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
    bed.hub = new TestChannelHub();
    bed.cleanups = [];
  });
  afterEach(() => {
    for (const cleanup of bed.cleanups) cleanup();
    vi.useRealTimers();
  });
  return bed;
}
