import type { TweetSource } from './tweet-source.js';

/**
 * What the API side may ask of the collector: the modules depend on this, the collector
 * (collector/collector.ts) implements it, and app.ts hands one to the other.
 */
export interface CollectorControl {
  /** The source collection reads from (its name and the budgets it knows of). */
  readonly source: Pick<TweetSource, 'name' | 'rateStatus' | 'rateBudget'>;
  /** The handle needs (more) backfill. */
  requestBackfill(handleId: number): void;
  /** The handle should be polled soon. */
  requestPoll(handleId: number): void;
  /** Polls the handle now (a refresh); resolves when that poll is done. */
  pollNow(handleId: number): Promise<void>;
  /** Runs `work` while no job of the handle runs, in any process. */
  halt<T>(handleId: number, work: () => Promise<T>): Promise<T>;
  /** The handles a job is running for right now. */
  busyHandleIds(): Promise<Set<number>>;
}
