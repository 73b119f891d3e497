import { Button, Checkbox, Stack, TextInput } from '@mantine/core';
import { LOGIN_ERROR_CLEAR_MS, LOGIN_REDIRECT_DELAY_MS, loginRequestSchema } from '@perch/shared';
import { IconLock, IconUser } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import { Navigate } from 'react-router';
import { FormMessages } from '@/components/form-messages';
import { useLoginMutation } from '../api/login';
import { useAuth } from '../hooks/use-auth';
import { useGoHomeAfter } from '../hooks/use-go-home-after';
import { loginErrorMessage } from '../utils/auth-errors';
import { PasswordField } from './password-field';

export const LOGIN_SUCCESS_MESSAGE = 'Login successful! Redirecting...';

const usernameSchema = loginRequestSchema.shape.username;
const passwordSchema = loginRequestSchema.shape.password;

function firstIssue(result: { success: boolean; error?: { issues: { message: string }[] } }) {
  return result.success ? null : (result.error?.issues[0]?.message ?? null);
}

/**
 * Sign-in form (doc 1 §2 and §5): username or email, password, remember me. The banner shows
 * the catalogue text for the failure and clears after 10 s; success leads home after 300 ms.
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

  useEffect(() => {
    if (!errorMessage) return;
    const timer = window.setTimeout(() => setErrorMessage(null), LOGIN_ERROR_CLEAR_MS);
    return () => window.clearTimeout(timer);
  }, [errorMessage]);

  useGoHomeAfter(successMessage, LOGIN_REDIRECT_DELAY_MS);

  // Already signed in (e.g. a second tab): nothing to do here.
  if (isAuthenticated && !hasSubmitted) return <Navigate to="/" replace />;

  const usernameError = touched.username ? firstIssue(usernameSchema.safeParse(username)) : null;
  const passwordError = touched.password ? firstIssue(passwordSchema.safeParse(password)) : null;
  const isBusy = loginMutation.isPending || successMessage !== null;
  const canSubmit = username.trim() !== '' && password !== '' && !isBusy;

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched({ username: true, password: true });
    if (!loginRequestSchema.safeParse({ username, password, rememberMe }).success) return;
    setErrorMessage(null);
    setHasSubmitted(true);
    loginMutation.mutate(
      { username, password, rememberMe },
      {
        onSuccess: () => setSuccessMessage(LOGIN_SUCCESS_MESSAGE),
        onError: (error) => setErrorMessage(loginErrorMessage(error)),
      },
    );
  };

  return (
    <form onSubmit={handleSubmit} noValidate>
      <Stack gap="md">
        <FormMessages
          error={errorMessage}
          onDismissError={() => setErrorMessage(null)}
          success={successMessage}
        />
        <TextInput
          label="Username"
          description="Your username or email address"
          placeholder="ada or ada@example.com"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          leftSection={<IconUser size={16} />}
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
        <Button
          type="submit"
          fullWidth
          size="md"
          disabled={!canSubmit}
          loading={loginMutation.isPending}
        >
          Sign in
        </Button>
      </Stack>
    </form>
  );
}
