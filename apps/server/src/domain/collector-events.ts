import { EventEmitter } from 'node:events';
import type { SourceTweet } from './tweet-source.js';

/** Where a handle's collection stands (the `handles.status` column). */
export type HandleStatus = 'pending' | 'starting' | 'in_progress' | 'completed' | 'failed';

export interface HandleProgressEvent {
  handleId: number;
  username: string;
  status: HandleStatus;
  /** 0-100. */
  progress: number;
  totalTweets: number;
  estimatedCompletion: string | null;
}

export interface HandleStatusEvent {
  handleId: number;
  username: string;
  status: HandleStatus;
  error: string | null;
}

export interface TweetNewEvent {
  handleId: number;
  username: string;
  tweet: SourceTweet;
}

/**
 * An alert rule fired (the delivery worker's alert pass, once the firing is stored): its
 * owner's open pages refresh the alerts they show.
 */
export interface AlertFiredEvent {
  handleId: number;
  /** The rule's owner: only their streams hear of it. */
  userId: number;
  firingId: number;
}

/** What the collector (and the alert pass) tell the rest of the process and the browsers. */
export interface CollectorEventMap {
  'handle.progress': [HandleProgressEvent];
  'handle.status': [HandleStatusEvent];
  'tweet.new': [TweetNewEvent];
  'alert.fired': [AlertFiredEvent];
}

type EventName = keyof CollectorEventMap;

/**
 * The collector's events. In one process they go to its listeners; in scale-out mode each one
 * is also handed to `relay` (published on Redis by cluster/event-relay.ts), and the events of
 * other nodes come in through `receive`, to this process's listeners only. Listeners added with
 * `onOwn` hear this process's events and never another node's.
 */
export class CollectorEvents extends EventEmitter<CollectorEventMap> {
  private relay: ((name: EventName, payload: CollectorEventMap[EventName][0]) => void) | undefined;
  /** The listeners of `onOwn`. */
  private readonly own = new EventEmitter<CollectorEventMap>();

  /** Also hands every event emitted here to `relay`. */
  relayTo(relay: (name: EventName, payload: CollectorEventMap[EventName][0]) => void): void {
    this.relay = relay;
  }

  /**
   * Calls `listener` with the events emitted in this process only: what another node's collector
   * did (relayed here for the browsers) is that node's to report.
   */
  onOwn<K extends EventName>(name: K, listener: (...args: CollectorEventMap[K]) => void): this {
    this.own.on(name as EventName, listener as never);
    return this;
  }

  override emit<K extends EventName>(name: K, ...args: CollectorEventMap[K]): boolean {
    const heard = super.emit(name as EventName, ...(args as [never]));
    const ownHeard = this.own.emit(name as EventName, ...(args as [never]));
    this.relay?.(name, args[0]);
    return heard || ownHeard;
  }

  /** An event of another node: this process's listeners hear it; it is not relayed again. */
  receive<K extends EventName>(name: K, payload: CollectorEventMap[K][0]): void {
    super.emit(name as EventName, ...([payload] as [never]));
  }
}
