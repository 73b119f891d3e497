import { AuthLayout } from '@/components/auth-layout';
import { TextLink } from '@/components/plain/button';
import { RegisterForm } from '@/features/auth/components/register-form';

/** /register: create an account with an invitation code. */
export function RegisterRoute() {
  return (
    <AuthLayout
      title="Create your account"
      footer={
        <>
          Already have an account? <TextLink to="/login">Sign in</TextLink>
        </>
      }
    >
      <RegisterForm />
    </AuthLayout>
  );
}

export { RegisterRoute as Component };
