/**
 * The wire objects of the loopback fake of X's web API: users, posts and profile timelines as
 * x.com answered in 2026 (twscrape 0.20's recorded answers, tests/mocked-data):
 *
 * - A user keeps its names, counts, bio and avatar in their own objects (core, relationship_counts,
 *   tweet_counts, action_counts, profile_bio, avatar…) and `legacy` is empty; the shape of
 *   before (everything in legacy) stays available for tests of a client's fallback.
 * - A timeline is data.user.result.timeline.timeline.instructions: TimelineClearCache, on the
 *   first page a TimelinePinEntry, then TimelineAddEntries with posts, a promoted post every
 *   PROMOTED_EVERY entries, replies (UserTweetsAndReplies) in a `profile-conversation-<n>` module
 *   after the post they answer, and the Top and Bottom cursors. Some posts are wrapped in
 *   TweetWithVisibilityResults. X never reads further back than DEPTH_LIMIT posts.
 */
import type { SourceTweet } from '../../src/domain/tweet-source.js';
import type { FakeXUserInput } from './fake-x-server.js';

export const DEPTH_LIMIT = 3_200;
/** One promoted post per this many entries of a page (the first after PROMOTED_FIRST). */
const PROMOTED_EVERY = 10;
const PROMOTED_FIRST = 2;
/** Posts whose id leaves this remainder are wrapped in TweetWithVisibilityResults. */
const VISIBILITY_MODULUS = 7n;
const VISIBILITY_REMAINDER = 3n;
const RETWEET_TEXT_CHARS = 140;
const NOTE_VISIBLE_CHARS = 275;
const LONG_POST_CHARS = 280;

export type FakeXWebUserShape = '2026' | 'legacy';
export type TimelineKind = 'UserTweets' | 'UserTweetsAndReplies';

/** A user as the X API fake takes one (createdAt ISO-8601), with the profile's web-only fields. */
export interface FakeXWebUserInput extends FakeXUserInput {
  mediaCount?: number;
  description?: string;
  location?: string;
  avatarUrl?: string;
  blueVerified?: boolean;
}

export interface FakeUser {
  id: string;
  username: string;
  name: string;
  protected: boolean;
  suspended: boolean;
  followersCount: number;
  followingCount: number;
  tweetCount: number;
  likeCount: number;
  mediaCount: number;
  createdAt: string;
  description: string;
  location: string;
  avatarUrl: string;
  blueVerified: boolean;
}

/** Oddities of X's timelines, switched on by tests. */
export interface TimelineQuirks {
  /** The first N pages hold only the pinned/promoted entries and the cursors. */
  fillerPages?: number;
  /** The Bottom cursor never advances (it repeats the cursor sent). */
  repeatCursor?: boolean;
  /**
   * The last page's Bottom cursor leads back to the page before it, whose cursor leads to the
   * last again: two cursors alternate (A, B, A, …), never one repeated in a row.
   */
  alternateCursors?: boolean;
  /** After every Nth post of a page, a deleted post's tombstone (an extra entry). */
  tombstoneEvery?: number;
}

export function fakeUser(input: FakeXWebUserInput, id: string): FakeUser {
  return {
    id,
    username: input.username,
    name: input.name ?? input.username,
    protected: input.protected ?? false,
    suspended: input.suspended ?? false,
    followersCount: input.followersCount ?? 100,
    followingCount: input.followingCount ?? 50,
    tweetCount: input.tweetCount ?? 0,
    likeCount: input.likeCount ?? 0,
    mediaCount: input.mediaCount ?? 0,
    createdAt: input.createdAt ?? '2012-06-01T12:00:00.000Z',
    description: input.description ?? '',
    location: input.location ?? '',
    avatarUrl: input.avatarUrl ?? `https://pbs.twimg.com/profile_images/${id}/avatar_normal.jpg`,
    blueVerified: input.blueVerified ?? false,
  };
}

