import { Anchor, Divider, SimpleGrid, Skeleton, Stack, Switch, Text } from '@mantine/core';
import type { Handle } from '@perch/shared';
import { useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { AlertMessage } from '@/components/message-alert';
import { SectionError } from '@/components/section-states';
import { failureReason, refusalText } from '@/lib/failure-text';
import { useWebhookHandlesQuery } from '../api/get-webhook-handles';
import { sendsToWebhooks, useSetHandleWebhookMutation } from '../api/set-handle-webhook';
import { WEBHOOK_TEXTS } from '../utils/webhook-texts';

export interface WebhookHandleSwitchesProps {
  /** The user has at least one endpoint; without one the switches wait, with a hint. */
  hasEndpoints: boolean;
  /** Where the outcome of a switch goes (the card's message line). */
  report: (message: AlertMessage) => void;
}

/**
 * The per-handle Webhooks switch, beside the Telegram and Discord ones of the dashboard: whether
 * a handle's new posts go to the user's webhooks. Optimistic; a refusal puts the switch back and
 * says why, and a click on a switch whose request is still in flight is ignored.
 */
export function WebhookHandleSwitches({ hasEndpoints, report }: WebhookHandleSwitchesProps) {
  const query = useWebhookHandlesQuery();
  const { mutateAsync } = useSetHandleWebhookMutation();
  const hintId = useId();
  // The ref answers a double click at once; the state re-renders the busy switches.
  const inFlight = useRef(new Set<number>());
  const [busy, setBusy] = useState<ReadonlySet<number>>(new Set());

  const settle = (id: number) => {
    inFlight.current.delete(id);
    setBusy(new Set(inFlight.current));
  };

  const handleToggle = (handle: Handle, enabled: boolean) => {
    if (inFlight.current.has(handle.id)) return;
    inFlight.current.add(handle.id);
    setBusy(new Set(inFlight.current));
    // mutateAsync, not mutate's callbacks: those fire for the latest call only, and two handles
    // may be switched at the same time.
    mutateAsync({ handle, enabled })
      .then(
        (updated) =>
          report({
            kind: 'success',
            text: WEBHOOK_TEXTS.handleToggled(updated.handle, sendsToWebhooks(updated)),
          }),
        (error: unknown) =>
          report({ kind: 'error', text: refusalText(error, WEBHOOK_TEXTS.handleToggleFailed) }),
      )
      .finally(() => settle(handle.id));
  };

  const handles = query.data ?? [];
  return (
    <Stack gap="sm" role="group" aria-label={WEBHOOK_TEXTS.handlesTitle} mt="md">
      <Divider label={WEBHOOK_TEXTS.handlesTitle} labelPosition="left" />
      {query.isPending ? (
        <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="sm" aria-busy="true">
          <Skeleton h={20} radius="sm" />
          <Skeleton h={20} radius="sm" />
        </SimpleGrid>
      ) : null}
      {query.isError && !query.data ? (
        <SectionError
          compact
          title={WEBHOOK_TEXTS.handlesLoadFailed}
          reason={failureReason(query.error, WEBHOOK_TEXTS.handlesLoadFailed)}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
          testId="webhook-handles-error"
        />
      ) : null}
      {query.isSuccess && handles.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="webhook-handles-empty">
          {WEBHOOK_TEXTS.handlesEmpty}{' '}
          <Anchor component={Link} to="/" size="sm">
            Dashboard
          </Anchor>
          .
        </Text>
      ) : null}
      {handles.length > 0 ? (
        <>
          <Text size="xs" c="dimmed" id={hintId} data-testid="webhook-handles-hint">
            {hasEndpoints ? WEBHOOK_TEXTS.handlesHelp : WEBHOOK_TEXTS.handlesNeedWebhook}
          </Text>
          <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="sm" verticalSpacing="sm">
            {handles.map((handle) => (
              <Switch
                key={handle.id}
                color="cyan"
                label={`@${handle.handle}`}
                checked={sendsToWebhooks(handle)}
                // Without endpoints a switch can still be turned off, never on.
                disabled={!hasEndpoints && !sendsToWebhooks(handle)}
                aria-label={WEBHOOK_TEXTS.handleSwitchLabel(handle.handle)}
                aria-describedby={hintId}
                aria-busy={busy.has(handle.id) || undefined}
                onChange={(event) => handleToggle(handle, event.currentTarget.checked)}
              />
            ))}
          </SimpleGrid>
        </>
      ) : null}
    </Stack>
  );
}
