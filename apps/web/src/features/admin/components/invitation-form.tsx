import {
  Button,
  Checkbox,
  Group,
  NativeSelect,
  NumberInput,
  SimpleGrid,
  Stack,
} from '@mantine/core';
import {
  ADMIN_MESSAGES,
  INVITATION_DEFAULT_EXPIRY_DAYS,
  INVITATION_MAX_EXPIRY_DAYS,
  INVITATION_MAX_USES,
  ROLES,
  createInvitationRequestSchema,
  type AdminCreatedInvitation,
  type Role,
} from '@perch/shared';
import { IconTicket } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { failureReason } from '@/lib/failure-text';
import { useCreateInvitationMutation } from '../api/create-invitation';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { ROLE_LOOK } from '../utils/looks';
import { NewInvitationCode } from './new-invitation-code';

type FieldErrors = Partial<Record<'role' | 'max_uses' | 'expires_in_days', string>>;

/** The first message per field of a failed parse of the request schema. */
function fieldErrors(issues: readonly { path: PropertyKey[]; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = issue.path[0];
    if (field === 'role' || field === 'max_uses' || field === 'expires_in_days') {
      errors[field] ??= issue.message;
    }
  }
  return errors;
}

/**
 * Creates an invitation: the role (plain admins can invite users only), how many registrations
 * it allows and when it expires. Checked with the request's own schema before it is sent. The
 * new code shows below the form until the admin is done with it, and never again.
 */
export function InvitationForm({ isSuperAdmin }: { isSuperAdmin: boolean }) {
  const createMutation = useCreateInvitationMutation();
  const notify = useAdminNotifier();
  const [role, setRole] = useState<Role>('user');
  const [maxUses, setMaxUses] = useState<number | string>(1);
  const [expiryDays, setExpiryDays] = useState<number | string>(INVITATION_DEFAULT_EXPIRY_DAYS);
  const [neverExpires, setNeverExpires] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<AdminCreatedInvitation | null>(null);
  const roles = isSuperAdmin ? ROLES : (['user'] as const);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = createInvitationRequestSchema.safeParse({
      role,
      max_uses: maxUses,
      expires_in_days: neverExpires ? null : expiryDays,
    });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error.issues));
      return;
    }
    setErrors({});
    createMutation.mutate(parsed.data, {
      onSuccess: ({ data, message }) => {
        notify.success(message ?? ADMIN_MESSAGES.invitationCreated);
        setCreated(data.invitation);
        setRole('user');
        setMaxUses(1);
        setExpiryDays(INVITATION_DEFAULT_EXPIRY_DAYS);
        setNeverExpires(false);
      },
      onError: (error) =>
        notify.error(
          ADMIN_TEXTS.createInvitationFailed,
          failureReason(error, ADMIN_TEXTS.createInvitationFailed),
        ),
    });
  };

  return (
    <form onSubmit={handleSubmit} aria-label="Create invitation" noValidate>
      <Stack gap="sm">
        <SimpleGrid type="container" cols={{ base: 1, '600px': 3 }} spacing="sm">
          <NativeSelect
            label="Role"
            data={roles.map((value) => ({ value, label: ROLE_LOOK[value].label }))}
            value={role}
            onChange={(event) => setRole(event.currentTarget.value as Role)}
            disabled={!isSuperAdmin}
            description={isSuperAdmin ? undefined : ADMIN_MESSAGES.invitationRoleForbidden}
            error={errors.role}
          />
          <NumberInput
            label={ADMIN_TEXTS.usesLabel}
            value={maxUses}
            onChange={setMaxUses}
            min={1}
            max={INVITATION_MAX_USES}
            allowDecimal={false}
            allowNegative={false}
            error={errors.max_uses}
          />
          <NumberInput
            label={ADMIN_TEXTS.expiryLabel}
            value={neverExpires ? '' : expiryDays}
            onChange={setExpiryDays}
            min={1}
            max={INVITATION_MAX_EXPIRY_DAYS}
            allowDecimal={false}
            allowNegative={false}
            disabled={neverExpires}
            error={errors.expires_in_days}
          />
        </SimpleGrid>
        <Group justify="space-between" gap="sm">
          <Checkbox
            label={ADMIN_TEXTS.neverExpires}
            checked={neverExpires}
            onChange={(event) => setNeverExpires(event.currentTarget.checked)}
          />
          <Button
            type="submit"
            leftSection={<IconTicket size={16} />}
            loading={createMutation.isPending}
          >
            Create invitation
          </Button>
        </Group>
        {created ? (
          <NewInvitationCode invitation={created} onDone={() => setCreated(null)} />
        ) : null}
      </Stack>
    </form>
  );
}
