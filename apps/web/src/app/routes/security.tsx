import { PageHeader } from '@/components/page-header';
import { PasswordStrengthMeter } from '@/features/auth/components/password-strength-meter';
import { StepUpDialog } from '@/features/auth/components/step-up-dialog';
import { SecurityView } from '@/features/security/components/security-view';
import { SECURITY_TEXTS } from '@/features/security/utils/security-texts';

const passwordStrength = (password: string) => <PasswordStrengthMeter password={password} />;

/**
 * /security: the Security Dashboard. Not in the menu: the security alert and the
 * Settings page link to it. The change-password form shows the registration page's strength
 * meter, and sensitive changes the step-up dialog, composed here because both belong to the auth
 * feature.
 */
export function SecurityRoute() {
  return (
    <>
      <PageHeader title={SECURITY_TEXTS.pageTitle} description={SECURITY_TEXTS.pageDescription} />
      <SecurityView passwordStrength={passwordStrength} />
      {/* Turning two-factor sign-in on or off asks for the password when the last one is old. */}
      <StepUpDialog />
    </>
  );
}

export { SecurityRoute as Component };
