import { ActionIcon, Badge, Box, Group, Stack, Text, Tooltip } from '@mantine/core';
import { formatTweetTime, type CompleteAnalytics, type TopTweet } from '@perch/shared';
import {
  IconExternalLink,
  IconHeart,
  IconMessageCircle,
  IconQuote,
  IconRepeat,
  type Icon,
} from '@tabler/icons-react';
import { METRIC_COLORS, cssColor } from '../utils/chart-colors';
import { formatCompact, formatDateTime, formatInteger } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard, SectionEmpty } from './section-card';
import { postUrl } from './thread-performance-card';

/** The tweet's own link when it is an https link, else its address on x.com. */
export function tweetLink(tweet: Pick<TopTweet, 'id' | 'url'>, handle: string): string {
  try {
    const url = new URL(tweet.url);
    if (url.protocol === 'https:') return url.toString();
  } catch {
    // fall through to the canonical address
  }
  return postUrl(handle, tweet.id);
}

function Count({
  icon: CountIcon,
  value,
  label,
  color,
}: {
  icon: Icon;
  value: number;
  label: string;
  color: string;
}) {
  return (
    <Tooltip label={`${formatInteger(value)} ${label}`}>
      <Group gap={4} wrap="nowrap" aria-label={`${formatInteger(value)} ${label}`}>
        <CountIcon size={14} stroke={1.8} color={cssColor(color)} aria-hidden />
        <Text size="xs" fw={500} style={{ fontVariantNumeric: 'tabular-nums' }}>
          {formatCompact(value)}
        </Text>
      </Group>
    </Tooltip>
  );
}

/** The counts each row shows, in order. */
const COUNTS: {
  icon: Icon;
  key: 'like_count' | 'retweet_count' | 'reply_count' | 'quote_count';
  label: string;
  color: string;
}[] = [
  { icon: IconHeart, key: 'like_count', label: 'likes', color: METRIC_COLORS.likes },
  { icon: IconRepeat, key: 'retweet_count', label: 'retweets', color: METRIC_COLORS.retweets },
  { icon: IconMessageCircle, key: 'reply_count', label: 'replies', color: METRIC_COLORS.replies },
  { icon: IconQuote, key: 'quote_count', label: 'quotes', color: METRIC_COLORS.quotes },
];

function kindOf(tweet: TopTweet): string | null {
  if (tweet.is_reply) return 'Reply';
  if (tweet.is_quote) return 'Quote';
  if (tweet.has_video) return 'Video';
  if (tweet.has_photo) return 'Photo';
  return null;
}

function TopTweetRow({ tweet, rank, handle }: { tweet: TopTweet; rank: number; handle: string }) {
  const kind = kindOf(tweet);
  return (
    <Group
      component="li"
      align="flex-start"
      wrap="nowrap"
      gap="sm"
      py="sm"
      data-testid="top-tweet"
      style={{ borderTop: rank > 1 ? '1px solid var(--mantine-color-default-border)' : undefined }}
    >
      <Text fw={700} c="dimmed" w={22} ta="right" size="sm" aria-hidden>
        {rank}
      </Text>
      <Box style={{ flex: 1, minWidth: 0 }}>
        <Text size="sm" lineClamp={3} style={{ overflowWrap: 'anywhere' }}>
          {tweet.text}
        </Text>
        <Group gap="md" mt={6} wrap="wrap" style={{ rowGap: 4 }}>
          {COUNTS.map(({ icon, key, label, color }) => (
            <Count key={key} icon={icon} value={tweet[key]} label={label} color={color} />
          ))}
          <Text size="xs" c="dimmed">
            {formatInteger(tweet.engagement)} engagement
          </Text>
          <Text size="xs" c="dimmed" title={formatDateTime(tweet.created_at)}>
            {formatTweetTime(tweet.created_at)}
          </Text>
          {kind ? (
            <Badge size="xs" variant="default" radius="sm" tt="none">
              {kind}
            </Badge>
          ) : null}
        </Group>
      </Box>
      <Tooltip label="Open on X">
        <ActionIcon
          component="a"
          href={tweetLink(tweet, handle)}
          target="_blank"
          rel="noopener noreferrer"
          variant="subtle"
          color="gray"
          aria-label={`Open tweet ${rank} on X`}
        >
          <IconExternalLink size={16} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}

/** The window's most liked posts, with their numbers and links to X. */
export function TopTweetsCard({ data }: { data: CompleteAnalytics }) {
  const tweets = data.topTweets.tweets;
  return (
    <SectionCard
      title="Top tweets"
      definition={METRIC_DEFINITIONS.topTweets}
      subtitle="Most liked posts of the period"
      fullWidth
      testId="analytics-top-tweets"
    >
      {tweets.length === 0 ? (
        <SectionEmpty>No posts in this period.</SectionEmpty>
      ) : (
        <Stack gap={0} component="ol" m={0} p={0} style={{ listStyle: 'none' }}>
          {tweets.map((tweet, index) => (
            <TopTweetRow key={tweet.id} tweet={tweet} rank={index + 1} handle={data.handle} />
          ))}
        </Stack>
      )}
    </SectionCard>
  );
}
