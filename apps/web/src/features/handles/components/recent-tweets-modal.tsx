import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  CloseButton,
  Group,
  Image,
  Loader,
  Mark,
  Modal,
  NativeSelect,
  Paper,
  Stack,
  Text,
  TextInput,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  MAX_TWEET_SEARCH_LENGTH,
  formatTweetTime,
  type Tweet,
  type TweetSort,
  type TweetType,
} from '@perch/shared';
import {
  IconBell,
  IconExternalLink,
  IconFilterOff,
  IconHeart,
  IconMessageCircle,
  IconRepeat,
  IconSearch,
  type Icon,
} from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import { SectionError } from '@/components/section-states';
import { usePhoneLayout } from '@/lib/use-phone-layout';
import { useHandleTweetsBrowseQuery } from '../api/get-handle-tweets';

/** Tweets per page of the browser (one more page per 'Load more'). */
export const RECENT_TWEETS_LIMIT = 20;
/** How long the search waits after the last keystroke before asking. */
export const SEARCH_DEBOUNCE_MS = 300;

const TYPE_OPTIONS: { value: TweetType | ''; label: string; one: string; many: string }[] = [
  { value: '', label: 'All types', one: 'tweet', many: 'tweets' },
  { value: 'post', label: 'Posts', one: 'post', many: 'posts' },
  { value: 'reply', label: 'Replies', one: 'reply', many: 'replies' },
  { value: 'quote', label: 'Quotes', one: 'quote', many: 'quotes' },
  { value: 'retweet', label: 'Retweets', one: 'retweet', many: 'retweets' },
  { value: 'media', label: 'With media', one: 'tweet with media', many: 'tweets with media' },
];
const SORT_OPTIONS: { value: TweetSort; label: string }[] = [
  { value: 'newest', label: 'Newest first' },
  { value: 'likes', label: 'Most liked' },
  { value: 'engagement', label: 'Most engaged' },
];

const count = (value: number) => value.toLocaleString('en-US');
/** 'replies', or 'reply' for one. */
function nounOf(type: TweetType | '', total = 2): string {
  const option = TYPE_OPTIONS.find((entry) => entry.value === type) ?? TYPE_OPTIONS[0]!;
  return total === 1 ? option.one : option.many;
}

/** Texts of the tweet browser. */
export const TWEET_BROWSER_TEXTS = {
  loading: 'Loading tweets...',
  failed: 'Failed to load tweets',
  failedMore: 'Failed to load more tweets',
  nothingYet: 'No tweets collected yet. They appear here as the backfill finds them.',
  /** 'No tweets match "launch"', 'No replies match "launch"'. */
  noMatch: (q: string, type: TweetType | '') => `No ${nounOf(type)} match "${q}"`,
  /** 'No retweets collected yet'. */
  noneOfType: (type: TweetType | '') => `No ${nounOf(type)} collected yet`,
  /** '1,234 tweets', '12 replies match "launch"', '1 tweet matches "launch"'. */
  summary: (total: number, q: string, type: TweetType | '') => {
    const counted = `${count(total)} ${nounOf(type, total)}`;
    if (!q) return counted;
    return `${counted} ${total === 1 ? 'matches' : 'match'} "${q}"`;
  },
  /** 'Showing 40 of 1,234'. */
  shown: (shown: number, total: number) => `Showing ${count(shown)} of ${count(total)}`,
} as const;

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

/**
 * The post fired the user's alert rules: a bell badge whose tooltip names them (and hidden text,
 * for screen readers). Nothing when none did.
 */
function AlertBadge({ names }: { names: readonly string[] | undefined }) {
  if (!names || names.length === 0) return null;
  return (
    <Tooltip
      label={`Alerts fired: ${names.join(', ')}`}
      multiline
      maw={280}
      // Reachable with the keyboard (the badge takes focus) and a tap on phones too.
      events={{ hover: true, focus: true, touch: true }}
    >
      <Badge
        size="xs"
        variant="light"
        color="yellow"
        tt="none"
        leftSection={<IconBell size={10} aria-hidden />}
        tabIndex={0}
        data-testid="tweet-alert-badge"
      >
        {names.length === 1 ? 'Alert' : `${names.length} alerts`}
        <VisuallyHidden>{`: ${names.join(', ')}`}</VisuallyHidden>
      </Badge>
    </Tooltip>
  );
}

