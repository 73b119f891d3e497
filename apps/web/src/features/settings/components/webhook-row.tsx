import { Alert, Badge, Box, Button, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import type { WebhookEndpoint } from '@perch/shared';
import {
  IconAlertCircle,
  IconCircleCheck,
  IconKey,
  IconPencil,
  IconSend,
  IconTrash,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { refusalText } from '@/lib/failure-text';
import { formatDate } from '@/lib/format';
import { usePhoneLayout } from '@/lib/use-phone-layout';
import { useTestWebhookMutation } from '../api/test-webhook';
import { WEBHOOK_PRESET_TEXTS, WEBHOOK_TEXTS } from '../utils/webhook-texts';
import { StoppedAlert } from './stopped-alert';

const PRESET_COLOR = { generic: 'gray', slack: 'grape', discord: 'indigo' } as const;

/** The row's buttons: in a line beside the details, or two by two across a phone. */
function ActionsLayout({ phone, children }: { phone: boolean; children: ReactNode }) {
  if (!phone) return <Group gap="xs">{children}</Group>;
  return (
    <SimpleGrid cols={2} spacing={6} verticalSpacing={6} w="100%">
      {children}
    </SimpleGrid>
  );
}

export interface WebhookRowProps {
  endpoint: WebhookEndpoint;
  onEdit: (endpoint: WebhookEndpoint) => void;
  onRotate: (endpoint: WebhookEndpoint) => void;
  onDelete: (endpoint: WebhookEndpoint) => void;
  /** A rotation or deletion of this endpoint is under way. */
  busy: boolean;
}

/**
 * One endpoint: its name, format, address (cut short, whole on hover) and date, why delivery
 * stopped when it did, its buttons, and the outcome of its last test under them.
 */
export function WebhookRow({ endpoint, onEdit, onRotate, onDelete, busy }: WebhookRowProps) {
  const testMutation = useTestWebhookMutation();
  // On a phone the four buttons share the width two by two, each a full-size target.
  const phone = usePhoneLayout();
  const result = testMutation.data;
  const testError = testMutation.isError ? testMutation.error : null;
  const { name } = endpoint;

  return (
    <Box
      component="li"
      py="sm"
      style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
      aria-label={name}
      data-testid="webhook-row"
    >
      <Group justify="space-between" align="flex-start" gap="sm">
        <Stack gap={4} miw={0} style={{ flex: '1 1 16rem' }}>
          <Group gap="xs" wrap="nowrap" miw={0}>
            <Text fw={600} size="sm" truncate="end">
              {name}
            </Text>
            <Badge
              size="sm"
              radius="sm"
              variant="light"
              tt="none"
              color={PRESET_COLOR[endpoint.preset]}
              style={{ flexShrink: 0 }}
            >
              {WEBHOOK_PRESET_TEXTS[endpoint.preset].label}
            </Badge>
          </Group>
          <Text
            size="xs"
            c="dimmed"
            ff="monospace"
            truncate="end"
            title={endpoint.url}
            data-testid="webhook-url"
          >
            {endpoint.url}
          </Text>
          <Text size="xs" c="dimmed">
            {WEBHOOK_TEXTS.addedOn(formatDate(endpoint.created_at))}
          </Text>
        </Stack>
        <ActionsLayout phone={phone}>
          <Button
            size="xs"
            variant="light"
            color="cyan"
            leftSection={<IconSend size={14} />}
            loading={testMutation.isPending}
            aria-label={`${WEBHOOK_TEXTS.test} ${name}`}
            onClick={() => testMutation.mutate(endpoint.id)}
          >
            {WEBHOOK_TEXTS.test}
          </Button>
          <Button
            size="xs"
            variant="default"
            leftSection={<IconKey size={14} />}
            loading={busy}
            aria-label={`${WEBHOOK_TEXTS.rotate} of ${name}`}
            onClick={() => onRotate(endpoint)}
          >
            {WEBHOOK_TEXTS.rotate}
          </Button>
          <Button
            size="xs"
            variant="default"
            leftSection={<IconPencil size={14} />}
            aria-label={`${WEBHOOK_TEXTS.edit} ${name}`}
            onClick={() => onEdit(endpoint)}
          >
            {WEBHOOK_TEXTS.edit}
          </Button>
          <Button
            size="xs"
            variant="subtle"
            color="red.5"
            leftSection={<IconTrash size={14} />}
            aria-label={`${WEBHOOK_TEXTS.delete} ${name}`}
            onClick={() => onDelete(endpoint)}
          >
            {WEBHOOK_TEXTS.delete}
          </Button>
        </ActionsLayout>
      </Group>
      {endpoint.stopped_reason ? (
        <Box mt="sm">
          <StoppedAlert reason={endpoint.stopped_reason} help={WEBHOOK_TEXTS.stoppedHelp} />
        </Box>
      ) : null}
      {result || testError ? (
        <Alert
          mt="sm"
          p="xs"
          variant="light"
          color={result?.ok ? 'green' : 'red'}
          icon={result?.ok ? <IconCircleCheck size={16} /> : <IconAlertCircle size={16} />}
          role={result?.ok ? 'status' : 'alert'}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => testMutation.reset()}
          data-testid="webhook-test-result"
        >
          <Text size="sm">
            <Text span fw={600} inherit>
              {result?.ok ? WEBHOOK_TEXTS.testPassed : WEBHOOK_TEXTS.testDidNotPass}:
            </Text>{' '}
            {result ? result.message : refusalText(testError, WEBHOOK_TEXTS.testFailed)}
          </Text>
        </Alert>
      ) : null}
    </Box>
  );
}
