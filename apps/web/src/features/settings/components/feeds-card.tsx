import {
  ActionIcon,
  Alert,
  Badge,
  Box,
  Button,
  Group,
  Modal,
  Skeleton,
  Stack,
  Text,
  TextInput,
  ThemeIcon,
  Tooltip,
} from '@mantine/core';
import { FEED_MESSAGES, type HandleFeed } from '@perch/shared';
import {
  IconAlertCircle,
  IconCheck,
  IconCircleCheck,
  IconCopy,
  IconRefresh,
  IconRss,
} from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { SectionError } from '@/components/section-states';
import { ApiError } from '@/lib/api-client';
import { copyText } from '@/lib/copy-text';
import { useTimedMessage } from '@/lib/use-timed-message';
import { useFeedsQuery } from '../api/get-feeds';
import { useRegenerateFeedsMutation } from '../api/regenerate-feeds';
import { SettingsCard } from './settings-card';

/** How long 'Copied' and the card's messages show. */
const FEEDBACK_MS = 2_000;
const MESSAGE_MS = 6_000;

const FORMAT_LABEL = { rss: 'RSS', json: 'JSON Feed' } as const;

/** One address: read-only (select it to copy by hand) with a copy button. */
function FeedAddress({
  handle,
  format,
  url,
}: {
  handle: string;
  format: keyof typeof FORMAT_LABEL;
  url: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [state]);

  const handleCopy = () => {
    copyText(url).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };

  const label = `${FORMAT_LABEL[format]} address for @${handle}`;
  const hint =
    state === 'copied' ? 'Copied' : state === 'failed' ? 'Select the address and copy it' : 'Copy';
  return (
    <TextInput
      size="xs"
      readOnly
      value={url}
      aria-label={label}
      onFocus={(event) => event.currentTarget.select()}
      leftSection={
        <Text size="xs" fw={600} c="dimmed">
          {format === 'rss' ? 'RSS' : 'JSON'}
        </Text>
      }
      leftSectionWidth={52}
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
      rightSection={
        <Tooltip label={hint} opened={state !== 'idle' ? true : undefined}>
          <ActionIcon
            variant="subtle"
            color={state === 'copied' ? 'teal' : 'gray'}
            size="sm"
            aria-label={`Copy the ${label}`}
            onClick={handleCopy}
          >
            {state === 'copied' ? <IconCheck size={14} /> : <IconCopy size={14} />}
          </ActionIcon>
        </Tooltip>
      }
    />
  );
}

function FeedRow({ feed }: { feed: HandleFeed }) {
  return (
    <Box
      component="li"
      py="sm"
      style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
      aria-label={`Feeds of @${feed.handle}`}
      data-testid="feed-row"
    >
      <Text fw={600} size="sm" mb={6}>
        @{feed.handle}
      </Text>
      <Stack gap={6}>
        <FeedAddress handle={feed.handle} format="rss" url={feed.rssUrl} />
        <FeedAddress handle={feed.handle} format="json" url={feed.jsonUrl} />
      </Stack>
    </Box>
  );
}

const errorText = (error: unknown, fallback: string) =>
  error instanceof ApiError && error.serverMessage && error.status < 500
    ? error.serverMessage
    : error instanceof Error && error.message
      ? error.message
      : fallback;

/**
 * The Feeds card: an RSS 2.0 and a JSON Feed address per followed handle, for feed readers (the
 * secret in them is the only credential), with copy buttons, and Regenerate behind a
 * confirmation for when an address leaked. Loading, error (Retry) and no-handle states.
 */
export function FeedsCard() {
  const query = useFeedsQuery();
  const mutation = useRegenerateFeedsMutation();
  const [confirming, setConfirming] = useState(false);
  const { message, show, clear } = useTimedMessage(MESSAGE_MS);
  const feeds = query.data?.feeds ?? [];

  const handleRegenerate = () => {
    setConfirming(false);
    mutation.mutate(undefined, {
      onSuccess: () => show({ kind: 'success', text: FEED_MESSAGES.regenerated }),
      onError: (error) =>
        show({ kind: 'error', text: errorText(error, FEED_MESSAGES.regenerateFailed) }),
    });
  };

  return (
    <SettingsCard
      title="Feeds"
      icon={IconRss}
      color="orange"
      description="RSS and JSON Feed of each handle, for your feed reader"
      status={
        <Button
          size="xs"
          variant="light"
          color="gray"
          leftSection={<IconRefresh size={14} />}
          loading={mutation.isPending}
          disabled={query.isPending && !query.isError}
          onClick={() => setConfirming(true)}
          style={{ flexShrink: 0 }}
        >
          Regenerate
        </Button>
      }
      testId="feeds-card"
      fullWidth
    >
      <Text size="sm" c="dimmed" mb="sm">
        Anyone with these addresses can read the feeds, without signing in: keep them private. Feeds
        hold each handle&apos;s latest 50 tweets.
      </Text>
      {message ? (
        <Alert
          color={message.kind === 'success' ? 'green' : 'red'}
          variant="light"
          icon={
            message.kind === 'success' ? (
              <IconCircleCheck size={18} />
            ) : (
              <IconAlertCircle size={18} />
            )
          }
          role={message.kind === 'success' ? 'status' : 'alert'}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={clear}
          mb="sm"
          data-testid="feeds-message"
        >
          {message.text}
        </Alert>
      ) : null}
      {query.isPending ? (
        <Stack gap="xs" aria-busy="true" aria-label="Loading the feeds">
          <Skeleton h={30} radius="sm" />
          <Skeleton h={30} radius="sm" />
        </Stack>
      ) : null}
      {query.isError && !query.data ? (
        <SectionError
          title="Failed to load the feeds"
          reason={errorText(query.error, 'Failed to load the feeds')}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
          testId="feeds-error"
        />
      ) : null}
      {query.isSuccess && feeds.length === 0 ? (
        <Group gap="sm" py="md" wrap="nowrap" data-testid="feeds-empty">
          <ThemeIcon variant="light" color="gray" size="lg" radius="xl" aria-hidden>
            <IconRss size={18} />
          </ThemeIcon>
          <Text size="sm" c="dimmed">
            No feeds yet: add a handle on the dashboard and its feeds appear here.
          </Text>
        </Group>
      ) : null}
      {feeds.length > 0 ? (
        <>
          <Group gap={6} mb={4}>
            <Badge size="sm" variant="light" color="orange" radius="sm" tt="none">
              {feeds.length === 1 ? '1 handle' : `${feeds.length} handles`}
            </Badge>
          </Group>
          <Box component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Feeds">
            {feeds.map((feed) => (
              <FeedRow key={feed.handle} feed={feed} />
            ))}
          </Box>
        </>
      ) : null}

      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Make new feed addresses?"
        centered
      >
        <Text size="sm" mb="lg">
          The current addresses stop working at once: every feed reader that uses them needs the new
          ones.
        </Text>
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={() => setConfirming(false)}>
            Cancel
          </Button>
          <Button color="red" onClick={handleRegenerate}>
            Make new addresses
          </Button>
        </Group>
      </Modal>
    </SettingsCard>
  );
}
