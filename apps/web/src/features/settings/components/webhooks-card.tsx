import { Badge, Box, Button, Group, Skeleton, Stack, Text, ThemeIcon } from '@mantine/core';
import { WEBHOOK_API_MESSAGES, type WebhookEndpoint } from '@perch/shared';
import { IconPlus, IconWebhook } from '@tabler/icons-react';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { MessageAlert, type AlertMessage } from '@/components/message-alert';
import { SectionError } from '@/components/section-states';
import { failureReason, refusalText } from '@/lib/failure-text';
import { useTimedMessage } from '@/lib/use-timed-message';
import { useDeleteWebhookMutation } from '../api/delete-webhook';
import { useWebhooksQuery } from '../api/get-webhooks';
import { useRotateWebhookSecretMutation } from '../api/rotate-webhook-secret';
import { useConnectionState } from '../hooks/use-connection-state';
import { WEBHOOK_TEXTS } from '../utils/webhook-texts';
import { SettingsCard } from './settings-card';
import { WebhookFormModal } from './webhook-form-modal';
import { WebhookHandleSwitches } from './webhook-handle-switches';
import { WebhookRow } from './webhook-row';
import { WebhookSecretModal, type ShownSecret } from './webhook-secret-modal';

/** How long the card's outcome line shows. */
const MESSAGE_MS = 6_000;

/** What the card's confirm dialog asks about. */
type Pending = { action: 'rotate' | 'delete'; endpoint: WebhookEndpoint } | null;

/**
 * The Webhooks card: the user's endpoints with Test, Rotate secret, Edit and Delete, the Add
 * dialog, the secret shown once after adding or rotating, and which handles go to the webhooks.
 * Loading, error (Retry) and empty states like the other cards.
 *
 * The page's disabled fieldset makes the card read-only while the server is not answering; the
 * dialogs sit outside it (in a portal), so they read the same connection state themselves.
 */
