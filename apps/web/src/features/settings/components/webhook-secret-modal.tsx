import { Alert, Button, Code, Group, List, Modal, Stack, Text, Title } from '@mantine/core';
import { type WebhookSecret } from '@perch/shared';
import { IconAlertCircle, IconKey } from '@tabler/icons-react';
import { useId, useState } from 'react';
import { CopyButton } from '@/components/copy-button';
import { WEBHOOK_TEXTS } from '../utils/webhook-texts';

/** A secret to show once: the endpoint it signs for, and the line saying why it shows now. */
export interface ShownSecret extends WebhookSecret {
  /** WEBHOOK_API_MESSAGES.created or .rotated. */
  intro: string;
}

/**
 * How a receiver checks a request (docs/webhooks.md, Signature; the server signs in
 * apps/server/src/notify/webhook/secret.ts): the HMAC-SHA256 of the timestamp, a dot and the raw
 * body, keyed with the whole secret.
 */
function VerifyHint() {
  return (
    <Stack gap={6} data-testid="webhook-verify-hint">
      <Title order={4} fz="sm" fw={600}>
        {WEBHOOK_TEXTS.verifyTitle}
      </Title>
      <List size="sm" spacing={4}>
        <List.Item>
          Each request carries <Code>X-Perch-Timestamp</Code> and{' '}
          <Code>X-Perch-Signature: v1=&lt;hex&gt;</Code>.
        </List.Item>
        <List.Item>
          Compute the HMAC-SHA256 of <Code>{'${X-Perch-Timestamp}.${raw body}'}</Code>, keyed with
          this whole secret (<Code>whsec_</Code> included), in lower-case hex.
        </List.Item>
        <List.Item>
          Compare it in constant time with the <Code>v1=</Code> value, over the body as received
          (before parsing the JSON), and refuse a timestamp more than 5 minutes from your clock.
        </List.Item>
      </List>
    </Stack>
  );
}

export interface WebhookSecretModalProps {
  /** The secret to show; null keeps the modal closed. */
  shown: ShownSecret | null;
  /** The person has the secret: it goes, and nothing shows it again. */
  onDone: () => void;
}

/**
 * A new or rotated secret, shown this once with a copy button and how to verify a request. The
 * server keeps no way to show it again, so the modal closes only by its button or Escape, never
 * by a click beside it.
 */
export function WebhookSecretModal({ shown, onDone }: WebhookSecretModalProps) {
  const [copyFailed, setCopyFailed] = useState(false);
  const labelId = useId();
  const close = () => {
    setCopyFailed(false);
    onDone();
  };
  return (
    <Modal
      opened={shown !== null}
      onClose={close}
      title={WEBHOOK_TEXTS.secretTitle}
      closeOnClickOutside={false}
      centered
      size="lg"
    >
      {shown ? (
        <Stack gap="md">
          <Alert color="orange" variant="light" icon={<IconKey size={18} />} role="status">
            <Text size="sm" fw={500}>
              {shown.intro}
            </Text>
            <Text size="xs" c="dimmed" mt={2}>
              {shown.endpoint.name}
            </Text>
          </Alert>
          <Stack gap={6}>
            <Text size="sm" fw={500} id={labelId}>
              {WEBHOOK_TEXTS.secretLabel}
            </Text>
            <Group gap="xs" wrap="nowrap" align="flex-start">
              <Code
                block
                fz="sm"
                aria-labelledby={labelId}
                data-testid="webhook-secret"
                style={{ flex: 1, overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}
              >
                {shown.secret}
              </Code>
              <CopyButton
                text={shown.secret}
                label={WEBHOOK_TEXTS.copySecret}
                onFailed={() => setCopyFailed(true)}
              />
            </Group>
            {copyFailed ? (
              <Alert color="red" variant="light" p="xs" icon={<IconAlertCircle size={16} />}>
                <Text size="xs">{WEBHOOK_TEXTS.copyFailed}</Text>
              </Alert>
            ) : null}
          </Stack>
          <VerifyHint />
          <Group justify="flex-end">
            <Button onClick={close}>{WEBHOOK_TEXTS.secretDone}</Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}
