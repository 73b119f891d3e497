import { PasswordInput, type PasswordInputProps } from '@mantine/core';

/** A password field whose show/hide toggle is reachable by keyboard and not named 'password'. */
export function SecretField(props: PasswordInputProps) {
  return (
    <PasswordInput
      visibilityToggleFocusable
      visibilityToggleButtonProps={{ 'aria-label': 'Show characters' }}
      {...props}
    />
  );
}
