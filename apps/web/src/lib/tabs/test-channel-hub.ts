import { afterEach, beforeEach, vi } from 'vitest';
import type { TabChannel, TabLocks } from './leader-election';

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

type LockMode = 'exclusive' | 'shared';

interface LockRequest {
  name: string;
  mode: LockMode;
  tab: object;
  grant(): void;
}

/**
 * An in-memory stand-in for the Web Locks API of one browser profile: a lock of a name is held
 * by one exclusive request or any number of shared ones, requests of a name are granted in the
 * order they came (a waiting exclusive request holds back the shared ones behind it), a lock is
 * held until its callback's promise settles, and an aborted request that is still waiting
 * rejects. `forTab()` gives each tab its own handle, whose `crash()` drops everything the tab
 * held or waited for without running any of its code: what the browser does for a tab that
 * crashed or was killed.
 */
export class TestLocks {
  private readonly held = new Set<{ name: string; mode: LockMode; tab: object }>();
  private readonly waiting: LockRequest[] = [];

  forTab(): TabLocks & { crash(): void } {
    const tab = {};
    return {
      request: (name, options, callback) =>
        new Promise((resolve, reject) => {
          const aborted = () => new DOMException('The request was aborted.', 'AbortError');
          if (options.signal?.aborted) return reject(aborted());
          const mode = options.mode ?? 'exclusive';
          const request: LockRequest = {
            name,
            mode,
            tab,
            grant: () => {
              const lock = { name, mode, tab };
              this.held.add(lock);
              Promise.resolve()
                .then(() => callback({ name, mode }))
                .then(resolve, reject)
                .finally(() => {
                  if (this.held.delete(lock)) this.grantWaiting();
                });
            },
          };
          options.signal?.addEventListener('abort', () => {
            const index = this.waiting.indexOf(request);
            if (index < 0) return;
            this.waiting.splice(index, 1);
            reject(aborted());
            this.grantWaiting();
          });
          this.waiting.push(request);
          this.grantWaiting();
        }),
      crash: () => {
        for (const lock of [...this.held]) if (lock.tab === tab) this.held.delete(lock);
        for (const request of [...this.waiting]) {
          if (request.tab === tab) this.waiting.splice(this.waiting.indexOf(request), 1);
        }
        this.grantWaiting();
      },
    };
  }

  /** How many hold the lock of `name` now (for assertions). */
  holders(name: string): number {
    return [...this.held].filter((lock) => lock.name === name).length;
  }

  private grantWaiting(): void {
    const blocked = new Set<string>();
    for (const request of [...this.waiting]) {
      if (blocked.has(request.name)) continue;
      const conflict = [...this.held].some(
        (lock) =>
          lock.name === request.name && (lock.mode === 'exclusive' || request.mode === 'exclusive'),
      );
      if (conflict) {
        blocked.add(request.name);
        continue;
      }
      this.waiting.splice(this.waiting.indexOf(request), 1);
      request.grant();
    }
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
