export {
  DEFAULT_PREFERENCES,
  PREFERENCES_STORAGE_KEY,
  createPreferencesStore,
  parsePreferences,
  preferencesStore,
  usePreferences,
  type Preferences,
  type PreferencesStore,
} from './preferences';
export { COMPACT_MODE_ATTRIBUTE, useApplyCompactMode } from './compact-mode';
export { RenderMonitor, logSlowRender, type RenderMonitorProps } from './render-monitor';
export {
  alertNewTweet,
  createNewTweetAlerter,
  getNotificationPermission,
  playNewTweetChime,
  requestNotificationPermission,
  type NewTweetAlerter,
  type NewTweetAlerterOptions,
  type NewTweetEvent,
  type NotificationPermissionState,
} from './new-tweet-alerts';
