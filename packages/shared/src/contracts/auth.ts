import { z } from 'zod';
import {
  DEVICE_INFO_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  ROLES,
  USERNAME_PATTERN,
} from '../constants.js';
import { MESSAGES } from '../messages.js';

const required = (message: string) => z.string({ error: message }).trim().min(1, message);

export const usernameSchema = z
  .string()
  .trim()
  .regex(
    USERNAME_PATTERN,
    'Username must be 3-32 characters of letters, digits, underscores, dots or hyphens.',
  );

export const emailSchema = z.string().trim().pipe(z.email('Please enter a valid email address.'));

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters long.`)
  .max(256, 'Password must be at most 256 characters long.');

export const deviceInfoSchema = z
  .object({
    userAgent: z
      .string()
      .max(1000)
      .transform((value) => value.slice(0, DEVICE_INFO_MAX_LENGTH))
      .optional(),
    platform: z.string().max(100).optional(),
    language: z.string().max(50).optional(),
  })
  .optional();

export const loginRequestSchema = z.object({
  /** Username or email. */
  username: required(MESSAGES.loginUsernameRequired).pipe(z.string().max(254)),
  password: z
    .string({ error: MESSAGES.loginPasswordRequired })
    .min(1, MESSAGES.loginPasswordRequired)
    .max(256),
  rememberMe: z.boolean().default(false),
  deviceInfo: deviceInfoSchema,
});
export type LoginRequest = z.input<typeof loginRequestSchema>;

/** Every field first must be present ('Please fill in all fields'), then match and shape rules. */
export const registerRequestSchema = z
  .object({
    username: required(MESSAGES.registerFillAll).pipe(usernameSchema),
    email: required(MESSAGES.registerFillAll).pipe(emailSchema),
    password: z
      .string({ error: MESSAGES.registerFillAll })
      .min(1, MESSAGES.registerFillAll)
      .pipe(passwordSchema),
    confirmPassword: z.string({ error: MESSAGES.registerFillAll }).min(1, MESSAGES.registerFillAll),
    invitationCode: required(MESSAGES.registerFillAll).pipe(z.string().max(128)),
    acceptTerms: z.boolean().optional(),
    acceptPrivacy: z.boolean().optional(),
  })
  .refine((body) => body.password === body.confirmPassword, {
    message: MESSAGES.passwordsDoNotMatch,
    path: ['confirmPassword'],
  });
export type RegisterRequest = z.input<typeof registerRequestSchema>;

export const verifyInviteRequestSchema = z.object({
  code: required(MESSAGES.invalidInvitation).pipe(z.string().max(128)),
});

export const verifyInviteResponseSchema = z.object({
  valid: z.boolean(),
  message: z.string(),
});

export const roleSchema = z.enum(ROLES);

export const userSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string(),
  isAdmin: z.boolean(),
  isSuperAdmin: z.boolean(),
  profile: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
});
export type User = z.infer<typeof userSchema>;

export const loginResponseSchema = z.object({
  user: userSchema,
  session: z.object({
    authMethod: z.literal('cookie'),
    rememberMe: z.boolean(),
    expiresAt: z.string(),
  }),
  message: z.string(),
  csrfToken: z.string(),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

/**
 * The answer to a right password for an account with two-factor sign-in: no session yet; the
 * code goes to POST /auth/login/2fa (the pending step rides in an HttpOnly cookie).
 */
export const loginTwoFactorChallengeSchema = z.object({
  requires2fa: z.literal(true),
  message: z.string(),
});
export type LoginTwoFactorChallenge = z.infer<typeof loginTwoFactorChallengeSchema>;

/** POST /auth/login answers a signed-in session, or asks for the second step. */
export const loginResultSchema = z.union([loginResponseSchema, loginTwoFactorChallengeSchema]);
export type LoginResult = z.infer<typeof loginResultSchema>;

export const registerResponseSchema = z.object({
  user: userSchema,
  message: z.string(),
  csrfToken: z.string(),
});
export type RegisterResponse = z.infer<typeof registerResponseSchema>;

export const authCheckResponseSchema = z.object({
  authenticated: z.boolean(),
  userId: z.number().int().optional(),
  username: z.string().optional(),
  email: z.string().optional(),
  isAdmin: z.boolean().optional(),
  isSuperAdmin: z.boolean().optional(),
  profile: z.record(z.string(), z.unknown()).nullable().optional(),
  csrfToken: z.string(),
  message: z.string().optional(),
});
export type AuthCheckResponse = z.infer<typeof authCheckResponseSchema>;

export const logoutRequestSchema = z
  .object({
    user_id: z.union([z.number(), z.string().max(64)]).optional(),
    action: z.string().max(64).optional(),
  })
  .optional();

// ---------------------------------------------------------------------------------------------
// Step-up: POST /auth/reauthenticate, and the refusal of a sensitive change without it
// ---------------------------------------------------------------------------------------------

/** The words of the step-up, on the server and in the dialog that asks for the proof. */
export const STEP_UP_MESSAGES = {
  required:
    'For your security, confirm it is you: enter your password (or a two-factor code) to make this change.',
  confirmed: 'Thanks. You can make sensitive changes for the next 5 minutes.',
  proofRequired: 'Enter your password or a two-factor code.',
  passwordWrong: 'That password is not correct.',
  codeNotEnabled: 'Two-factor sign-in is off for this account: confirm with your password.',
} as const;

/** POST /auth/reauthenticate: the current password, or a two-factor (or recovery) code. */
export const reauthenticateRequestSchema = z
  .object({
    password: z.string().max(256).optional(),
    code: z.string().trim().max(64).optional(),
  })
  .refine((body) => Boolean(body.password) !== Boolean(body.code), {
    message: STEP_UP_MESSAGES.proofRequired,
  });
export type ReauthenticateRequest = z.input<typeof reauthenticateRequestSchema>;

export const reauthenticateResponseSchema = z.object({
  /** When the proof was given (now). */
  authenticatedAt: z.string(),
  /** Until when sensitive changes go through without asking again. */
  validUntil: z.string(),
});
export type ReauthenticateResponse = z.infer<typeof reauthenticateResponseSchema>;
