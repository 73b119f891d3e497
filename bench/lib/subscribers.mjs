// The notification benchmarks' world, seeded straight into the built server's repositories (as
// userWithChannels and handleFollowedBy do in apps/server/test/notify-helpers.ts): users with
// Telegram and Discord set up, handles all of them follow with both channels on, and the posts
// that monitoring would store for those handles.

/**
 * Inserts `users` users and `handles` handles into `db` (a Kysely database of the built server)
 * through `repositories` ({ insertUser, upsertUserSettings, insertHandle, insertLink,
 * setHandleNotifications }, loaded from the build the benchmark runs). User `i` is
 * `userName(i)` with chat `chatIdOf(i)` and Discord user `discordIdOf(i)`; handle `h` is
 * `handleName(h)`, then updated with `handleFields(h, now)` (backfilled, next poll far away, so
 * collectors leave it be). Every user follows every handle. Returns both lists of ids.
 */
export async function seedSubscribedHandles(db, repositories, options) {
  const { insertUser, upsertUserSettings, insertHandle, insertLink, setHandleNotifications } =
    repositories;
  const now = new Date().toISOString();
  const userIds = [];
  for (let i = 0; i < options.users; i++) {
    const username = options.userName(i);
    const user = await insertUser(db, {
      username,
      email: `${username}@example.com`,
      passwordHash: 'not-used',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: now,
    });
    await upsertUserSettings(db, user.id, {
      telegram_chat_id: options.chatIdOf(i),
      discord_user_id: options.discordIdOf(i),
      twitter_username: `${username}_x`,
      bot_running: true,
      updated_at: now,
    });
    userIds.push(user.id);
  }
  const handleIds = [];
  for (let h = 0; h < options.handles; h++) {
    const handle = await insertHandle(db, {
      username: options.handleName(h),
      backfillDays: 7,
      now,
    });
    await db
      .updateTable('handles')
      .set(options.handleFields(h, now))
      .where('id', '=', handle.id)
      .execute();
    for (const userId of userIds) {
      await insertLink(db, { userId, handleId: handle.id, backfillDays: 7, now });
      await setHandleNotifications(db, userId, handle.id, {
        telegram_enabled: true,
        discord_enabled: true,
      });
    }
    handleIds.push(handle.id);
  }
  return { userIds, handleIds };
}

/**
 * A maker of posts as a source returns them (SourceTweet), with rising ids after `lastId` (a
 * BigInt) and the text `textOf(id)`: `(createdAt) => post`. The counts are those of the server
 * tests' makeTweet.
 */
export function postMaker(lastId, textOf) {
  let seq = lastId;
  return (createdAt) => {
    seq += 1n;
    return {
      id: String(seq),
      text: textOf(seq),
      createdAt,
      lang: 'en',
      likeCount: 1,
      retweetCount: 2,
      replyCount: 3,
      quoteCount: 4,
      impressionCount: 100,
      conversationId: null,
      inReplyToUserId: null,
      referencedTypes: [],
      hashtags: [],
      urls: [],
      media: [],
    };
  };
}