/** The account whose posts X mixes into timelines as ads. */
const ADVERTISER = fakeUser(
  { username: 'ShopDailyDeals', name: 'Daily Deals', followersCount: 370, blueVerified: true },
  '1647055955388170241',
);

/** "Wed Oct 10 20:19:24 +0000 2018": X's created_at. */
export function xDate(iso: string): string {
  const d = new Date(iso);
  const [day, month] = [
    ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()],
    ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][
      d.getUTCMonth()
    ],
  ];
  const pad = (n: number) => String(n).padStart(2, '0');
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${day} ${month} ${pad(d.getUTCDate())} ${time} +0000 ${d.getUTCFullYear()}`;
}

const escapeText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export function wireUser(user: FakeUser, shape: FakeXWebUserShape): Record<string, unknown> {
  if (user.suspended) {
    return { __typename: 'UserUnavailable', reason: 'Suspended', message: 'User is suspended' };
  }
  const graphId = Buffer.from(`User:${user.id}`).toString('base64');
  if (shape === 'legacy') {
    return {
      __typename: 'User',
      id: graphId,
      rest_id: user.id,
      core: { screen_name: user.username, name: user.name },
      privacy: { protected: user.protected },
      is_blue_verified: user.blueVerified,
      legacy: {
        screen_name: user.username,
        name: user.name,
        created_at: xDate(user.createdAt),
        description: user.description,
        location: user.location,
        profile_image_url_https: user.avatarUrl,
        followers_count: user.followersCount,
        friends_count: user.followingCount,
        statuses_count: user.tweetCount,
        media_count: user.mediaCount,
        favourites_count: user.likeCount,
        protected: user.protected,
        verified: false,
      },
    };
  }
  return {
    __typename: 'User',
    id: graphId,
    rest_id: user.id,
    action_counts: { favorites_count: user.likeCount },
    avatar: { image_url: user.avatarUrl },
    core: { created_at: xDate(user.createdAt), name: user.name, screen_name: user.username },
    dm_permissions: { can_dm: false },
    has_graduated_access: true,
    is_blue_verified: user.blueVerified,
    legacy: {},
    location: { location: user.location },
    media_permissions: { can_media_tag: true },
    privacy: { protected: user.protected },
    profile_bio: { description: user.description },
    relationship_counts: { followers: user.followersCount, following: user.followingCount },
    tweet_counts: { media_tweets: user.mediaCount, tweets: user.tweetCount },
    verification: { verified: false },
  };
}

function entitiesOf(tweet: SourceTweet) {
  return {
    hashtags: tweet.hashtags.map((text) => ({ text, indices: [0, 0] })),
    urls: tweet.urls.map((expanded_url, n) => ({
      expanded_url,
      url: `https://t.co/${tweet.id.slice(-6)}${n}`,
    })),
  };
}

function mediaOf(tweet: SourceTweet) {
  return tweet.media.map((m) => ({
    type: m.type,
    media_url_https: (m.type === 'photo' ? m.url : m.previewUrl) ?? undefined,
  }));
}

const isReply = (tweet: SourceTweet) => tweet.referencedTypes.includes('replied_to');

/** The post a reply answers: its conversation's root when known, else the id just before. */
export function parentIdOf(tweet: SourceTweet): string {
  return tweet.conversationId && tweet.conversationId !== tweet.id
    ? tweet.conversationId
    : String(BigInt(tweet.id) - 1n);
}

/** A bare post of the fake's own making (a replied-to post, an ad). */
function madeUpTweet(id: string, text: string, createdAt: string): SourceTweet {
  return {
    id,
    text,
    createdAt,
    lang: 'en',
    likeCount: 3,
    retweetCount: 0,
    replyCount: 1,
    quoteCount: 0,
    impressionCount: 120,
    conversationId: id,
    inReplyToUserId: null,
    referencedTypes: [],
    hashtags: [],
    urls: [],
    media: [],
  };
}

