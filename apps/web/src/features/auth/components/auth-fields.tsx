import { IconUser } from '@tabler/icons-react';
import type { FormEvent, ReactNode } from 'react';
import { FormMessages, type FormMessagesProps } from '@/components/form-messages';
import { Button } from '@/components/plain/button';
import { TextField, type TextFieldProps } from '@/components/plain/text-field';
import classes from './auth-form.module.css';

// The sign-in, second-step and registration forms are drawn with the plain components: they
// show before Mantine has loaded (app/router.tsx).

export interface AuthFormProps extends FormMessagesProps {
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  children: ReactNode;
}

/** A sign-in or create-account form: its error and success banners above the fields. */
export function AuthForm({ onSubmit, error, onDismissError, success, children }: AuthFormProps) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <div className={classes.stack}>
        <FormMessages error={error} onDismissError={onDismissError} success={success} />
        {children}
      </div>
    </form>
  );
}

/** The username of the sign-in and create-account forms: typed as is, without capitals or spell check. */
export function UsernameField(props: Omit<TextFieldProps, 'label'>) {
  return (
    <TextField
      label="Username"
      autoComplete="username"
      autoCapitalize="none"
      spellCheck={false}
      leftSection={<IconUser size={16} />}
      {...props}
    />
  );
}

/** The full-width button that sends a sign-in form. */
export function SubmitButton({
  disabled,
  loading,
  children,
}: {
  disabled?: boolean;
  loading?: boolean;
  children: ReactNode;
}) {
  return (
    <Button type="submit" fullWidth size="md" disabled={disabled} loading={loading}>
      {children}
    </Button>
  );
}
