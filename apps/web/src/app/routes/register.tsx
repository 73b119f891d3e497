import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { AuthLayout } from '@/components/auth-layout';
import { RegisterForm } from '@/features/auth/components/register-form';

/** /register: create an account with an invitation code. */
export function RegisterRoute() {
  return (
    <AuthLayout
      title="Create your account"
      footer={
        <Text size="sm" c="dimmed">
          Already have an account?{' '}
          <Anchor component={Link} to="/login" fw={600}>
            Sign in
          </Anchor>
        </Text>
      }
    >
      <RegisterForm />
    </AuthLayout>
  );
}

export { RegisterRoute as Component };
