import { AuthLayout } from '@/components/auth-layout';
import { TextLink } from '@/components/plain/button';
import { LoginForm } from '@/features/auth/components/login-form';

/** /login: the sign-in page. */
export function LoginRoute() {
  return (
    <AuthLayout
      title="Sign in to your account"
      footer={
        <>
          New to Perch? <TextLink to="/register">Create an account</TextLink>
        </>
      }
    >
      <LoginForm />
    </AuthLayout>
  );
}

export { LoginRoute as Component };
