import type {
  XWebAccount,
  XWebAccounts,
  XWebOperations,
  XWebOperationView,
  XWebPoolState,
} from '@perch/shared';

/** The pool while X lets web requests through. */
export const POOL_RUNNING: XWebPoolState = {
  paused_until: null,
  pause_reason: null,
  paused_since: null,
};

/** An ISO instant `ms` from the real clock (negative: in the past). */
export const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

export function makeXWebAccount(overrides: Partial<XWebAccount> = {}): XWebAccount {
  return {
    id: 1,
    username: 'orbit_reader',
    auth_method: 'cookies',
    has_totp: false,
    status: 'ACTIVE',
    status_reason: null,
    challenge_step: null,
    challenge_since: null,
    limits: [],
    resting_until: null,
    last_error: null,
    last_error_at: null,
    last_used_at: null,
    created_at: '2025-03-01T10:00:00.000Z',
    ...overrides,
  };
}

/** The pool's answer: in use, running, with these accounts. */
export function makeXWebPool(overrides: Partial<XWebAccounts> = {}): XWebAccounts {
  return { in_use: true, accounts: [], pool: POOL_RUNNING, ...overrides };
}

export function makeXWebOperation(
  overrides: Partial<XWebOperationView> & Pick<XWebOperationView, 'name'>,
): XWebOperationView {
  return {
    query_id: `${overrides.name.slice(0, 6)}Qid0123456789`,
    features: { rweb_video_screen_enabled: false, responsive_web_graphql_exclude_directive: true },
    field_toggles: { withArticlePlainText: false },
    source: 'bundle',
    seen_at: fromNow(-5 * 60_000),
    bundle_query_id: null,
    ...overrides,
  };
}

/** The five operations, one from each source, read from x.com five minutes ago. */
export function makeXWebOperations(overrides: Partial<XWebOperations> = {}): XWebOperations {
  return {
    operations: [
      makeXWebOperation({ name: 'UserByScreenName', query_id: 'G3KGOASz96M_Qu0CwSx1ZA' }),
      makeXWebOperation({
        name: 'UserTweetsAndReplies',
        query_id: 'pinnedQueryId_0001',
        source: 'admin',
        seen_at: null,
        bundle_query_id: 'bundleQueryId_0001',
      }),
      makeXWebOperation({ name: 'UserTweets', query_id: 'E3opETHurmVJflFsUBVuUQ' }),
      makeXWebOperation({
        name: 'UsersByRestIds',
        query_id: 'defaultQueryId_01',
        source: 'default',
        seen_at: null,
        features: {},
        field_toggles: {},
      }),
      makeXWebOperation({
        name: 'TweetResultsByRestIds',
        query_id: 'fileQueryId_000001',
        source: 'file',
        seen_at: null,
        bundle_query_id: 'bundleQueryId_0002',
      }),
    ],
    checked_at: fromNow(-5 * 60_000),
    refreshed_at: fromNow(-5 * 60_000),
    refresh_error: null,
    next_check_at: fromNow(6 * 60 * 60_000 - 5 * 60_000),
    overrides_file: null,
    ...overrides,
  };
}