function TweetItem({
  tweet,
  now,
  highlight,
}: {
  tweet: Tweet;
  now: number | undefined;
  /** Words of the search, marked in the text. */
  highlight: string[];
}) {
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
          <AlertBadge names={tweet.alert_rule_names} />
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
        {highlight.length > 0 ? markedParts(tweet.text, highlight) : tweet.text}
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

const WORD_CHAR = '[\\p{L}\\p{N}\\p{Co}\\p{M}]';

/** Words of a search as the server reads them (letters, digits and marks), for marking. */
function highlightWords(q: string): string[] {
  return (q.match(/[\p{L}\p{N}\p{Co}\p{M}]+/gu) ?? []).filter((word) =>
    /[\p{L}\p{N}\p{Co}]/u.test(word),
  );
}

/**
 * The text with the search's words marked where the server matches them: whole words, and the
 * last word also as the start of a longer one ('rel' in 'release', never 'new' in 'news').
 */
function markedParts(text: string, words: readonly string[]): ReactNode[] {
  const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const alternatives = words
    .map((word, i) => (i === words.length - 1 ? escape(word) : `${escape(word)}(?!${WORD_CHAR})`))
    .sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`(?<!${WORD_CHAR})(?:${alternatives.join('|')})`, 'giu');
  const parts: ReactNode[] = [];
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > at) parts.push(text.slice(at, match.index));
    parts.push(<Mark key={match.index}>{match[0]}</Mark>);
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

function CenteredNote({ children }: { children: ReactNode }) {
  return (
    <Text size="sm" c="dimmed" py="md" ta="center">
      {children}
    </Text>
  );
}

/**
 * Every collected tweet of one handle: searched in the text (debounced as the person types),
 * filtered by type, sorted, and paged with 'Load more'. Filters changed keep the last list on
 * screen, dimmed, until the new one arrives.
 */