/** A Tweet result, or the TweetWithVisibilityResults X wraps some posts in. */
export function wireTweet(
  tweet: SourceTweet,
  user: FakeUser,
  shape: FakeXWebUserShape,
): Record<string, unknown> {
  const retweet = /^RT @([A-Za-z0-9_]{1,15}): ([\s\S]*)$/.exec(tweet.text);
  const isRetweet = tweet.referencedTypes.includes('retweeted') && retweet;
  const legacy: Record<string, unknown> = {
    created_at: xDate(tweet.createdAt),
    favorite_count: tweet.likeCount,
    retweet_count: tweet.retweetCount,
    reply_count: tweet.replyCount,
    quote_count: tweet.quoteCount,
    user_id_str: user.id,
    id_str: tweet.id,
    entities: isRetweet ? { hashtags: [], urls: [] } : entitiesOf(tweet),
  };
  if (tweet.lang !== null) legacy.lang = tweet.lang;
  if (tweet.conversationId !== null) legacy.conversation_id_str = tweet.conversationId;
  if (tweet.inReplyToUserId !== null) legacy.in_reply_to_user_id_str = tweet.inReplyToUserId;
  if (isReply(tweet)) legacy.in_reply_to_status_id_str = parentIdOf(tweet);
  if (tweet.referencedTypes.includes('quoted')) {
    legacy.is_quote_status = true;
    legacy.quoted_status_id_str = '1';
  }
  const result: Record<string, unknown> = {
    __typename: 'Tweet',
    rest_id: tweet.id,
    core: { user_results: { result: wireUser(user, shape) } },
    legacy,
  };
  if (tweet.impressionCount !== null) {
    result.views = { count: String(tweet.impressionCount), state: 'EnabledWithCount' };
  }
  if (isRetweet) {
    // The retweet's own text is cut; the shared post carries the whole text, entities, media.
    const [, author, shared] = retweet;
    legacy.full_text = escapeText(tweet.text.slice(0, RETWEET_TEXT_CHARS - 1) + '…');
    const sharedAuthor = fakeUser({ username: author! }, '42');
    legacy.retweeted_status_result = {
      result: {
        __typename: 'Tweet',
        rest_id: String(BigInt(tweet.id) - 1_000_000n),
        core: { user_results: { result: wireUser(sharedAuthor, shape) } },
        legacy: {
          full_text: escapeText(shared!),
          created_at: xDate(tweet.createdAt),
          entities: entitiesOf(tweet),
          extended_entities: tweet.media.length > 0 ? { media: mediaOf(tweet) } : undefined,
        },
      },
    };
  } else {
    if (tweet.media.length > 0) legacy.extended_entities = { media: mediaOf(tweet) };
    if ([...tweet.text].length > LONG_POST_CHARS) {
      legacy.full_text = escapeText([...tweet.text].slice(0, NOTE_VISIBLE_CHARS).join('') + '…');
      result.note_tweet = {
        note_tweet_results: {
          result: { text: escapeText(tweet.text), entity_set: entitiesOf(tweet) },
        },
      };
    } else {
      legacy.full_text = escapeText(tweet.text);
    }
  }
  if (BigInt(tweet.id) % VISIBILITY_MODULUS === VISIBILITY_REMAINDER) {
    const { __typename: _typename, ...inner } = result;
    return {
      __typename: 'TweetWithVisibilityResults',
      tweet: inner,
      limitedActionResults: {
        limited_actions: [{ action: 'Reply', prompt: { __typename: 'CtaLimitedActionPrompt' } }],
      },
    };
  }
  return result;
}

// ------------------------------------------------------------------ timelines

interface CursorState {
  /** Posts already served. */
  offset: number;
  /** Filler pages already served. */
  fillers: number;
}

const CURSOR_PREFIX = 'DAAHCgAB';

