import { LOGIN_ERROR_CLEAR_MS, SECURITY_MESSAGES, TOTP_DIGITS } from '@perch/shared';
import { IconArrowLeft, IconKey, IconShieldLock } from '@tabler/icons-react';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { FormMessages } from '@/components/form-messages';
import { TextButton } from '@/components/plain/button';
import { TextField } from '@/components/plain/text-field';
import { useLoginTwoFactorMutation } from '../api/login-two-factor';
import { SubmitButton } from './auth-fields';
import classes from './auth-form.module.css';
import { isTwoFactorLoginExpired, twoFactorErrorMessage } from '../utils/two-factor-errors';

type CodeKind = 'authenticator' | 'recovery';

const RECOVERY_HINT = 'Enter one of the recovery codes you saved when you turned two-factor on.';
const AUTHENTICATOR_CODE = new RegExp(`^\\d{${TOTP_DIGITS}}$`);

export interface TwoFactorStepProps {
  /** What the server said when it asked for the code. */
  message: string;
  /** Shown once the session is open, while the page moves on. */
  success: string | null;
  onSignedIn: () => void;
  /** The pending step is gone: back to the password, with the server's words. */
  onExpired: (message: string) => void;
  onBack: () => void;
}

/**
 * The second sign-in step of an account with two-factor sign-in: the authenticator app's
 * 6-digit code, or one recovery code.
 */
export function TwoFactorStep({
  message,
  success,
  onSignedIn,
  onExpired,
  onBack,
}: TwoFactorStepProps) {
  const verifyMutation = useLoginTwoFactorMutation();
  const [kind, setKind] = useState<CodeKind>('authenticator');
  const [code, setCode] = useState('');
  const [errorMessage, setErrorMessage] = useState<string | null>(null);
  const codeInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!errorMessage) return;
    const timer = window.setTimeout(() => setErrorMessage(null), LOGIN_ERROR_CLEAR_MS);
    return () => window.clearTimeout(timer);
  }, [errorMessage]);

  const isBusy = verifyMutation.isPending || success !== null;

  // After a refused code the field is empty again and ready for the next one.
  useEffect(() => {
    if (errorMessage && !isBusy) codeInput.current?.focus();
  }, [errorMessage, isBusy]);
  const isComplete = kind === 'authenticator' ? AUTHENTICATOR_CODE.test(code) : code.trim() !== '';

  const handleKindChange = () => {
    setKind((previous) => (previous === 'authenticator' ? 'recovery' : 'authenticator'));
    setCode('');
    setErrorMessage(null);
  };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!isComplete || isBusy) return;
    setErrorMessage(null);
    verifyMutation.mutate(code, {
      onSuccess: onSignedIn,
      onError: (error) => {
        if (isTwoFactorLoginExpired(error)) {
          onExpired(twoFactorErrorMessage(error));
          return;
        }
        setErrorMessage(twoFactorErrorMessage(error));
        setCode('');
      },
    });
  };

  return (
    <form onSubmit={handleSubmit} noValidate aria-label="Two-factor sign-in">
      <div className={classes.stack}>
        <p className={classes.heading}>
          <IconShieldLock size={20} stroke={1.6} aria-hidden />
          Two-factor sign-in
        </p>
        <p className={classes.hint}>
          {kind === 'authenticator'
            ? message || SECURITY_MESSAGES.twoFactorRequired
            : RECOVERY_HINT}
        </p>
        <FormMessages
          error={errorMessage}
          onDismissError={() => setErrorMessage(null)}
          success={success}
        />
        {kind === 'authenticator' ? (
          <TextField
            key="authenticator"
            ref={codeInput}
            className={classes.code}
            label="Authentication code"
            placeholder="123456"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]*"
            maxLength={TOTP_DIGITS}
            autoFocus
            leftSection={<IconShieldLock size={16} />}
            value={code}
            onChange={(event) =>
              setCode(event.currentTarget.value.replace(/\D/g, '').slice(0, TOTP_DIGITS))
            }
            disabled={isBusy}
          />
        ) : (
          <TextField
            key="recovery"
            ref={codeInput}
            label="Recovery code"
            placeholder="XXXX-XXXX-XXXX-XXXX"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            maxLength={64}
            autoFocus
            leftSection={<IconKey size={16} />}
            value={code}
            onChange={(event) => setCode(event.currentTarget.value)}
            disabled={isBusy}
          />
        )}
        <SubmitButton disabled={!isComplete || isBusy} loading={verifyMutation.isPending}>
          Verify
        </SubmitButton>
        <div className={classes.links}>
          <TextButton size="sm" className={classes.withIcon} onClick={onBack} disabled={isBusy}>
            <IconArrowLeft size={14} aria-hidden />
            Back
          </TextButton>
          <TextButton size="sm" onClick={handleKindChange} disabled={isBusy}>
            {kind === 'authenticator' ? 'Use a recovery code' : 'Use the authenticator app'}
          </TextButton>
        </div>
      </div>
    </form>
  );
}
