/**
 * Picks the tweet source the configuration asks for (TWEET_SOURCE). Create one per process and
 * share it: the x-api source keeps the token's rate budgets in the instance.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/types.js';
import type { XRequestMetrics } from '../lib/metrics.js';
import { createTokenCipher } from '../lib/token-cipher.js';
import { createDemoSource } from './demo-source.js';
import type { BilledReadsListener, TweetSource } from '../domain/tweet-source.js';
import { createXApiSource } from './x-api-source.js';
import { createXWebSource } from './x-web/x-web-source.js';

export interface TweetSourceHooks {
  /** The cost meter: told of every post and user the x-api source is billed for. */
  onBilledReads?: BilledReadsListener;
  /** Prometheus: every X request, by endpoint and status. */
  xRequestMetrics?: XRequestMetrics;
  /** The database: the x-web source keeps its pool of accounts there. */
  db?: Kysely<Database>;
}

export function createTweetSource(config: Config, hooks: TweetSourceHooks = {}): TweetSource {
  if (config.TWEET_SOURCE === 'x-api') {
    if (!config.X_BEARER_TOKEN) throw new Error('TWEET_SOURCE=x-api needs X_BEARER_TOKEN');
    return createXApiSource({
      baseUrl: config.X_API_BASE_URL,
      bearerToken: config.X_BEARER_TOKEN,
      timeoutMs: config.X_REQUEST_TIMEOUT_SECONDS * 1000,
      onBilledReads: hooks.onBilledReads,
      metrics: hooks.xRequestMetrics,
    });
  }
  if (config.TWEET_SOURCE === 'x-web') {
    if (!hooks.db) throw new Error('TWEET_SOURCE=x-web needs the database');
    return createXWebSource({
      db: hooks.db,
      cipher: createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR }),
      baseUrl: config.X_WEB_BASE_URL,
      apiBaseUrl: config.X_WEB_API_BASE_URL,
      operationsFile: config.X_WEB_OPERATIONS_FILE,
      operationsRecheckMs: config.X_WEB_OPERATIONS_RECHECK_SECONDS * 1000,
      timeoutMs: config.X_REQUEST_TIMEOUT_SECONDS * 1000,
      metrics: hooks.xRequestMetrics,
    });
  }
  return createDemoSource({
    pageDelayMs: config.DEMO_PAGE_DELAY_MS,
    challengeCode: config.DEMO_CHALLENGE_CODE,
  });
}

export {
  createDemoSource,
  DEMO_CHALLENGE,
  DEMO_RESERVED_HANDLES,
  demoUserId,
} from './demo-source.js';
export type { DemoSourceOptions } from './demo-source.js';
export { createXApiSource } from './x-api-source.js';
export type { XApiSourceOptions, XEndpoint } from './x-api-source.js';
export { createXWebSource } from './x-web/x-web-source.js';
export type { XWebSourceOptions } from './x-web/x-web-source.js';
export * from '../domain/tweet-source.js';
