/**
 * One page of X's web timeline (UserTweets, UserTweetsAndReplies) as X lays it out. What a post
 * says is read by the caller's `readPost` (x-web-parse.ts); here only where it stands.
 *
 * - A timeline is a list of instructions run in order: TimelineClearCache, TimelinePinEntry (the
 *   pinned post), TimelineAddEntries (the page) and, on later pages, TimelineReplaceEntry (a
 *   cursor replaced). TimelineAddToModule adds items to a module already shown.
 * - An entry is a single item (TimelineTimelineItem), a module of items (TimelineTimelineModule:
 *   a profile conversation, who-to-follow) or a cursor (TimelineTimelineCursor).
 * - Posts are every item with `tweet_results`, single or in a module, in the order given, each
 *   once. In UserTweetsAndReplies a reply comes in a profile-conversation module with the posts it
 *   answers, other people's too: they are kept, the caller filters by author.
 * - The pinned entry stands out of order: its post is kept apart (`pinned`), not in `tweets`. Should
 *   the same post also stand in its place on the page, it is in `tweets` there too.
 * - Promoted posts are counted and left out: an entry or item id `promoted-...`
 *   (`promoted-tweet-<id>-<hash>`), or an item with `promotedMetadata` (promoted items inside
 *   modules have plain ids).
 * - Posts `readPost` cannot read (tombstones, unavailable posts) are skipped.
 * - Cursors: Top and Bottom, from a cursor entry, a cursor item, or a replaced entry. An entry
 *   without cursorType is told by its id (`cursor-bottom-...`). The last one seen wins.
 * - `entries` counts every entry and module item seen, of any kind, so an empty page can be told
 *   from a page of only pinned, promoted or cursor entries.
 */

/** What a timeline item holds: a post, a user, or a cursor. */
export interface WireItemContent<Post> {
  /** 'TimelineTweet', 'TimelineUser', 'TimelineTimelineCursor', ... */
  itemType?: string;
  __typename?: string;
  tweet_results?: { result?: Post | null } | null;
  promotedMetadata?: object | null;
  cursorType?: string;
  value?: string;
}

export interface WireModuleItem<Post> {
  entryId?: string;
  item?: { itemContent?: WireItemContent<Post> | null } | null;
}

export interface WireEntry<Post> {
  entryId?: string;
  sortIndex?: string;
  content?: {
    /** 'TimelineTimelineItem', 'TimelineTimelineModule' or 'TimelineTimelineCursor'. */
    entryType?: string;
    __typename?: string;
    cursorType?: string;
    value?: string;
    itemContent?: WireItemContent<Post> | null;
    items?: WireModuleItem<Post>[] | null;
    displayType?: string;
  } | null;
}

export interface WireInstruction<Post> {
  /** 'TimelineClearCache', 'TimelinePinEntry', 'TimelineAddEntries', 'TimelineReplaceEntry', ... */
  type?: string;
  entries?: WireEntry<Post>[] | null;
  entry?: WireEntry<Post> | null;
  entry_id_to_replace?: string;
  moduleItems?: WireModuleItem<Post>[] | null;
}

export interface WireTimeline<Post> {
  timeline?: { instructions?: WireInstruction<Post>[] | null } | null;
}

/** One timeline page read. */
export interface TimelinePageOf<Post> {
  /** Readable posts in X's order, each once (not sorted: modules bring older posts along). */
  tweets: Post[];
  /** The pinned post(s), kept out of `tweets`. */
  pinned: Post[];
  /** The ids of `pinned`. */
  pinnedIds: string[];
  /** Promoted posts left out. */
  promoted: number;
  /** X's cursor of the next (older) page, or null. */
  bottomCursor: string | null;
  /** X's cursor of newer posts, or null. */
  topCursor: string | null;
  /** Entries and module items seen, of any kind. */
  entries: number;
}