function TweetBrowser({ handle, now }: { handle: string; now: number | undefined }) {
  const [search, setSearch] = useState('');
  const [type, setType] = useState<TweetType | ''>('');
  const [sort, setSort] = useState<TweetSort>('newest');
  const [q] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const query = useHandleTweetsBrowseQuery({
    handle,
    limit: RECENT_TWEETS_LIMIT,
    q,
    type: type || undefined,
    sort,
  });
  const pages = query.data?.pages ?? [];
  // A tweet stored between two pages' loads can push one into the next page: show it once.
  const seen = new Set<string>();
  const tweets = pages
    .flatMap((page) => page.tweets)
    .filter((tweet) => {
      if (seen.has(tweet.id)) return false;
      seen.add(tweet.id);
      return true;
    });
  const total = pages[0]?.total ?? 0;
  const filtered = q !== '' || type !== '';
  const refreshing = query.isPlaceholderData || search.trim() !== q;
  const highlight = highlightWords(q);

  const handleClear = () => {
    setSearch('');
    setType('');
  };

  return (
    <Stack gap="sm">
      <Group gap="xs" align="flex-end" wrap="wrap">
        <TextInput
          aria-label="Search tweets"
          placeholder="Search tweets"
          value={search}
          maxLength={MAX_TWEET_SEARCH_LENGTH}
          onChange={(event) => setSearch(event.currentTarget.value)}
          leftSection={<IconSearch size={16} aria-hidden />}
          rightSection={
            refreshing && query.isFetching ? (
              <Loader size={14} aria-label="Searching" />
            ) : search ? (
              <CloseButton size="sm" aria-label="Clear search" onClick={() => setSearch('')} />
            ) : null
          }
          style={{ flex: '1 1 220px' }}
        />
        <NativeSelect
          aria-label="Tweet type"
          value={type}
          onChange={(event) => setType(event.currentTarget.value as TweetType | '')}
          data={TYPE_OPTIONS.map(({ value, label }) => ({ value, label }))}
          style={{ flex: '1 1 130px' }}
        />
        <NativeSelect
          aria-label="Sort tweets"
          value={sort}
          onChange={(event) => setSort(event.currentTarget.value as TweetSort)}
          data={SORT_OPTIONS}
          style={{ flex: '1 1 130px' }}
        />
      </Group>

      {query.isPending || (refreshing && tweets.length === 0 && !query.isError) ? (
        <Group gap="xs" py="md" justify="center">
          <Loader size="sm" />
          <Text size="sm" c="dimmed">
            {TWEET_BROWSER_TEXTS.loading}
          </Text>
        </Group>
      ) : null}
      {query.isError && !query.isFetchNextPageError ? (
        <SectionError
          title={TWEET_BROWSER_TEXTS.failed}
          reason={query.error.message}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
        />
      ) : null}

      {query.isSuccess && !refreshing && tweets.length === 0 ? (
        filtered ? (
          <Stack gap="xs" align="center" py="md" data-testid="tweets-empty">
            <Text size="sm" c="dimmed" ta="center" style={{ overflowWrap: 'anywhere' }}>
              {q ? TWEET_BROWSER_TEXTS.noMatch(q, type) : TWEET_BROWSER_TEXTS.noneOfType(type)}
            </Text>
            <Button
              size="xs"
              variant="default"
              leftSection={<IconFilterOff size={14} />}
              onClick={handleClear}
            >
              Clear filters
            </Button>
          </Stack>
        ) : (
          <CenteredNote>{TWEET_BROWSER_TEXTS.nothingYet}</CenteredNote>
        )
      ) : null}

      {tweets.length > 0 ? (
        <Box
          aria-busy={refreshing}
          style={{ opacity: refreshing ? 0.55 : 1, transition: 'opacity 150ms' }}
        >
          <Text
            size="xs"
            c="dimmed"
            mb="xs"
            data-testid="tweets-summary"
            style={{ overflowWrap: 'anywhere' }}
          >
            {TWEET_BROWSER_TEXTS.summary(total, q, type)}
          </Text>
          <Stack gap="xs" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
            {tweets.map((tweet) => (
              <TweetItem key={tweet.id} tweet={tweet} now={now} highlight={highlight} />
            ))}
          </Stack>
          {query.isFetchNextPageError ? (
            <Alert color="red" variant="light" title={TWEET_BROWSER_TEXTS.failedMore} mt="xs">
              {query.error?.message}
            </Alert>
          ) : null}
          <Stack gap={6} align="center" mt="sm">
            <Text size="xs" c="dimmed">
              {TWEET_BROWSER_TEXTS.shown(tweets.length, Math.max(total, tweets.length))}
            </Text>
            {query.hasNextPage ? (
              <Button
                variant="default"
                size="xs"
                loading={query.isFetchingNextPage}
                disabled={refreshing}
                onClick={() => void query.fetchNextPage()}
              >
                {query.isFetchNextPageError ? 'Try again' : 'Load more'}
              </Button>
            ) : null}
          </Stack>
        </Box>
      ) : null}
    </Stack>
  );
}

/**
 * A handle's collected tweets, newest first, browsable: search,
 * type filter, sort and more pages. Full screen on a phone.
 */
export function RecentTweetsModal({ handle, onClose, now }: RecentTweetsModalProps) {
  const phone = usePhoneLayout();
  return (
    <Modal
      opened={handle !== null}
      onClose={onClose}
      title={handle ? `Recent tweets from @${handle}` : 'Recent tweets'}
      size="xl"
      fullScreen={phone}
    >
      {/* A new handle starts with a fresh search. */}
      {handle ? <TweetBrowser key={handle.toLowerCase()} handle={handle} now={now} /> : null}
    </Modal>
  );
}
