/**
 * The error and empty-state texts of the product spec, as data: every text in single quotes of
 * section 8 "Error catalogue" (8.1 to 8.6) of product-spec-2-calls-errors-constants.md, copied word
 * for word and in the spec's order. The spec lives outside this repository, so the list is kept
 * here; tests/spec-texts.test.ts holds the code to it. When the spec's catalogue changes, change
 * this list with it.
 *
 * - `text`: the spec's words, placeholders as the spec writes them ({id}, @x, n/5, ...).
 * - `where`: the spec's place: its subsection, and the lead of its bullet where there is one.
 * - `shownBy`: the source file that holds the words the app shows (the constant or template the
 *   screen or the server's answer uses), or null when Perch does not show the text; then
 *   docs/spec-notes.md, Deliberate differences, must have a row quoting it and saying why.
 * - `shownAs`: how the code builds a text with a variable part, {name} standing for the variable,
 *   when the spec writes the variable differently.
 * - `note`: what the spec says besides the text.
 */
export interface SpecText {
  text: string;
  where: string;
  shownBy: string | null;
  shownAs?: string;
  note?: string;
}

export const SPEC_TEXTS: readonly SpecText[] = [
  {
    text: 'Duplicate request canceled',
    where: '8.1 Session and transport',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Invalid JSON response',
    where: '8.1 Session and transport',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Invalid response format',
    where: '8.1 Session and transport',
    shownBy: 'apps/web/src/lib/api-client.ts',
  },
  { text: 'No authentication token', where: '8.1 Session and transport', shownBy: null },
  { text: 'Authentication failed', where: '8.1 Session and transport', shownBy: null },
  { text: 'Failed to fetch handles', where: '8.1 Session and transport', shownBy: null },
  { text: 'Failed to fetch progress', where: '8.1 Session and transport', shownBy: null },
  {
    text: 'Progress fetch failed: {status} {statusText} - {body}',
    where: '8.1 Session and transport, Progress fetch failure',
    shownBy: null,
  },
  {
    text: 'Unexpected Application Error!',
    where: '8.1 Session and transport, Router fallback page',
    shownBy: 'apps/web/src/app/routes/error-page.tsx',
  },
  {
    text: 'Page Not Found',
    where: '8.1 Session and transport, Router fallback page',
    shownBy: 'apps/web/src/app/routes/not-found.tsx',
  },
  { text: 'Auth not initialized', where: '8.2 Auth', shownBy: null },
  { text: 'Auth operation already in progress', where: '8.2 Auth', shownBy: null },
  { text: 'Invalid response from server', where: '8.2 Auth', shownBy: null },
  { text: 'Login failed', where: '8.2 Auth', shownBy: 'packages/shared/src/messages.ts' },
  { text: 'Registration failed', where: '8.2 Auth', shownBy: 'packages/shared/src/messages.ts' },
  {
    text: 'The username or password you entered is incorrect. Please try again.',
    where: '8.2 Auth, Login',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Too many login attempts. Please wait a moment and try again.',
    where: '8.2 Auth, Login',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Invalid login data. Please check your input.',
    where: '8.2 Auth, Login',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Server error during login. Please try again later.',
    where: '8.2 Auth, Login',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Network error. Please check your connection and try again.',
    where: '8.2 Auth, Login',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'An unexpected error occurred. Please try again.',
    where: '8.2 Auth, Login',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Invitation code not found. Please check your code and try again.',
    where: '8.2 Auth, Registration',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'This username is already taken. Please choose a different one.',
    where: '8.2 Auth, Registration',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'This email is already registered. Please use a different email or try logging in.',
    where: '8.2 Auth, Registration',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'This invitation code has already been used.',
    where: '8.2 Auth, Registration',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Username or email already exists.',
    where: '8.2 Auth, Registration',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Invalid registration data. Please check your information.',
    where: '8.2 Auth, Registration',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Server error during registration. Please try again later.',
    where: '8.2 Auth, Registration',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'An unexpected error occurred during registration.',
    where: '8.2 Auth, Registration',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Invalid invitation code',
    where: '8.2 Auth, Registration',
    shownBy: 'packages/shared/src/messages.ts',
  },
  {
    text: 'Already monitoring @x',
    where: '8.3 Handles, Add',
    shownBy: 'apps/web/src/features/handles/utils/handle-messages.ts',
    shownAs: 'Already monitoring @{name}',
  },
  {
    text: 'Failed to add handle',
    where: '8.3 Handles, Add',
    shownBy: 'apps/web/src/features/handles/utils/handle-messages.ts',
  },
  { text: 'System not ready, please try again', where: '8.3 Handles, Add', shownBy: null },
  {
    text: 'Failed to remove handle - please try again',
    where: '8.3 Handles, Remove',
    shownBy: 'apps/web/src/features/handles/utils/handle-messages.ts',
  },
  { text: 'Delete operation failed', where: '8.3 Handles, Remove', shownBy: null },
  {
    text: 'Failed to remove handle',
    where: '8.3 Handles, Remove',
    shownBy: 'apps/web/src/features/handles/utils/handle-messages.ts',
  },
  {
    text: 'Failed to toggle telegram notification',
    where: '8.3 Handles',
    shownBy: 'packages/shared/src/contracts/settings.ts',
    shownAs: 'Failed to toggle {channel} notification',
    note: 'The spec adds: (or discord).',
  },
  {
    text: 'Invalid Twitter handle provided',
    where: '8.3 Handles',
    shownBy: 'apps/web/src/features/handles/utils/handle-messages.ts',
  },
  {
    text: 'Failed to load handles (attempt n/5)',
    where: '8.3 Handles',
    shownBy: 'apps/web/src/lib/resilience/retry-texts.ts',
    shownAs: 'Failed to load handles (attempt {attempt}/{maxAttempts})',
  },
  {
    text: 'Failed to switch to @handle',
    where: '8.3 Handles',
    shownBy: 'apps/web/src/lib/resilience/retry-texts.ts',
    shownAs: 'Failed to switch to @{handle}',
  },
  { text: 'Failed to initialize analytics store', where: '8.3 Handles', shownBy: null },
  {
    text: 'Failed to load analytics data',
    where: '8.4 Analytics',
    shownBy: 'packages/shared/src/contracts/analytics.ts',
  },
  { text: 'Failed to fetch analytics data', where: '8.4 Analytics', shownBy: null },
  {
    text: 'Failed to refresh analytics data',
    where: '8.4 Analytics',
    shownBy: 'packages/shared/src/contracts/analytics.ts',
  },
  { text: 'Failed to refresh data', where: '8.4 Analytics', shownBy: null },
  {
    text: 'No data available yet for this handle',
    where: '8.4 Analytics',
    shownBy: 'packages/shared/src/contracts/analytics.ts',
  },
  {
    text: 'Data mismatch detected, please refresh',
    where: '8.4 Analytics',
    shownBy: 'packages/shared/src/contracts/analytics.ts',
  },
  { text: 'Collection stuck at 0% - marked as failed', where: '8.4 Analytics', shownBy: null },
  {
    text: 'Failed to fetch profile analytics',
    where: '8.4 Analytics',
    shownBy: null,
    shownAs: 'Failed to fetch {section} analytics',
    note: 'The spec adds: (or posts, engagement, trends).',
  },
  {
    text: 'Failed to fetch settings',
    where: '8.5 Settings and integrations',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Telegram settings saved successfully.',
    where: '8.5 Settings and integrations',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Failed to save Telegram settings.',
    where: '8.5 Settings and integrations',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Telegram disconnected successfully!',
    where: '8.5 Settings and integrations',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Failed to disconnect Telegram.',
    where: '8.5 Settings and integrations',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Telegram test successful! You should receive a test message in your Telegram client.',
    where: '8.5 Settings and integrations',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'chat not found',
    where: '8.5 Settings and integrations',
    shownBy: 'apps/web/src/features/settings/utils/settings-messages.ts',
    note: 'A condition (the test error contains it), not a text shown.',
  },
  {
    text: 'Test message failed. Please double-check the Chat ID...',
    where: '8.5 Settings and integrations',
    shownBy: 'packages/shared/src/contracts/settings.ts',
    shownAs: 'Test message failed. Please double-check the Chat ID{rest}',
  },
  {
    text: 'bot was blocked',
    where: '8.5 Settings and integrations',
    shownBy: 'apps/web/src/features/settings/utils/settings-messages.ts',
    note: 'A condition (the test error contains it), not a text shown.',
  },
  {
    text: 'The bot has been blocked by the user. Please unblock our bot in Telegram and try again.',
    where: '8.5 Settings and integrations',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Error testing Telegram connection: {message}',
    where: '8.5 Settings and integrations',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Discord settings saved successfully.',
    where: '8.5 Settings and integrations, Discord',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Failed to save Discord settings.',
    where: '8.5 Settings and integrations, Discord',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Discord disconnected successfully.',
    where: '8.5 Settings and integrations, Discord',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Failed to disconnect from Discord.',
    where: '8.5 Settings and integrations, Discord',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Discord test connection successful! Please check your DMs.',
    where: '8.5 Settings and integrations, Discord',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Failed to test Discord connection.',
    where: '8.5 Settings and integrations, Discord',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: "API configuration issue: The server doesn't support the requested operation.",
    where: '8.5 Settings and integrations, Bot',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Network error: Unable to connect to the API server.',
    where: '8.5 Settings and integrations, Bot',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Failed to start bot: {message}',
    where: '8.5 Settings and integrations, Bot',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Invalid response from server when starting bot',
    where: '8.5 Settings and integrations, Bot',
    shownBy: 'packages/shared/src/contracts/settings.ts',
  },
  {
    text: 'Could not connect to API',
    where: '8.5 Settings and integrations, Health',
    shownBy: 'packages/shared/src/polling.ts',
  },
  {
    text: 'Health check timeout',
    where: '8.5 Settings and integrations, Health',
    shownBy: 'packages/shared/src/polling.ts',
  },
  {
    text: 'No previous result available',
    where: '8.5 Settings and integrations, Health',
    shownBy: null,
  },
  {
    text: 'API connection issue detected!',
    where: '8.5 Settings and integrations, Health',
    shownBy: null,
  },
  {
    text: 'Failed to fetch users',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to fetch handles for user {id}',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to fetch Twitter challenge status',
    where: '8.6 Admin, Fallbacks',
    shownBy: null,
  },
  { text: 'Failed to submit Twitter challenge code', where: '8.6 Admin, Fallbacks', shownBy: null },
  {
    text: 'Failed to globally delete handle {id}',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to fetch all system handles',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to fetch active processes',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to stop process for handle {id}',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to start/resume process for handle {id}',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to clear data for handle {id}',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'User ID and Handle ID are required.',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Handle ID is required to ...',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
    shownAs: 'Handle ID is required to {action}',
  },
  {
    text: 'User ID is required to fetch handles.',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Verification code is required and must be a non-empty string.',
    where: '8.6 Admin, Fallbacks',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to load users.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to load handles for user {id}.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to load system handles.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to delete handle @{handle}.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to remove handle @{handle} from user.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to fetch handles.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to fetch Twitter challenge status.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to submit verification code.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to clear data for @{handle}.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Successfully deleted handle @{handle}.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Successfully removed handle @{handle} from user.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Successfully cleared data for handle @{handle}. Scraper will re-initialize for it.',
    where: '8.6 Admin, UI texts',
    shownBy: 'packages/shared/src/contracts/admin.ts',
  },
  {
    text: 'Failed to load security events',
    where: '8.6 Admin, Security',
    shownBy: 'packages/shared/src/contracts/security.ts',
  },
];
