import { createHash } from 'node:crypto';
import { FEED_ITEM_LIMIT, FEED_MESSAGES, type Feeds } from '@perch/shared';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import { AppError, notFound } from '../../lib/errors.js';
import { randomToken, sha256Hex } from '../../lib/tokens.js';
import { listLinkedHandles } from '../handles/handles.repository.js';
import { toTweet } from '../tweets/tweets.service.js';
import type { UserRow } from '../users/users.repository.js';
import { createTokenCipher, TokenCipherError, type TokenCipher } from '../../lib/token-cipher.js';
import { renderJsonFeed, renderRss } from './feed-render.js';
import {
  findFeedToken,
  findFeedUser,
  findFollowedHandle,
  insertFeedTokenOnce,
  latestTweets,
  replaceFeedToken,
  type FeedTokenRow,
} from './feeds.repository.js';

export interface FeedsDeps {
  db: Db;
  /** Seals the tokens (the stored-credentials key). */
  cipher: TokenCipher;
  /** PUBLIC_URL, when set: the addresses' origin (else the request's). */
  publicUrl: string | null;
  now?: () => Date;
}

export function createFeedsDeps(config: Config, db: Db): FeedsDeps {
  return {
    db,
    cipher: createTokenCipher({ secretKey: config.SECRET_KEY, dataDir: config.DATA_DIR }),
    publicUrl: config.PUBLIC_URL ?? null,
  };
}

/** Where a token is sealed; bound into its ciphertext. */
const sealedAt = (userId: number) => `feed_tokens.token_sealed:${userId}`;

/** The feeds' path under the API (the token and the file follow). */
export const FEEDS_PATH = '/api/v1/feeds';

function newToken(deps: FeedsDeps, userId: number): FeedTokenRow {
  const token = randomToken(24);
  return {
    user_id: userId,
    token_hash: sha256Hex(token),
    token_sealed: deps.cipher.encrypt(token, sealedAt(userId)),
    created_at: (deps.now?.() ?? new Date()).toISOString(),
  };
}

function feedsOf(
  deps: FeedsDeps,
  row: FeedTokenRow,
  usernames: string[],
  requestOrigin: string,
): Feeds {
  let token: string;
  try {
    token = deps.cipher.decrypt(row.token_sealed, sealedAt(row.user_id));
  } catch (error) {
    if (error instanceof TokenCipherError) {
      throw new AppError(409, 'FEED_TOKEN_UNREADABLE', FEED_MESSAGES.unreadable);
    }
    throw error;
  }
  const base = `${deps.publicUrl ?? requestOrigin}${FEEDS_PATH}/${token}`;
  return {
    createdAt: row.created_at,
    feeds: usernames.map((handle) => ({
      handle,
      rssUrl: `${base}/${handle}.rss`,
      jsonUrl: `${base}/${handle}.json`,
    })),
  };
}

async function followedNames(db: Db, userId: number): Promise<string[]> {
  return (await listLinkedHandles(db.db, userId)).map((row) => row.username);
}

/** GET /settings/feeds: the user's feed addresses, the secret made on first use. */
export async function getFeeds(
  deps: FeedsDeps,
  user: UserRow,
  requestOrigin: string,
): Promise<Feeds> {
  const row =
    (await findFeedToken(deps.db.db, user.id)) ??
    (await insertFeedTokenOnce(deps.db.db, newToken(deps, user.id)));
  return feedsOf(deps, row, await followedNames(deps.db, user.id), requestOrigin);
}

/** POST /settings/feeds/regenerate: a new secret; the old addresses stop working at once. */
export async function regenerateFeeds(
  deps: FeedsDeps,
  user: UserRow,
  requestOrigin: string,
): Promise<Feeds> {
  const row = await replaceFeedToken(deps.db.db, newToken(deps, user.id));
  return feedsOf(deps, row, await followedNames(deps.db, user.id), requestOrigin);
}

export type FeedFormat = 'rss' | 'json';

export interface RenderedFeed {
  body: string;
  contentType: string;
  /** A strong validator of the body. */
  etag: string;
  /** When the content last changed (HTTP date). */
  lastModified: string;
}

const FEED_FILE = /^([A-Za-z0-9_]{1,15})\.(rss|json)$/;
const CONTENT_TYPES: Record<FeedFormat, string> = {
  rss: 'application/rss+xml; charset=utf-8',
  json: 'application/feed+json; charset=utf-8',
};

/**
 * GET /feeds/{token}/{handle}.{rss|json}: the latest tweets of a handle the token's user
 * follows. Any miss (a malformed or unknown token, a bad file name, a handle not followed) is
 * the same 404, so the answer tells nothing about which part was wrong.
 */
export async function renderFeed(
  deps: FeedsDeps,
  token: string,
  file: string,
  requestOrigin: string,
): Promise<RenderedFeed> {
  const missing = () => notFound(FEED_MESSAGES.notFound);
  const parsed = FEED_FILE.exec(file);
  if (!parsed || token.length < 16 || token.length > 128 || !/^[\w-]+$/.test(token)) {
    throw missing();
  }
  const [, name = '', format = 'rss'] = parsed as unknown as [string, string, FeedFormat];
  const userId = await findFeedUser(deps.db.db, sha256Hex(token));
  if (userId === undefined) throw missing();
  const handle = await findFollowedHandle(deps.db.db, userId, name);
  if (!handle) throw missing();
  const rows = await latestTweets(deps.db.db, handle.id, FEED_ITEM_LIMIT);
  const updatedAt = rows.reduce(
    (newest, row) => (row.first_seen_at > newest ? row.first_seen_at : newest),
    handle.added_at,
  );
  const source = {
    username: handle.username,
    displayName: handle.display_name,
    selfUrl: `${deps.publicUrl ?? requestOrigin}${FEEDS_PATH}/${token}/${handle.username}.${format}`,
    tweets: rows.map((row) => toTweet(row, handle.username)),
    updatedAt,
  };
  const body = format === 'rss' ? renderRss(source) : renderJsonFeed(source);
  return {
    body,
    contentType: CONTENT_TYPES[format],
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    lastModified: new Date(updatedAt).toUTCString(),
  };
}

/**
 * Whether the reader's copy is current: If-None-Match when sent (any listed tag, weak or not,
 * or `*`), else If-Modified-Since against the content's time (HTTP dates have whole seconds).
 */
export function isNotModified(
  feed: Pick<RenderedFeed, 'etag' | 'lastModified'>,
  ifNoneMatch: string | undefined,
  ifModifiedSince: string | undefined,
): boolean {
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .some((tag) => tag === '*' || tag === feed.etag);
  }
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Date.parse(feed.lastModified) <= since;
}
