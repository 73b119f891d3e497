import { Button, Stack, TextInput, type ButtonProps, type TextInputProps } from '@mantine/core';
import { IconUser } from '@tabler/icons-react';
import type { FormEvent, ReactNode } from 'react';
import { FormMessages, type FormMessagesProps } from '@/components/form-messages';

export interface AuthFormProps extends FormMessagesProps {
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  children: ReactNode;
}

/** A sign-in or create-account form: its error and success banners above the fields. */
export function AuthForm({ onSubmit, error, onDismissError, success, children }: AuthFormProps) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <FormMessages error={error} onDismissError={onDismissError} success={success} />
        {children}
      </Stack>
    </form>
  );
}

/** The username of the sign-in and create-account forms: typed as is, without capitals or spell check. */
export function UsernameField(props: TextInputProps) {
  return (
    <TextInput
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
}: Pick<ButtonProps, 'disabled' | 'loading'> & { children: ReactNode }) {
  return (
    <Button type="submit" fullWidth size="md" disabled={disabled} loading={loading}>
      {children}
    </Button>
  );
}
