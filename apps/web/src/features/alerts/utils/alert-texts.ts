import type { AlertDirection, AlertKindType, AlertMetric, AlertPeriod } from '@perch/shared';

/**
 * Words of the Alerts page that are not messages of the contract: titles, labels, hints, empty
 * states and fallbacks. What the server and the form's checks say are ALERT_MESSAGES of
 * @perch/shared, so a refusal reads the same whichever side spots it.
 */
export const ALERT_TEXTS = {
  pageTitle: 'Alerts',
  pageDescription:
    'Be told when a post of a handle you follow takes off, mentions certain words, or when a handle gains followers or goes quiet.',

  rulesTitle: 'Alert rules',
  rulesDescription: 'What each handle is watched for. Switch a rule off to pause it.',
  newAlert: 'New alert',
  add: 'Add',
  newAlertFor: (handle: string) => `New alert for @${handle}`,
  /** '3 of 50 alerts used'. */
  used: (count: number, limit: number) => `${count} of ${limit} alerts used`,
  loadingRules: 'Loading alerts',
  loadRulesFailed: 'Failed to load alerts',
  loadHandlesFailed: 'Failed to load handles',
  noHandlesTitle: 'Follow a handle first',
  noHandles:
    'Alerts watch the handles you follow. Add one on the dashboard, then come back to set up an alert for it.',
  goToDashboard: 'Go to the dashboard',
  noRulesTitle: 'No alerts yet',
  noRules:
    'An alert tells you when something happens: a post passes a number of likes, beats the usual engagement or mentions certain words, followers jump or drop, or a handle stops posting. Alerts go to the history below and to your notification channels.',
  /** The heading of a handle's group of rules. */
  rulesOf: (count: number) => `${count} ${count === 1 ? 'alert' : 'alerts'}`,
  enabledLabel: (name: string) => `${name} is on`,
  off: 'Off',
  edit: 'Edit',
  editLabel: (name: string) => `Edit ${name}`,
  delete: 'Delete',
  deleteLabel: (name: string) => `Delete ${name}`,
  deleteTitle: 'Delete alert',
  confirmDelete: (name: string, handle: string) =>
    `Delete the alert “${name}” for @${handle}? It stops watching at once; this cannot be undone.`,
  deleted: (name: string) => `Alert “${name}” deleted.`,
  deleteFailed: 'Failed to delete the alert',
  switchedOn: (name: string) => `Alert “${name}” switched on.`,
  switchedOff: (name: string) => `Alert “${name}” switched off.`,
  switchFailed: 'Failed to switch the alert',
  created: (name: string) => `Alert “${name}” created.`,
  saved: (name: string) => `Alert “${name}” saved.`,

  formCreateTitle: 'New alert',
  /** 'Edit alert for @nasa'. */
  formEditTitle: (handle: string) => `Edit alert for @${handle}`,
  formLabel: 'Alert',
  handleLabel: 'Handle',
  handleDescription: 'The followed handle this alert watches.',
  nameLabel: 'Name',
  nameDescription: 'Shown in the history and in the notification.',
  namePlaceholder: 'e.g. Big post',
  kindLabel: 'Alert when',
  metricLabel: 'Metric',
  thresholdLabel: 'Reaches at least',
  withinHoursLabel: 'Within hours of posting',
  withinHoursDescription: 'Posts older than this are no longer watched.',
  multipleLabel: 'Times the median',
  multipleDescription: "Likes, reposts, replies and quotes together, against the handle's median.",
  periodLabel: 'Median of',
  includeLabel: 'Posts with any of',
  includeDescription:
    'Words match whole words, whatever their case; type a phrase with its spaces. Press Enter or a comma after each one.',
  includePlaceholder: 'e.g. launch, landing',
  excludeLabel: 'But not with',
  excludeDescription: 'A post with any of these does not fire the alert.',
  excludePlaceholder: 'e.g. giveaway',
  directionLabel: 'Direction',
  percentLabel: 'By at least (%)',
  accountsLabel: 'Or by at least (accounts)',
  followerChangeDescription:
    'Within 24 hours. Fill in one or both: either is enough to fire the alert.',
  daysLabel: 'Days without a post',
  create: 'Create alert',
  save: 'Save alert',
  cancel: 'Cancel',
  saveFailed: 'The alert could not be saved. Please try again.',

  historyTitle: 'History',
  historyDescription: 'Alerts that fired, newest first.',
  handleFilterLabel: 'Handle',
  allHandles: 'All handles',
  exportJson: 'Export JSON',
  exportCsv: 'Export CSV',
  loadingHistory: 'Loading alert history',
  loadHistoryFailed: 'Failed to load alert history',
  loadMoreFailed: 'Failed to load more alerts',
  noFirings:
    'No alert has fired yet. When one does, it shows here with the numbers that set it off and a link to the post.',
  /** 'No alert has fired for @nasa yet.'. */
  noFiringsOf: (handle: string) => `No alert has fired for @${handle} yet.`,
  viewPost: 'View post',
  viewPostLabel: (rule: string) => `View the post that fired ${rule} on X`,
  loadMore: 'Load more',
  tryAgain: 'Try again',
  /** 'Showing 20'. */
  shown: (count: number) => `Showing ${count.toLocaleString('en-US')}`,
} as const;

/** The five kinds as a person reads them, in the order the kind select lists them. */
export const KIND_LABELS = {
  metric_threshold: 'Post passes a number',
  engagement_multiple: "Post beats the handle's median",
  words: 'Post mentions words',
  follower_change: 'Followers change',
  silence: 'No post for some days',
} as const satisfies Record<AlertKindType, string>;

/** The kind select's order: the post rules first, then the handle rules. */
export const KIND_ORDER: readonly AlertKindType[] = [
  'metric_threshold',
  'engagement_multiple',
  'words',
  'follower_change',
  'silence',
];

export const METRIC_LABELS = {
  likes: 'Likes',
  reposts: 'Reposts',
  replies: 'Replies',
  quotes: 'Quotes',
  views: 'Views',
} as const satisfies Record<AlertMetric, string>;

export const PERIOD_LABELS = {
  week: 'The last 7 days',
  month: 'The last 30 days',
} as const satisfies Record<AlertPeriod, string>;

export const DIRECTION_LABELS = {
  up: 'Up',
  down: 'Down',
  either: 'Either way',
} as const satisfies Record<AlertDirection, string>;
