import { MESSAGES } from '@perch/shared';
import { IconCheck, IconX } from '@tabler/icons-react';
import classes from './password-checks.module.css';
import { checkColor } from './password-strength-meter';

export const PASSWORDS_MATCH_TEXT = 'Passwords match';

export interface PasswordMatchIndicatorProps {
  password: string;
  confirmPassword: string;
}

/** Live 'Passwords match' / 'Passwords do not match' under the confirmation field. */
export function PasswordMatchIndicator({ password, confirmPassword }: PasswordMatchIndicatorProps) {
  if (confirmPassword === '') return null;
  const matches = password === confirmPassword;
  return (
    <div className={classes.match} style={checkColor(matches ? 'teal' : 'red')} aria-live="polite">
      {matches ? <IconCheck size={14} aria-hidden /> : <IconX size={14} aria-hidden />}
      <p className={classes.small} data-testid="password-match">
        {matches ? PASSWORDS_MATCH_TEXT : MESSAGES.passwordsDoNotMatch}
      </p>
    </div>
  );
}