export function WebhooksCard() {
  const query = useWebhooksQuery();
  const readOnly = useConnectionState() !== 'ok';
  const rotateMutation = useRotateWebhookSecretMutation();
  const deleteMutation = useDeleteWebhookMutation();
  const { message, show, clear } = useTimedMessage<AlertMessage>(MESSAGE_MS);
  /** undefined: the form is closed; null: adding; an endpoint: editing it. */
  const [formTarget, setFormTarget] = useState<WebhookEndpoint | null | undefined>(undefined);
  const [shownSecret, setShownSecret] = useState<ShownSecret | null>(null);
  const [pending, setPending] = useState<Pending>(null);

  const endpoints = query.data?.endpoints ?? [];
  const limit = query.data?.limit;
  const atLimit = limit !== undefined && endpoints.length >= limit;
  const busyId =
    (rotateMutation.isPending ? rotateMutation.variables : undefined) ??
    (deleteMutation.isPending ? deleteMutation.variables : undefined);

  const handleConfirm = () => {
    if (!pending) return;
    const { action, endpoint } = pending;
    setPending(null);
    if (action === 'rotate') {
      rotateMutation.mutate(endpoint.id, {
        onSuccess: (answer) => setShownSecret({ ...answer, intro: WEBHOOK_API_MESSAGES.rotated }),
        onError: (error) =>
          show({ kind: 'error', text: refusalText(error, WEBHOOK_TEXTS.rotateFailed) }),
      });
      return;
    }
    deleteMutation.mutate(endpoint.id, {
      onSuccess: () => show({ kind: 'success', text: WEBHOOK_API_MESSAGES.deleted }),
      onError: (error) =>
        show({ kind: 'error', text: refusalText(error, WEBHOOK_TEXTS.deleteFailed) }),
    });
  };

  const addButton = (
    <Button
      variant="light"
      color="cyan"
      leftSection={<IconPlus size={16} />}
      disabled={atLimit}
      onClick={() => setFormTarget(null)}
    >
      {WEBHOOK_TEXTS.add}
    </Button>
  );

  return (
    <SettingsCard
      title="Webhooks"
      icon={IconWebhook}
      color="cyan"
      description={WEBHOOK_TEXTS.cardDescription}
      status={
        limit !== undefined ? (
          <Badge
            size="md"
            radius="sm"
            variant={atLimit ? 'light' : 'outline'}
            color={atLimit ? 'orange' : 'gray'}
            tt="none"
            aria-label={WEBHOOK_TEXTS.countLabel(endpoints.length, limit)}
            style={{ flexShrink: 0 }}
            data-testid="webhook-count"
          >
            {WEBHOOK_TEXTS.count(endpoints.length, limit)}
          </Badge>
        ) : null
      }
      testId="webhooks-card"
      fullWidth
    >
      <MessageAlert message={message} onDismiss={clear} testId="webhooks-message" mb="sm" />

      {query.isPending ? (
        <Stack gap="xs" aria-busy="true" aria-label={WEBHOOK_TEXTS.loading}>
          <Skeleton h={44} radius="md" />
          <Skeleton h={44} radius="md" />
        </Stack>
      ) : null}

      {query.isError && !query.data ? (
        <SectionError
          title={WEBHOOK_TEXTS.loadFailed}
          reason={failureReason(query.error, WEBHOOK_TEXTS.loadFailed)}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
          testId="webhooks-error"
        />
      ) : null}

      {query.isSuccess && endpoints.length === 0 ? (
        <Group gap="sm" py="xs" wrap="nowrap" align="flex-start" data-testid="webhooks-empty">
          <ThemeIcon variant="light" color="gray" size="lg" radius="xl" aria-hidden>
            <IconWebhook size={18} />
          </ThemeIcon>
          <Stack gap="sm" align="flex-start">
            <Stack gap={2}>
              <Text size="sm" fw={600}>
                {WEBHOOK_TEXTS.empty}
              </Text>
              <Text size="sm" c="dimmed">
                {WEBHOOK_TEXTS.emptyHelp}
              </Text>
            </Stack>
            {addButton}
          </Stack>
        </Group>
      ) : null}

      {endpoints.length > 0 ? (
        <>
          <Box
            component="ul"
            m={0}
            p={0}
            style={{ listStyle: 'none' }}
            aria-label="Webhooks"
            data-testid="webhook-list"
          >
            {endpoints.map((endpoint) => (
              <WebhookRow
                key={endpoint.id}
                endpoint={endpoint}
                busy={busyId === endpoint.id}
                onEdit={setFormTarget}
                onRotate={(chosen) => setPending({ action: 'rotate', endpoint: chosen })}
                onDelete={(chosen) => setPending({ action: 'delete', endpoint: chosen })}
              />
            ))}
          </Box>
          <Group gap="sm" mt="xs">
            {addButton}
            {atLimit && limit !== undefined ? (
              <Text size="xs" c="dimmed">
                {WEBHOOK_TEXTS.limitReached(limit)}
              </Text>
            ) : null}
          </Group>
        </>
      ) : null}

      {query.isSuccess ? (
        <WebhookHandleSwitches hasEndpoints={endpoints.length > 0} report={show} />
      ) : null}

      <WebhookFormModal
        target={formTarget}
        readOnly={readOnly}
        onClose={() => setFormTarget(undefined)}
        onCreated={(shown) => {
          setFormTarget(undefined);
          setShownSecret(shown);
        }}
        onSaved={(endpoint) => {
          setFormTarget(undefined);
          show({ kind: 'success', text: WEBHOOK_TEXTS.saved(endpoint.name) });
        }}
      />
      <WebhookSecretModal shown={shownSecret} onDone={() => setShownSecret(null)} />
      <ConfirmDialog
        // Asked again once the server answers: nothing can be done about it meanwhile.
        question={
          readOnly
            ? null
            : pending?.action === 'rotate'
              ? WEBHOOK_TEXTS.rotateQuestion
              : pending
                ? WEBHOOK_TEXTS.deleteQuestion(pending.endpoint.name)
                : null
        }
        confirmColor={pending?.action === 'rotate' ? 'orange' : 'red'}
        onConfirm={handleConfirm}
        onCancel={() => setPending(null)}
      />
    </SettingsCard>
  );
}
