import {
  Alert,
  Anchor,
  Badge,
  Group,
  Image,
  Loader,
  Modal,
  Paper,
  Stack,
  Text,
} from '@mantine/core';
import { formatTweetTime, type Tweet } from '@perch/shared';
import {
  IconExternalLink,
  IconHeart,
  IconMessageCircle,
  IconRepeat,
  type Icon,
} from '@tabler/icons-react';
import { useHandleTweetsQuery } from '../api/get-handle-tweets';

/** How many tweets the modal lists. */
export const RECENT_TWEETS_LIMIT = 20;

export interface RecentTweetsModalProps {
  /** The handle whose tweets are shown; null keeps the modal closed. */
  handle: string | null;
  onClose: () => void;
  /** Clock, for tests. */
  now?: number;
}

function Count({ icon: CountIcon, value, noun }: { icon: Icon; value: number; noun: string }) {
  return (
    <Group gap={4} wrap="nowrap" aria-label={`${value} ${noun}`}>
      <CountIcon size={14} aria-hidden />
      <Text size="xs" c="dimmed" aria-hidden>
        {value.toLocaleString('en-US')}
      </Text>
    </Group>
  );
}

function TweetItem({ tweet, now }: { tweet: Tweet; now: number | undefined }) {
  const kind = tweet.is_retweet
    ? 'Retweet'
    : tweet.is_quote
      ? 'Quote'
      : tweet.is_reply
        ? 'Reply'
        : null;
  return (
    <Paper component="li" withBorder radius="md" p="sm" data-testid="recent-tweet">
      <Group justify="space-between" gap="xs" mb={4} wrap="nowrap">
        <Group gap="xs">
          <Text size="xs" c="dimmed" component="time" dateTime={tweet.created_at}>
            {formatTweetTime(tweet.created_at, now)}
          </Text>
          {kind ? (
            <Badge size="xs" variant="light" color="gray" tt="none">
              {kind}
            </Badge>
          ) : null}
        </Group>
        <Anchor
          href={tweet.url}
          target="_blank"
          rel="noopener noreferrer"
          size="xs"
          aria-label="Open tweet on X"
        >
          <Group gap={2} wrap="nowrap">
            View on X
            <IconExternalLink size={12} aria-hidden />
          </Group>
        </Anchor>
      </Group>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {tweet.text}
      </Text>
      {tweet.media_urls.length > 0 ? (
        <Group gap="xs" mt="xs">
          {tweet.media_urls.slice(0, 4).map((url, index) => (
            <Anchor
              key={url}
              href={url}
              target="_blank"
              rel="noopener noreferrer"
              w={72}
              h={72}
              display="block"
              bg="var(--mantine-color-default-hover)"
              style={{ overflow: 'hidden', borderRadius: 'var(--mantine-radius-sm)' }}
            >
              <Image
                src={url}
                alt={`Tweet media ${index + 1}`}
                w={72}
                h={72}
                radius="sm"
                fit="cover"
                loading="lazy"
              />
            </Anchor>
          ))}
        </Group>
      ) : null}
      <Group gap="md" mt="xs">
        <Count icon={IconHeart} value={tweet.like_count} noun="likes" />
        <Count icon={IconRepeat} value={tweet.retweet_count} noun="retweets" />
        <Count icon={IconMessageCircle} value={tweet.reply_count} noun="replies" />
      </Group>
    </Paper>
  );
}

/** The most recent collected tweets of a handle, newest first (doc 1 §2, Main dashboard). */
export function RecentTweetsModal({ handle, onClose, now }: RecentTweetsModalProps) {
  const opened = handle !== null;
  const query = useHandleTweetsQuery(
    { handle: handle ?? '', page: 1, limit: RECENT_TWEETS_LIMIT },
    opened,
  );
  const tweets = query.data?.tweets ?? [];

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={handle ? `Recent tweets from @${handle}` : 'Recent tweets'}
      size="lg"
    >
      {query.isPending ? (
        <Group gap="xs" py="md">
          <Loader size="sm" />
          <Text size="sm" c="dimmed">
            Loading tweets...
          </Text>
        </Group>
      ) : null}
      {query.isError ? (
        <Alert color="red" variant="light" title="Failed to load tweets">
          {query.error.message}
        </Alert>
      ) : null}
      {query.isSuccess && tweets.length === 0 ? (
        <Text size="sm" c="dimmed" py="md">
          No tweets collected yet. They appear here as the backfill finds them.
        </Text>
      ) : null}
      {tweets.length > 0 ? (
        <Stack gap="xs" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {tweets.map((tweet) => (
            <TweetItem key={tweet.id} tweet={tweet} now={now} />
          ))}
          {query.data && query.data.total > tweets.length ? (
            <Text size="xs" c="dimmed" ta="center">
              {`Showing the latest ${tweets.length} of ${query.data.total.toLocaleString('en-US')} tweets`}
            </Text>
          ) : null}
        </Stack>
      ) : null}
    </Modal>
  );
}