/** An id of a promoted entry or item: `promoted-tweet-...`, `...-promoted-...`. */
const PROMOTED_ID = /(^|-)promoted(-|$)/;

/** The entries an instruction carries: a list (TimelineAddEntries) or one (pin, replace). */
function entriesOf<Post>(instruction: WireInstruction<Post>): WireEntry<Post>[] {
  const entries = Array.isArray(instruction.entries) ? instruction.entries : [];
  return instruction.entry ? [...entries, instruction.entry] : entries;
}

/** A page being read: what it holds so far, and the posts already placed. */
interface PageRead<Post extends { rest_id?: string }> {
  page: TimelinePageOf<Post>;
  seen: Set<string>;
  readPost: (result: Post | null | undefined) => Post | null;
}

/** Keeps a Top or Bottom cursor (by its type, or else by its entry id). */
function noteCursor(
  page: TimelinePageOf<unknown>,
  id: string,
  type: string | undefined,
  value: string | undefined,
): void {
  if (typeof value !== 'string' || value === '') return;
  const kind =
    type ?? (id.startsWith('cursor-bottom') ? 'Bottom' : id.startsWith('cursor-top') ? 'Top' : '');
  if (kind === 'Bottom') page.bottomCursor = value;
  if (kind === 'Top') page.topCursor = value;
}

/** One item of an entry: a cursor, a promoted post (counted), or a post of the page or pinned. */
function readItem<Post extends { rest_id?: string }>(
  read: PageRead<Post>,
  id: string,
  content: WireItemContent<Post> | null | undefined,
  at: { pinned: boolean; promoted: boolean },
): void {
  const { page, seen } = read;
  if (!content) return;
  noteCursor(page, id, content.cursorType, content.value);
  if (!content.tweet_results) return;
  if (at.promoted || PROMOTED_ID.test(id) || content.promotedMetadata) {
    page.promoted += 1;
    return;
  }
  const post = read.readPost(content.tweet_results.result);
  const postId = post?.rest_id;
  if (!post || !postId) return;
  // The pinned post may also stand in its place on the page: the two are counted apart.
  const key = `${at.pinned ? 'pinned' : 'page'}:${postId}`;
  if (seen.has(key)) return;
  seen.add(key);
  if (!at.pinned) {
    page.tweets.push(post);
    return;
  }
  page.pinned.push(post);
  page.pinnedIds.push(postId);
}

/**
 * The posts, pinned posts, promoted count and cursors of one timeline page. `readPost` gives a
 * readable post (with its rest_id) or null for one that is not.
 */
export function readTimelinePage<Post extends { rest_id?: string }>(
  timeline: WireTimeline<Post> | null | undefined,
  readPost: (result: Post | null | undefined) => Post | null,
): TimelinePageOf<Post> {
  const page: TimelinePageOf<Post> = {
    tweets: [],
    pinned: [],
    pinnedIds: [],
    promoted: 0,
    bottomCursor: null,
    topCursor: null,
    entries: 0,
  };
  const read: PageRead<Post> = { page, seen: new Set<string>(), readPost };
  const instructions = timeline?.timeline?.instructions;
  for (const instruction of Array.isArray(instructions) ? instructions : []) {
    const pinned = instruction.type === 'TimelinePinEntry';
    for (const entry of entriesOf(instruction)) {
      page.entries += 1;
      const id = entry.entryId ?? '';
      const content = entry.content;
      if (!content) continue;
      noteCursor(page, id, content.cursorType, content.value);
      const at = { pinned, promoted: PROMOTED_ID.test(id) };
      readItem(read, id, content.itemContent, at);
      for (const item of content.items ?? []) {
        readItem(read, item.entryId ?? '', item.item?.itemContent, at);
      }
    }
    for (const item of instruction.moduleItems ?? []) {
      page.entries += 1;
      readItem(read, item.entryId ?? '', item.item?.itemContent, { pinned, promoted: false });
    }
  }
  return page;
}
