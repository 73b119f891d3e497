import {
  Alert,
  Button,
  Group,
  PasswordInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { X_WEB_MESSAGES, addXWebAccountRequestSchema } from '@perch/shared';
import { IconAlertTriangle, IconUserPlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { failureReason } from '@/lib/failure-text';
import { useAddXWebAccountMutation } from '../api/x-web-accounts';
import { useAdminNotifier } from '../hooks/use-admin-banner';
import { X_WEB_TEXTS } from '../utils/x-web-texts';

type Method = 'cookies' | 'credentials';
type Field = 'username' | 'auth_token' | 'ct0' | 'password' | 'email' | 'totp_secret';
type FieldErrors = Partial<Record<Field, string>>;

const FIELDS: readonly string[] = [
  'username',
  'auth_token',
  'ct0',
  'password',
  'email',
  'totp_secret',
];

function fieldErrors(issues: readonly { path: PropertyKey[]; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && FIELDS.includes(field))
      errors[field as Field] ??= issue.message;
  }
  return errors;
}

const EMPTY = { username: '', auth_token: '', ct0: '', password: '', email: '', totp_secret: '' };

/**
 * Adds an x-web collector account (super admins): by the auth_token and ct0 cookies of a signed-in
 * browser (the first choice and the default, with where to find them), or by username, password,
 * email and the TOTP secret when two-factor is on, under the warning that X may ask a password
 * sign-in for checks only a browser passes. Checked with the request's own schema before it is
 * sent; the secrets are cleared once sent.
 */
export function XWebAccountForm() {
  const addMutation = useAddXWebAccountMutation();
  const notify = useAdminNotifier();
  const [method, setMethod] = useState<Method>('cookies');
  const [values, setValues] = useState(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});

  const field = (name: Field) => ({
    value: values[name],
    error: errors[name],
    onChange: (event: { currentTarget: { value: string } }) => {
      const value = event.currentTarget.value;
      setValues((current) => ({ ...current, [name]: value }));
      if (errors[name]) setErrors((current) => ({ ...current, [name]: undefined }));
    },
  });

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input =
      method === 'cookies'
        ? { method, username: values.username, auth_token: values.auth_token, ct0: values.ct0 }
        : {
            method,
            username: values.username,
            password: values.password,
            email: values.email,
            totp_secret: values.totp_secret,
          };
    const parsed = addXWebAccountRequestSchema.safeParse(input);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error.issues));
      return;
    }
    setErrors({});
    addMutation.mutate(parsed.data, {
      onSuccess: ({ message }) => {
        notify.success(message ?? X_WEB_TEXTS.add);
        setValues(EMPTY);
      },
      onError: (error) =>
        notify.error(X_WEB_TEXTS.addFailed, failureReason(error, X_WEB_TEXTS.addFailed)),
    });
  };

  return (
    <form onSubmit={handleSubmit} aria-label={X_WEB_TEXTS.addTitle} noValidate>
      <Stack gap="sm">
        <Group justify="space-between" gap="sm" wrap="wrap">
          <Text fw={600}>{X_WEB_TEXTS.addTitle}</Text>
          <SegmentedControl
            size="xs"
            value={method}
            onChange={(value) => {
              setMethod(value as Method);
              setErrors({});
            }}
            data={[
              { value: 'cookies', label: X_WEB_TEXTS.byCookies },
              { value: 'credentials', label: X_WEB_TEXTS.byPassword },
            ]}
            aria-label="How to add the account"
          />
        </Group>
        {method === 'cookies' ? (
          <Text size="xs" c="dimmed" data-testid="x-web-cookies-help">
            <Text span inherit fw={600} c="var(--mantine-color-text)">
              {X_WEB_TEXTS.cookiesRecommended}
            </Text>{' '}
            {X_WEB_TEXTS.cookiesHint}
          </Text>
        ) : (
          <Stack gap={6}>
            <Alert
              color="yellow"
              variant="light"
              icon={<IconAlertTriangle size={18} />}
              data-testid="x-web-browser-checks"
            >
              <Text size="sm">{X_WEB_MESSAGES.browserChecks}</Text>
            </Alert>
            <Text size="xs" c="dimmed">
              {X_WEB_TEXTS.passwordHint}
            </Text>
          </Stack>
        )}
        <SimpleGrid
          type="container"
          cols={{ base: 1, '600px': method === 'cookies' ? 3 : 2 }}
          spacing="sm"
        >
          <TextInput
            label={X_WEB_TEXTS.usernameLabel}
            placeholder="@account"
            autoComplete="off"
            spellCheck={false}
            {...field('username')}
          />
          {method === 'cookies' ? (
            <>
              <PasswordInput
                label={X_WEB_TEXTS.authTokenLabel}
                autoComplete="off"
                {...field('auth_token')}
              />
              <PasswordInput label={X_WEB_TEXTS.ct0Label} autoComplete="off" {...field('ct0')} />
            </>
          ) : (
            <>
              <PasswordInput
                label={X_WEB_TEXTS.passwordLabel}
                autoComplete="new-password"
                {...field('password')}
              />
              <TextInput
                label={X_WEB_TEXTS.emailLabel}
                type="email"
                autoComplete="off"
                {...field('email')}
              />
              <PasswordInput
                label={X_WEB_TEXTS.totpLabel}
                autoComplete="off"
                {...field('totp_secret')}
              />
            </>
          )}
        </SimpleGrid>
        <Group justify="flex-end">
          <Button
            type="submit"
            leftSection={<IconUserPlus size={16} />}
            loading={addMutation.isPending}
          >
            {X_WEB_TEXTS.add}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
