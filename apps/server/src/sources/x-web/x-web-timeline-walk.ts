/**
 * One timeline() call of the x-web source, page by page: X's web timeline has no time window
 * or since_id, so pages are read newest first and cut to [startTime, endTime) and past sinceId
 * here. The cursor is ours: X's cursor of the page to read, the last id returned, the empty
 * pages in a row and the pinned post not yet placed, so a page cut short resumes exactly where
 * it stopped.
 */
import {
  SourceError,
  type SourceTweet,
  type TimelinePage,
  type TimelineQuery,
} from '../../domain/tweet-source.js';

/** What a web page of the timeline held: the user's own posts (newest first), pinned, cursor. */
export interface WebPage {
  posts: SourceTweet[];
  pinned: SourceTweet[];
  bottom: string | null;
}

/** Pages in a row without a post of the user, with a cursor, after which the timeline ends. */
const EMPTY_PAGES_LIMIT = 3;

interface OurCursor {
  /** X's cursor of the web page to read; null: the first page. */
  c: string | null;
  /** The last id returned: only older posts are returned from that page on. */
  a: string | null;
  /** Pages in a row that held no post of the user (only pinned or promoted entries). */
  e: number;
  /** The pinned post, not yet returned in its place (X shows it only on top). */
  p: SourceTweet | null;
}

function encodeCursor(cursor: OurCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function decodeCursor(value: string | undefined): OurCursor {
  if (!value) return { c: null, a: null, e: 0, p: null };
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as OurCursor;
    return {
      c: typeof parsed.c === 'string' ? parsed.c : null,
      a: typeof parsed.a === 'string' ? parsed.a : null,
      e: typeof parsed.e === 'number' ? parsed.e : 0,
      p: parsed.p && typeof parsed.p.id === 'string' ? parsed.p : null,
    };
  } catch {
    throw new SourceError('unavailable', 'Not a cursor of the x-web source');
  }
}

/** One timeline() call: the posts taken so far and our cursor, page by page. */
export class TimelineWalk {
  readonly state: OurCursor;
  readonly tweets: SourceTweet[] = [];
  private readonly maxResults: number;
  private readonly start: number | null;
  private readonly end: number | null;
  private readonly since: bigint | null;

  constructor(query: TimelineQuery) {
    this.maxResults = Math.min(100, Math.max(5, Math.round(query.maxResults ?? 100)));
    this.start = query.startTime ? Date.parse(query.startTime) : null;
    this.end = query.endTime ? Date.parse(query.endTime) : null;
    this.since = query.sinceId ? BigInt(query.sinceId) : null;
    this.state = decodeCursor(query.cursor);
  }

  /**
   * Takes what a web page holds: the page to answer when the walk stops here, or null to read
   * the page at `state.c` next.
   */
  add(web: WebPage): TimelinePage | null {
    const { state } = this;
    if (state.c === null && state.a === null && state.p === null) {
      state.p = web.pinned.find((t) => this.place(t) === 'take') ?? null;
    }
    // A page counts as empty unless it holds a post older than the last one returned: X may
    // lead back to a page already read (cursors A, B, A), and that must end too.
    const last = state.a;
    const fresh = web.posts.some((t) => last === null || BigInt(t.id) < BigInt(last));
    for (const tweet of web.posts) {
      if (state.p?.id === tweet.id) state.p = null;
      this.placePinned(BigInt(tweet.id));
      if (this.full()) return this.page();
      const verdict = this.place(tweet);
      if (verdict === 'done') return this.finish();
      if (verdict === 'take') this.take(tweet);
      if (this.full()) return this.page();
    }
    // A page without a new post of the user (only pinned or promoted entries, or posts
    // already passed) does not end the timeline; a few in a row, no cursor, or the cursor
    // just sent do.
    state.e = fresh ? 0 : state.e + 1;
    if (!web.bottom || web.bottom === state.c || state.e >= EMPTY_PAGES_LIMIT) {
      return this.finish();
    }
    state.c = web.bottom;
    return null;
  }

  /** The posts so far, with our cursor to go on from. */
  page(): TimelinePage {
    return { tweets: this.tweets, nextCursor: encodeCursor(this.state) };
  }

  private full(): boolean {
    return this.tweets.length >= this.maxResults;
  }

  /** Where a post stands against the window: take it, skip it, or the walk is done. */
  private place(tweet: SourceTweet): 'take' | 'skip' | 'done' {
    const id = BigInt(tweet.id);
    if (this.state.a !== null && id >= BigInt(this.state.a)) return 'skip';
    const at = Date.parse(tweet.createdAt);
    if (this.end !== null && at >= this.end) return 'skip';
    if ((this.start !== null && at < this.start) || (this.since !== null && id <= this.since)) {
      return 'done';
    }
    return 'take';
  }

  private take(tweet: SourceTweet): void {
    this.tweets.push(tweet);
    this.state.a = tweet.id;
  }

  /** The pinned post, once the walk has passed its place (or the timeline ended). */
  private placePinned(before: bigint | null): void {
    const pinned = this.state.p;
    if (!pinned || (before !== null && BigInt(pinned.id) < before)) return;
    this.state.p = null;
    if (this.place(pinned) === 'take') this.take(pinned);
  }

  private finish(): TimelinePage {
    this.placePinned(null);
    return { tweets: this.tweets, nextCursor: null };
  }
}
