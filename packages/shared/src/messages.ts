/** Human texts of the error catalogue (docs/spec-notes.md, Error texts), both sides. */
export const MESSAGES = {
  authNotInitialized: 'Auth not initialized',
  loginWrongCredentials: 'The username or password you entered is incorrect. Please try again.',
  loginTooManyAttempts: 'Too many login attempts. Please wait a moment and try again.',
  loginInvalidData: 'Invalid login data. Please check your input.',
  loginServerError: 'Server error during login. Please try again later.',
  networkError: 'Network error. Please check your connection and try again.',
  unexpectedError: 'An unexpected error occurred. Please try again.',
  loginFailed: 'Login failed',
  loginUsernameRequired: 'Please enter your username',
  loginPasswordRequired: 'Please enter your password',

  registerInviteNotFound: 'Invitation code not found. Please check your code and try again.',
  registerUsernameTaken: 'This username is already taken. Please choose a different one.',
  registerEmailTaken:
    'This email is already registered. Please use a different email or try logging in.',
  registerInviteUsed: 'This invitation code has already been used.',
  registerInviteExpired: 'This invitation code has expired.',
  registerConflict: 'Username or email already exists.',
  registerInvalidData: 'Invalid registration data. Please check your information.',
  registerServerError: 'Server error during registration. Please try again later.',
  registerUnexpected: 'An unexpected error occurred during registration.',
  registerFailed: 'Registration failed',
  registerFillAll: 'Please fill in all fields',
  passwordsDoNotMatch: 'Passwords do not match',
  invalidInvitation: 'Invalid invitation code',
  inviteValid: 'Invitation code is valid.',

  invalidJsonResponse: 'Invalid JSON response',
  duplicateRequest: 'Duplicate request canceled',
  notAuthenticated: 'Authentication required. Please sign in.',
  csrfInvalid: 'Security token missing or invalid. Please reload the page and try again.',
  forbidden: 'You do not have permission to do that.',
  notFound: 'The requested resource was not found.',
  malformedJson: 'The request body is not valid JSON.',
  unsupportedMediaType: 'Send the request body as JSON (Content-Type: application/json).',
  payloadTooLarge: 'The request body is too large (limit 1 MiB).',
  invalidRequest: 'The request is invalid.',
  internalError: 'Something went wrong on our side. Please try again later.',
  commonPassword:
    'This password is too common and easily guessable. Please choose a more unique password.',
  /** A new password on the list of common and breached passwords (refused, under the field). */
  passwordTooCommon: 'This password is too common. Please choose a different one.',
  /** Every password check of the server is taken (503 with Retry-After). */
  serverBusy: 'The server is busy. Please wait a moment and try again.',
} as const;
