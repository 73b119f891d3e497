import {
  LOGIN_ERROR_CLEAR_MS,
  LOGIN_REDIRECT_DELAY_MS,
  requiresTwoFactor,
  type LoginTwoFactorChallenge,
} from '@perch/shared';
import { IconLock } from '@tabler/icons-react';
import { Suspense, lazy, useEffect, useState, type FormEvent } from 'react';
import { Navigate } from 'react-router';
import { Checkbox } from '@/components/plain/checkbox';
import { Loader } from '@/components/plain/loader';
import { PasswordField } from '@/components/plain/text-field';
import { useLoginMutation } from '../api/login';
import { useAuth } from '../hooks/use-auth';
import { useGoHomeAfter } from '../hooks/use-go-home-after';
import { loginErrorMessage } from '../utils/auth-errors';
import { loginPasswordIssue, loginUsernameIssue } from '../utils/login-rules';
import { AuthForm, SubmitButton, UsernameField } from './auth-fields';
import classes from './auth-form.module.css';

export const LOGIN_SUCCESS_MESSAGE = 'Login successful! Redirecting...';

// Few accounts have two-factor sign-in on: its step loads only when the server asks for it.
const TwoFactorStep = lazy(() =>
  import('./two-factor-step').then((module) => ({ default: module.TwoFactorStep })),
);

/**
 * Sign-in form: username or email, password, remember me. The banner shows
 * the catalogue text for the failure and clears after 10 s; success leads home after 300 ms.
 * An account with two-factor sign-in gets a second step for its code before that.
 */
export function LoginForm() {
  const { isAuthenticated } = useAuth();
  const loginMutation = useLoginMutation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [rememberMe, setRememberMe] = useState(false);
  const [touched, setTouched] = useState({ username: false, password: false });
  const [hasSubmitted, setHasSubmitted] = useState(false);
  const [errorMessage, setErrorMessage] = useState<string | null>(null);
  const [successMessage, setSuccessMessage] = useState<string | null>(null);
  const [secondStep, setSecondStep] = useState<LoginTwoFactorChallenge | null>(null);
  const [cameBack, setCameBack] = useState(false);

  useEffect(() => {
    if (!errorMessage) return;
    const timer = window.setTimeout(() => setErrorMessage(null), LOGIN_ERROR_CLEAR_MS);
    return () => window.clearTimeout(timer);
  }, [errorMessage]);

  useGoHomeAfter(successMessage, LOGIN_REDIRECT_DELAY_MS);

  // Already signed in (e.g. a second tab): nothing to do here.
  if (isAuthenticated && !hasSubmitted) return <Navigate to="/" replace />;

  const usernameError = touched.username ? loginUsernameIssue(username) : null;
  const passwordError = touched.password ? loginPasswordIssue(password) : null;
  const isBusy = loginMutation.isPending || successMessage !== null;
  const canSubmit = username.trim() !== '' && password !== '' && !isBusy;

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched({ username: true, password: true });
    if (loginUsernameIssue(username) || loginPasswordIssue(password)) return;
    setErrorMessage(null);
    setHasSubmitted(true);
    loginMutation.mutate(
      { username, password, rememberMe },
      {
        onSuccess: (answer) => {
          if (!requiresTwoFactor(answer)) {
            setSuccessMessage(LOGIN_SUCCESS_MESSAGE);
            return;
          }
          // The password has done its part; the second step needs only the code.
          setPassword('');
          setSecondStep(answer);
        },
        onError: (error) => setErrorMessage(loginErrorMessage(error)),
      },
    );
  };

  const returnToPassword = (message: string | null) => {
    setSecondStep(null);
    setHasSubmitted(false);
    setTouched((previous) => ({ ...previous, password: false }));
    setCameBack(true);
    setErrorMessage(message);
  };

  if (secondStep) {
    return (
      <Suspense
        fallback={
          <div className={classes.pending}>
            <Loader size="sm" label="Loading" />
          </div>
        }
      >
        <TwoFactorStep
          message={secondStep.message}
          success={successMessage}
          onSignedIn={() => setSuccessMessage(LOGIN_SUCCESS_MESSAGE)}
          onExpired={returnToPassword}
          onBack={() => returnToPassword(null)}
        />
      </Suspense>
    );
  }

  return (
    <AuthForm
      onSubmit={handleSubmit}
      error={errorMessage}
      onDismissError={() => setErrorMessage(null)}
      success={successMessage}
    >
      <UsernameField
        description="Your username or email address"
        placeholder="ada or ada@example.com"
        value={username}
        onChange={(event) => setUsername(event.currentTarget.value)}
        onBlur={() => setTouched((previous) => ({ ...previous, username: true }))}
        error={usernameError}
        disabled={isBusy}
      />
      <PasswordField
        label="Password"
        placeholder="Your password"
        autoComplete="current-password"
        autoFocus={cameBack}
        leftSection={<IconLock size={16} />}
        value={password}
        onChange={(event) => setPassword(event.currentTarget.value)}
        onBlur={() => setTouched((previous) => ({ ...previous, password: true }))}
        error={passwordError}
        disabled={isBusy}
      />
      <Checkbox
        label="Remember me"
        checked={rememberMe}
        onChange={(event) => setRememberMe(event.currentTarget.checked)}
        disabled={isBusy}
      />
      <SubmitButton disabled={!canSubmit} loading={loginMutation.isPending}>
        Sign in
      </SubmitButton>
    </AuthForm>
  );
}
