import { EventEmitter } from 'node:events';
import type { HandleStatus } from '../db/types.js';
import type { SourceTweet } from './sources/types.js';

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

/** What the collector tells the rest of the process (later: SSE, notifications). */
export interface CollectorEventMap {
  'handle.progress': [HandleProgressEvent];
  'handle.status': [HandleStatusEvent];
  'tweet.new': [TweetNewEvent];
}

/** In-process collector events (embedded mode; scale-out relays them over Redis later). */
export class CollectorEvents extends EventEmitter<CollectorEventMap> {}
