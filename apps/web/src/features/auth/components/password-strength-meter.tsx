import { passwordStrength, type StrengthLevel } from '@perch/shared';
import { IconCheck, IconX } from '@tabler/icons-react';
import type { CSSProperties } from 'react';
import classes from './password-checks.module.css';

/** The colour of each level, one of plain-theme.css's (--perch-color-<colour>-filled, -text). */
const LEVEL_COLORS: Record<StrengthLevel, string> = {
  'Very Weak': 'red',
  Weak: 'orange',
  Fair: 'yellow',
  Good: 'teal',
  Strong: 'green',
};

/** The CSS variables of a colour of the plain theme, as the meter's parts use them. */
export function checkColor(color: string): CSSProperties {
  return {
    '--check-filled': `var(--perch-color-${color}-filled)`,
    '--check-text': `var(--perch-color-${color}-text)`,
  } as CSSProperties;
}

export interface PasswordStrengthMeterProps {
  password: string;
}

/**
 * Strength bar, level, common-password warning and the requirement checklist.
 * Shown as guidance; only the minimum length is enforced at submit.
 */
export function PasswordStrengthMeter({ password }: PasswordStrengthMeterProps) {
  if (password === '') return null;
  const strength = passwordStrength(password);
  const value = Math.max(strength.percent, 4);
  return (
    <div
      className={classes.meter}
      aria-live="polite"
      style={checkColor(LEVEL_COLORS[strength.level])}
    >
      <div className={classes.track}>
        <div
          className={classes.bar}
          style={{ width: `${value}%` }}
          role="progressbar"
          aria-label="Strength meter"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={value}
          aria-valuetext={`${value}%`}
        />
      </div>
      <p className={`${classes.small} ${classes.dimmed}`}>
        Strength:{' '}
        <span
          className={`${classes.level} ${classes.coloured}`}
          data-testid="password-strength-level"
        >
          {strength.level}
        </span>
      </p>
      {strength.warning ? (
        <p
          className={`${classes.small} ${classes.coloured}`}
          style={checkColor('red')}
          role="status"
        >
          {strength.warning}
        </p>
      ) : null}
      <ul className={classes.requirements} aria-label="Requirements">
        {strength.requirements.map((requirement) => (
          <li key={requirement.id} className={classes.requirement} data-met={requirement.met}>
            <div className={classes.requirementRow}>
              <span className={classes.mark} data-met={requirement.met} aria-hidden>
                {requirement.met ? <IconCheck size={11} /> : <IconX size={11} />}
              </span>
              <span>
                <span className={classes.visuallyHidden}>
                  {requirement.met ? 'Met: ' : 'Not met: '}
                </span>
                <span
                  className={
                    requirement.met
                      ? classes.requirementText
                      : `${classes.requirementText} ${classes.dimmed}`
                  }
                >
                  {requirement.label}
                </span>
              </span>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
