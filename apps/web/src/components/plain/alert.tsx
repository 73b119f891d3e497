import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import { useId, type ReactNode } from 'react';
import classes from './alert.module.css';

export interface AlertProps {
  /** A red banner for a failure, a green one for a success. */
  kind: 'error' | 'success';
  children: ReactNode;
  /** Given, the banner has a Dismiss button that calls it. */
  onDismiss?: () => void;
}

/**
 * A banner drawn as Mantine's light Alert, announced as Mantine's is (role alert, described by
 * its message).
 */
export function Alert({ kind, children, onDismiss }: AlertProps) {
  const messageId = useId();
  const Icon = kind === 'error' ? IconAlertCircle : IconCircleCheck;
  return (
    <div className={classes.alert} data-kind={kind} role="alert" aria-describedby={messageId}>
      <div className={classes.wrapper}>
        <div className={classes.icon}>
          <Icon size={18} />
        </div>
        <div className={classes.message} id={messageId}>
          {children}
        </div>
        {onDismiss ? (
          <button type="button" className={classes.close} aria-label="Dismiss" onClick={onDismiss}>
            <svg viewBox="0 0 15 15" fill="none" aria-hidden>
              <path
                d="M11.7816 4.03157C12.0062 3.80702 12.0062 3.44295 11.7816 3.2184C11.5571 2.99385 11.193 2.99385 10.9685 3.2184L7.50005 6.68682L4.03164 3.2184C3.80708 2.99385 3.44301 2.99385 3.21846 3.2184C2.99391 3.44295 2.99391 3.80702 3.21846 4.03157L6.68688 7.49999L3.21846 10.9684C2.99391 11.193 2.99391 11.557 3.21846 11.7816C3.44301 12.0061 3.80708 12.0061 4.03164 11.7816L7.50005 8.31316L10.9685 11.7816C11.193 12.0061 11.5571 12.0061 11.7816 11.7816C12.0062 11.557 12.0062 11.193 11.7816 10.9684L8.31322 7.49999L11.7816 4.03157Z"
                fill="currentColor"
                fillRule="evenodd"
                clipRule="evenodd"
              />
            </svg>
          </button>
        ) : null}
      </div>
    </div>
  );
}
