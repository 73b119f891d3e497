import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { AuthLayout } from '@/components/auth-layout';
import { LoginForm } from '@/features/auth/components/login-form';

/** /login: the sign-in page. */
export function LoginRoute() {
  return (
    <AuthLayout
      title="Sign in to your account"
      footer={
        <Text size="sm" c="dimmed">
          New to Perch?{' '}
          <Anchor component={Link} to="/register" fw={600}>
            Create an account
          </Anchor>
        </Text>
      }
    >
      <LoginForm />
    </AuthLayout>
  );
}

export { LoginRoute as Component };
