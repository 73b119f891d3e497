import type { Migration } from 'kysely';
import type { Dialect } from '../index.js';
import { columnKinds } from './column-kinds.js';
import { foundation } from './0001-foundation.js';
import { collection } from './0002-collection.js';
import { analytics } from './0003-analytics.js';
import { notifications } from './0004-notifications.js';
import { deliveryParts } from './0005-delivery-parts.js';
import { admin } from './0006-admin.js';
import { security } from './0007-security.js';
import { xBudget } from './0008-x-budget.js';
import { deliveryOwnership } from './0009-delivery-ownership.js';
import { deliveryChats } from './0010-delivery-chats.js';
import { scaleOut } from './0011-scale-out.js';
import { tweetSearch } from './0012-tweet-search.js';
import { filtersAndFeeds } from './0013-filters-and-feeds.js';
import { xWebAccounts } from './0014-x-web-accounts.js';
import { xWebOperations } from './0015-x-web-operations.js';
import { pollCatchUp } from './0016-poll-catch-up.js';
import { signInLimits } from './0017-sign-in-limits.js';
import { sessionLifetimes } from './0018-session-lifetimes.js';
import { secretsAtRest } from './0019-secrets-at-rest.js';
import { metricSnapshotTimes } from './0020-metric-snapshot-times.js';
import { alertsAndWebhooks } from './0021-alerts-and-webhooks.js';
import { alertMarks } from './0022-alert-marks.js';
import { alertMarkPages } from './0023-alert-mark-pages.js';
import { tweetWordDays } from './0024-tweet-word-days.js';
import { searchIndexByStatement } from './0025-search-index-by-statement.js';
import { partialTweetIndexes } from './0026-partial-tweet-indexes.js';

/** Every migration, in order. Names sort lexically; never rename or edit a shipped one. */
export function migrations(dialect: Dialect): Record<string, Migration> {
  const kinds = columnKinds(dialect);
  return {
    '0001-foundation': foundation(kinds),
    '0002-collection': collection(kinds),
    '0003-analytics': analytics(),
    '0004-notifications': notifications(kinds),
    '0005-delivery-parts': deliveryParts(),
    '0006-admin': admin(kinds),
    '0007-security': security(kinds),
    '0008-x-budget': xBudget(kinds),
    '0009-delivery-ownership': deliveryOwnership(),
    '0010-delivery-chats': deliveryChats(),
    '0011-scale-out': scaleOut(kinds),
    '0012-tweet-search': tweetSearch(dialect),
    '0013-filters-and-feeds': filtersAndFeeds(kinds),
    '0014-x-web-accounts': xWebAccounts(kinds),
    '0015-x-web-operations': xWebOperations(kinds),
    '0016-poll-catch-up': pollCatchUp(),
    '0017-sign-in-limits': signInLimits(),
    '0018-session-lifetimes': sessionLifetimes(),
    '0019-secrets-at-rest': secretsAtRest(dialect),
    '0020-metric-snapshot-times': metricSnapshotTimes(),
    '0021-alerts-and-webhooks': alertsAndWebhooks(kinds, dialect),
    '0022-alert-marks': alertMarks(kinds),
    '0023-alert-mark-pages': alertMarkPages(kinds, dialect),
    '0024-tweet-word-days': tweetWordDays(),
    '0025-search-index-by-statement': searchIndexByStatement(dialect),
    '0026-partial-tweet-indexes': partialTweetIndexes(),
  };
}