function encodeCursor(state: CursorState): string {
  return `${CURSOR_PREFIX}${Buffer.from(`${state.offset}:${state.fillers}`).toString('base64url')}`;
}

function decodeCursor(cursor: string | undefined): CursorState {
  if (!cursor?.startsWith(CURSOR_PREFIX)) return { offset: 0, fillers: 0 };
  const [offset, fillers] = Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url')
    .toString()
    .split(':')
    .map(Number);
  return { offset: offset || 0, fillers: fillers || 0 };
}

export interface TimelineRequest {
  kind: TimelineKind;
  user: FakeUser;
  /** The user's posts, newest first. */
  tweets: SourceTweet[];
  count: number;
  cursor: string | undefined;
  quirks: TimelineQuirks;
  shape: FakeXWebUserShape;
  /** A post the fake holds, with its author. */
  findTweet(id: string): { tweet: SourceTweet; user: FakeUser } | undefined;
  findUser(id: string): FakeUser | undefined;
  /** A number unique to this answer (entry ids and sort indices are made from it). */
  serial: bigint;
  /** The fake's clock (epoch ms). */
  now: number;
}

function tweetItem(result: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    __typename: 'TimelineTweet',
    itemType: 'TimelineTweet',
    tweetDisplayType: 'Tweet',
    tweet_results: { result },
    ...extra,
  };
}

function itemEntry(entryId: string, sortIndex: bigint, itemContent: Record<string, unknown>) {
  return {
    entryId,
    sortIndex: String(sortIndex),
    content: { __typename: 'TimelineTimelineItem', entryType: 'TimelineTimelineItem', itemContent },
  };
}

