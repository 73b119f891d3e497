import {
  MESSAGES,
  REGISTER_REDIRECT_DELAY_MS,
  isCommonPassword,
  registerRequestSchema,
} from '@perch/shared';
import { IconAt, IconLock, IconTicket } from '@tabler/icons-react';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Navigate } from 'react-router';
import { anchorClassName } from '@/components/plain/button';
import { PasswordField, TextField } from '@/components/plain/text-field';
import { ApiError } from '@/lib/api-client';
import { useSupportEmail } from '@/lib/public-config';
import { useRegisterMutation, type RegisterInput } from '../api/register';
import { useVerifyInviteMutation } from '../api/verify-invite';
import { useAuth } from '../hooks/use-auth';
import { useGoHomeAfter } from '../hooks/use-go-home-after';
import { inviteErrorMessage, registerErrorMessage } from '../utils/auth-errors';
import { AuthForm, SubmitButton, UsernameField } from './auth-fields';
import classes from './auth-form.module.css';
import { PasswordMatchIndicator } from './password-match-indicator';
import { PasswordStrengthMeter } from './password-strength-meter';

export const REGISTER_SUCCESS_MESSAGE = 'Registration successful! Redirecting...';

interface RegisterValues extends RegisterInput {
  confirmPassword: string;
}

const EMPTY_VALUES: RegisterValues = {
  username: '',
  email: '',
  password: '',
  confirmPassword: '',
  invitationCode: '',
};

/**
 * The first problem with the form, in the spec's order: a missing field ('Please fill in all
 * fields'), then mismatching passwords, then the request schema's own rules (length, shape).
 */
export function validateRegistration(values: RegisterValues): string | null {
  const result = registerRequestSchema.safeParse({
    ...values,
    acceptTerms: true,
    acceptPrivacy: true,
  });
  if (result.success) return null;
  const messages = result.error.issues.map((issue) => issue.message);
  if (messages.includes(MESSAGES.registerFillAll)) return MESSAGES.registerFillAll;
  if (values.password !== values.confirmPassword) return MESSAGES.passwordsDoNotMatch;
  return messages[0] ?? MESSAGES.registerInvalidData;
}

/**
 * Create-account form: the invitation code is checked first, then the
 * account is created and signed in; success leads home after 1.5 s.
 */
export function RegisterForm() {
  const { isAuthenticated } = useAuth();
  const verifyInviteMutation = useVerifyInviteMutation();
  const registerMutation = useRegisterMutation();
  const supportEmail = useSupportEmail();
  const [values, setValues] = useState<RegisterValues>(EMPTY_VALUES);
  const [hasSubmitted, setHasSubmitted] = useState(false);
  const [errorMessage, setErrorMessage] = useState<string | null>(null);
  // A password the server refuses as too common is said under its field, not in the banner.
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [successMessage, setSuccessMessage] = useState<string | null>(null);

  useGoHomeAfter(successMessage, REGISTER_REDIRECT_DELAY_MS);

  if (isAuthenticated && !hasSubmitted) return <Navigate to="/" replace />;

  const isPending = verifyInviteMutation.isPending || registerMutation.isPending;
  const isBusy = isPending || successMessage !== null;

  const setField = (field: keyof RegisterValues) => (event: ChangeEvent<HTMLInputElement>) => {
    const { value } = event.currentTarget;
    setValues((previous) => ({ ...previous, [field]: value }));
    if (field === 'password') setPasswordError(null);
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrorMessage(null);
    const problem = validateRegistration(values);
    if (problem) {
      setErrorMessage(problem);
      return;
    }
    if (isCommonPassword(values.password)) {
      setPasswordError(MESSAGES.passwordTooCommon);
      return;
    }
    try {
      const invite = await verifyInviteMutation.mutateAsync(values.invitationCode);
      if (!invite.valid) {
        setErrorMessage(invite.message || MESSAGES.invalidInvitation);
        return;
      }
    } catch (error) {
      setErrorMessage(inviteErrorMessage(error));
      return;
    }
    setHasSubmitted(true);
    const { confirmPassword: _confirmPassword, ...input } = values;
    registerMutation.mutate(input, {
      onSuccess: () => setSuccessMessage(REGISTER_SUCCESS_MESSAGE),
      onError: (error) => {
        if (error instanceof ApiError && error.code === 'PASSWORD_TOO_COMMON') {
          setPasswordError(error.serverMessage ?? MESSAGES.passwordTooCommon);
          return;
        }
        setErrorMessage(registerErrorMessage(error));
      },
    });
  };

  return (
    <AuthForm
      onSubmit={(event) => void handleSubmit(event)}
      error={errorMessage}
      onDismissError={() => setErrorMessage(null)}
      success={successMessage}
    >
      <UsernameField
        placeholder="ada"
        description="3-32 letters, digits, dots, dashes or underscores"
        value={values.username}
        onChange={setField('username')}
        disabled={isBusy}
      />
      <TextField
        label="Email"
        type="email"
        placeholder="ada@example.com"
        autoComplete="email"
        leftSection={<IconAt size={16} />}
        value={values.email}
        onChange={setField('email')}
        disabled={isBusy}
      />
      <div className={classes.fieldWithNote}>
        <PasswordField
          label="Password"
          placeholder="At least 8 characters"
          autoComplete="new-password"
          leftSection={<IconLock size={16} />}
          value={values.password}
          onChange={setField('password')}
          disabled={isBusy}
          error={passwordError}
        />
        <PasswordStrengthMeter password={values.password} />
      </div>
      <div className={classes.fieldWithNote} data-gap="tight">
        <PasswordField
          label="Confirm password"
          placeholder="Repeat the password"
          autoComplete="new-password"
          leftSection={<IconLock size={16} />}
          value={values.confirmPassword}
          onChange={setField('confirmPassword')}
          disabled={isBusy}
        />
        <PasswordMatchIndicator
          password={values.password}
          confirmPassword={values.confirmPassword}
        />
      </div>
      <TextField
        label="Invitation code"
        placeholder="PERCH-XXXX-XXXX"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        leftSection={<IconTicket size={16} />}
        value={values.invitationCode}
        onChange={setField('invitationCode')}
        disabled={isBusy}
        description={
          <span className={classes.smallPrint}>
            Perch is invitation only. To get a code, write to{' '}
            <a className={anchorClassName} href={`mailto:${supportEmail}`}>
              {supportEmail}
            </a>
            .
          </span>
        }
      />
      <SubmitButton disabled={successMessage !== null} loading={isPending}>
        Create account
      </SubmitButton>
    </AuthForm>
  );
}
