/**
 * The database's tables as kysely sees them. The table types sit by area in db/types/ and are
 * re-exported here, so every import of db/types.js keeps working.
 */
import type { HandleStatus } from '../domain/collector-events.js';
import type {
  UsersTable,
  SessionsTable,
  InvitationsTable,
  LoginAttemptsTable,
  SignInHoldsTable,
  XAccountsTable,
  OauthStatesTable,
  SecurityEventsTable,
  RecoveryCodesTable,
  PendingLoginsTable,
} from './types/accounts.js';
import type {
  HandlesTable,
  UserHandlesTable,
  TweetsTable,
  ProfileSnapshotsTable,
  TweetMetricSnapshotsTable,
  TweetWordDaysTable,
  CollectorAccountTable,
  XBilledReadsTable,
  XApiStatusTable,
  ClusterNodesTable,
} from './types/collection.js';
import type {
  UserSettingsTable,
  NotificationOutboxTable,
  DeliveryChatLocksTable,
  FeedTokensTable,
  DeliveryChatsTable,
  TelegramLinkCodesTable,
} from './types/notifications.js';
import type {
  XWebAccountsTable,
  XWebOperationsTable,
  XWebOperationPinsTable,
  XWebStateTable,
  XWebLeasesTable,
} from './types/x-web.js';
import type {
  AlertRulesTable,
  AlertFiringsTable,
  AlertMarksTable,
  WebhookEndpointsTable,
} from './types/alerts.js';

export type { HandleStatus };
export type * from './types/columns.js';
export type * from './types/accounts.js';
export type * from './types/collection.js';
export type * from './types/notifications.js';
export type * from './types/x-web.js';
export type * from './types/alerts.js';

export interface Database {
  handles: HandlesTable;
  user_handles: UserHandlesTable;
  tweets: TweetsTable;
  profile_snapshots: ProfileSnapshotsTable;
  tweet_metric_snapshots: TweetMetricSnapshotsTable;
  tweet_word_days: TweetWordDaysTable;
  users: UsersTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  login_attempts: LoginAttemptsTable;
  sign_in_holds: SignInHoldsTable;
  user_settings: UserSettingsTable;
  notification_outbox: NotificationOutboxTable;
  delivery_chat_locks: DeliveryChatLocksTable;
  delivery_chats: DeliveryChatsTable;
  cluster_nodes: ClusterNodesTable;
  telegram_link_codes: TelegramLinkCodesTable;
  x_accounts: XAccountsTable;
  oauth_states: OauthStatesTable;
  security_events: SecurityEventsTable;
  collector_account: CollectorAccountTable;
  x_billed_reads: XBilledReadsTable;
  x_api_status: XApiStatusTable;
  recovery_codes: RecoveryCodesTable;
  pending_logins: PendingLoginsTable;
  feed_tokens: FeedTokensTable;
  x_web_accounts: XWebAccountsTable;
  x_web_operations: XWebOperationsTable;
  x_web_operation_pins: XWebOperationPinsTable;
  x_web_state: XWebStateTable;
  x_web_leases: XWebLeasesTable;
  alert_rules: AlertRulesTable;
  alert_firings: AlertFiringsTable;
  alert_marks: AlertMarksTable;
  webhook_endpoints: WebhookEndpointsTable;
}