/** One page of UserTweets or UserTweetsAndReplies, as `data`. */
export function timelinePage(request: TimelineRequest): Record<string, unknown> {
  const { kind, user, quirks, shape, serial } = request;
  const all = request.tweets
    .filter((tweet) => kind === 'UserTweetsAndReplies' || !isReply(tweet))
    .slice(0, DEPTH_LIMIT);
  const state = decodeCursor(request.cursor);
  const filler = state.fillers < (quirks.fillerPages ?? 0);
  const page = filler ? [] : all.slice(state.offset, state.offset + request.count);
  const ownIds = new Set(all.map((tweet) => tweet.id));
  let sortIndex = serial;
  let promoted = 0;
  const entries: Record<string, unknown>[] = [];

  const promotedEntry = () => {
    promoted += 1;
    // An ad served now: its id is newer than the profile's posts (never a newest id to keep).
    const adId = String(serial + BigInt(promoted));
    const ad = madeUpTweet(
      adId,
      'Everything for your home, 30% off this week.',
      new Date(request.now).toISOString(),
    );
    return itemEntry(
      `promoted-tweet-${adId}-${promoted}`,
      sortIndex--,
      tweetItem(wireTweet(ad, ADVERTISER, shape), {
        promotedMetadata: {
          advertiser_results: { result: wireUser(ADVERTISER, shape) },
          disclosureType: 'NoDisclosure',
          impressionId: `${serial.toString(16)}${promoted}`,
          impressionString: `${serial.toString(16)}${promoted}`,
          clickTrackingInfo: { urlParams: {} },
        },
      }),
    );
  };

  const conversationEntry = (reply: SourceTweet) => {
    const parentId = parentIdOf(reply);
    const stored = request.findTweet(parentId);
    // Another account's post: its author when known, else one made up.
    const otherId =
      reply.inReplyToUserId && reply.inReplyToUserId !== user.id ? reply.inReplyToUserId : null;
    const author =
      (otherId ? request.findUser(otherId) : undefined) ??
      fakeUser({ username: `replied_${parentId.slice(-6)}` }, otherId ?? '43');
    const parent = stored ?? {
      tweet: madeUpTweet(parentId, `The post @${user.username} answered.`, reply.createdAt),
      user: author,
    };
    const moduleId = `profile-conversation-${sortIndex}`;
    const items = [parent, { tweet: reply, user }].map(({ tweet, user: by }, n) => ({
      entryId: `${moduleId}-tweet-${tweet.id}`,
      dispensable: n === 0,
      item: { itemContent: tweetItem(wireTweet(tweet, by, shape)) },
    }));
    return {
      entryId: moduleId,
      sortIndex: String(sortIndex--),
      content: {
        __typename: 'TimelineTimelineModule',
        entryType: 'TimelineTimelineModule',
        displayType: 'VerticalConversation',
        items,
        metadata: {
          conversationMetadata: {
            allTweetIds: [parent.tweet.id, reply.id],
            enableDeduplication: true,
          },
        },
      },
    };
  };

  const tombstoneEntry = (after: SourceTweet) => {
    let deleted = BigInt(after.id) - 1n;
    while (ownIds.has(String(deleted))) deleted -= 1n;
    return itemEntry(
      `tweet-${deleted}`,
      sortIndex--,
      tweetItem({
        __typename: 'TweetTombstone',
        tombstone: {
          __typename: 'TextTombstone',
          text: {
            rtl: false,
            text: 'This Post was deleted by the Post author. Learn more',
            entities: [],
          },
        },
      }),
    );
  };

  if (filler) entries.push(promotedEntry());
  page.forEach((tweet, n) => {
    if (n % PROMOTED_EVERY === PROMOTED_FIRST) entries.push(promotedEntry());
    if (kind === 'UserTweetsAndReplies' && isReply(tweet)) {
      entries.push(conversationEntry(tweet));
    } else {
      const item = tweetItem(wireTweet(tweet, user, shape));
      entries.push(itemEntry(`tweet-${tweet.id}`, sortIndex--, item));
    }
    if (quirks.tombstoneEvery && (n + 1) % quirks.tombstoneEvery === 0) {
      entries.push(tombstoneEntry(tweet));
    }
  });

  const next: CursorState = filler
    ? { offset: 0, fillers: state.fillers + 1 }
    : { offset: state.offset + page.length, fillers: state.fillers };
  const atEnd = !filler && state.offset + page.length >= all.length;
  const back: CursorState = {
    offset: Math.max(0, state.offset - request.count),
    fillers: state.fillers,
  };
  const bottom =
    quirks.repeatCursor && request.cursor
      ? request.cursor
      : encodeCursor(quirks.alternateCursors && atEnd ? back : next);
  const cursor = (type: 'Top' | 'Bottom', value: string) => ({
    entryId: `cursor-${type.toLowerCase()}-${sortIndex}`,
    sortIndex: String(sortIndex--),
    content: {
      __typename: 'TimelineTimelineCursor',
      entryType: 'TimelineTimelineCursor',
      cursorType: type,
      value,
    },
  });
  entries.push(cursor('Top', `${CURSOR_PREFIX}dG9w`), cursor('Bottom', bottom));

  const instructions: Record<string, unknown>[] = [{ type: 'TimelineClearCache' }];
  // The oldest post pinned on top, as profiles often have: out of order, a client leaves it out.
  const pinned = all[all.length - 1];
  if (!request.cursor && pinned) {
    instructions.push({
      type: 'TimelinePinEntry',
      entry: itemEntry(
        `tweet-${pinned.id}`,
        serial + 1n,
        tweetItem(wireTweet(pinned, user, shape), {
          socialContext: { type: 'TimelineGeneralContext', contextType: 'Pin', text: 'Pinned' },
        }),
      ),
    });
  }
  instructions.push({ type: 'TimelineAddEntries', entries });
  return {
    user: {
      result: {
        __typename: 'User',
        timeline: {
          timeline: {
            instructions,
            metadata: {
              scribeConfig: { page: kind === 'UserTweets' ? 'profileBest' : 'profileAll' },
            },
          },
        },
      },
    },
  };
}
