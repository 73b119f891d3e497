import { SimpleGrid, Skeleton, Stack, Switch, Text } from '@mantine/core';
import { SETTINGS_MESSAGES, type NotificationPreferences } from '@perch/shared';
import { IconFilter } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { MessageAlert, type AlertMessage } from '@/components/message-alert';
import { SectionError } from '@/components/section-states';
import { failureReason, refusalText } from '@/lib/failure-text';
import { useTimedMessage } from '@/lib/use-timed-message';
import { useNotificationPreferencesQuery } from '../api/get-notification-preferences';
import {
  useSaveNotificationPreferenceMutation,
  type ForwardedKind,
} from '../api/save-notification-preferences';
import { FORWARDED_KIND_TEXTS, FORWARDED_TEXTS } from '../utils/webhook-texts';
import { SettingsCard } from './settings-card';

/** How long the card's outcome line shows. */
const MESSAGE_MS = 4_000;

const KINDS = Object.keys(FORWARDED_KIND_TEXTS) as ForwardedKind[];

/**
 * What is forwarded (GET/PUT /settings/notifications): whether replies, reposts and quotes of
 * the user's handles reach Telegram, Discord and the webhooks. Each switch saves at once and
 * goes back, saying why, when the save fails.
 */
export function ForwardedPostsCard() {
  const query = useNotificationPreferencesQuery();
  const { mutateAsync } = useSaveNotificationPreferenceMutation();
  const { message, show, clear } = useTimedMessage<AlertMessage>(MESSAGE_MS);
  // The ref answers a double click at once; the state re-renders the busy switches.
  const inFlight = useRef(new Set<ForwardedKind>());
  const [busy, setBusy] = useState<ReadonlySet<ForwardedKind>>(new Set());

  const handleChange = (kind: ForwardedKind, enabled: boolean) => {
    if (inFlight.current.has(kind)) return;
    inFlight.current.add(kind);
    setBusy(new Set(inFlight.current));
    mutateAsync({ kind, enabled })
      .then(
        () => show({ kind: 'success', text: SETTINGS_MESSAGES.preferencesSaved }),
        (error: unknown) =>
          show({ kind: 'error', text: refusalText(error, FORWARDED_TEXTS.saveFailed) }),
      )
      .finally(() => {
        inFlight.current.delete(kind);
        setBusy(new Set(inFlight.current));
      });
  };

  const preferences: NotificationPreferences | undefined = query.data;
  return (
    <SettingsCard
      title={FORWARDED_TEXTS.title}
      icon={IconFilter}
      color="blue"
      description={FORWARDED_TEXTS.description}
      testId="forwarded-posts-card"
      fullWidth
    >
      <Stack gap="md">
        {query.isPending ? (
          <SimpleGrid
            type="container"
            cols={{ base: 1, '640px': 3 }}
            spacing="lg"
            aria-busy="true"
            aria-label={FORWARDED_TEXTS.loading}
          >
            {KINDS.map((kind) => (
              <Skeleton key={kind} h={40} radius="sm" />
            ))}
          </SimpleGrid>
        ) : null}
        {query.isError && !preferences ? (
          <SectionError
            title={FORWARDED_TEXTS.loadFailed}
            reason={failureReason(query.error, FORWARDED_TEXTS.loadFailed)}
            retrying={query.isFetching}
            onRetry={() => void query.refetch()}
            testId="forwarded-posts-error"
          />
        ) : null}
        {preferences ? (
          <SimpleGrid type="container" cols={{ base: 1, '640px': 3 }} spacing="lg">
            {KINDS.map((kind) => (
              <Switch
                key={kind}
                color="blue"
                label={FORWARDED_KIND_TEXTS[kind].label}
                description={FORWARDED_KIND_TEXTS[kind].description}
                checked={preferences[kind]}
                aria-busy={busy.has(kind) || undefined}
                onChange={(event) => handleChange(kind, event.currentTarget.checked)}
              />
            ))}
          </SimpleGrid>
        ) : null}
        <Text size="xs" c="dimmed">
          {FORWARDED_TEXTS.help}
        </Text>
        <MessageAlert message={message} onDismiss={clear} testId="forwarded-posts-message" />
      </Stack>
    </SettingsCard>
  );
}
