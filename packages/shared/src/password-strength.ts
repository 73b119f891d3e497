import { PASSWORD_MIN_LENGTH } from './constants.js';
import { MESSAGES } from './messages.js';

/** The 25 passwords rated Very Weak whatever their shape. */
export const COMMON_PASSWORDS: readonly string[] = [
  'password',
  '123456',
  '123456789',
  '12345678',
  '12345',
  'qwerty',
  'abc123',
  'password1',
  '111111',
  '123123',
  'admin',
  'letmein',
  'welcome',
  'monkey',
  '1234567',
  'iloveyou',
  'dragon',
  'sunshine',
  'princess',
  'football',
  'qwerty123',
  '1234567890',
  '000000',
  'password123',
  'trustno1',
];

/** True for a password on the list above, in any case. */
export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.includes(password.toLowerCase());
}

export type StrengthLevel = 'Very Weak' | 'Weak' | 'Fair' | 'Good' | 'Strong';

export interface PasswordRequirement {
  id: 'length' | 'uppercase' | 'lowercase' | 'number' | 'special';
  label: string;
  met: boolean;
}

export interface PasswordStrength {
  /** 0-100 */
  percent: number;
  level: StrengthLevel;
  requirements: PasswordRequirement[];
  /** Set when the password is on the common list. */
  warning?: string;
}

const BONUS_LENGTHS = [12, 16];
const MAX_SCORE = 5 + BONUS_LENGTHS.length;

/** Level for a percentage: under 20 Very Weak, 40 Weak, 60 Fair, 80 Good, else Strong. */
export function strengthLevel(percent: number): StrengthLevel {
  if (percent < 20) return 'Very Weak';
  if (percent < 40) return 'Weak';
  if (percent < 60) return 'Fair';
  if (percent < 80) return 'Good';
  return 'Strong';
}

/**
 * Rates a password for the strength meter: one point per met requirement, one more at 12 and
 * at 16 characters. Shown to the user, never enforced at submit beyond the minimum length.
 */
export function passwordStrength(password: string): PasswordStrength {
  const requirements: PasswordRequirement[] = [
    {
      id: 'length',
      label: `At least ${PASSWORD_MIN_LENGTH} characters`,
      met: password.length >= PASSWORD_MIN_LENGTH,
    },
    { id: 'uppercase', label: 'An uppercase letter', met: /[A-Z]/.test(password) },
    { id: 'lowercase', label: 'A lowercase letter', met: /[a-z]/.test(password) },
    { id: 'number', label: 'A number', met: /[0-9]/.test(password) },
    { id: 'special', label: 'A special character', met: /[^A-Za-z0-9]/.test(password) },
  ];
  if (isCommonPassword(password)) {
    return { percent: 0, level: 'Very Weak', requirements, warning: MESSAGES.commonPassword };
  }
  const score =
    requirements.filter((r) => r.met).length +
    BONUS_LENGTHS.filter((length) => password.length >= length).length;
  const percent = Math.round((score / MAX_SCORE) * 100);
  return { percent, level: strengthLevel(percent), requirements };
}
