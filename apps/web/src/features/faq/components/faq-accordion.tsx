import { Accordion, Anchor, Code, List, Stack, Text } from '@mantine/core';
import { MAX_HANDLES_PER_USER } from '@perch/shared';
import type { ReactNode } from 'react';

interface FaqEntry {
  id: string;
  question: string;
  answer: ReactNode;
}

function faqEntries(supportEmail: string): FaqEntry[] {
  const supportLink = <Anchor href={`mailto:${supportEmail}`}>{supportEmail}</Anchor>;
  return [
    {
      id: 'what',
      question: 'What does Perch do?',
      answer: (
        <Stack gap="xs">
          <Text>
            Perch is a self-hosted dashboard for following X (Twitter) accounts. Each person can
            follow up to {MAX_HANDLES_PER_USER} handles.
          </Text>
          <List spacing={4}>
            <List.Item>
              When you add a handle, Perch backfills its recent tweets over the last 7 or 15 days
              and shows the progress while it works, then keeps collecting new tweets.
            </List.Item>
            <List.Item>
              For each handle you get analytics for the last week or month: tweets, likes, retweets,
              replies, quotes, followers, engagement, posting patterns, hashtags, languages, media,
              threads, velocity and growth.
            </List.Item>
            <List.Item>
              New tweets can be forwarded to your own Telegram chat and Discord direct messages; you
              switch forwarding on or off per handle.
            </List.Item>
          </List>
        </Stack>
      ),
    },
    {
      id: 'invitation',
      question: 'How do I get an invitation code?',
      answer: (
        <Text>
          Registration is by invitation only. Write to {supportLink} and ask for a code, then enter
          it on the Create account page. Each code can be used a limited number of times and may
          expire.
        </Text>
      ),
    },
    {
      id: 'telegram',
      question: 'How do I find my Telegram chat ID?',
      answer: (
        <Stack gap="xs">
          <Text>Perch needs your numeric chat ID, not your @username. Either:</Text>
          <List type="ordered" spacing={4}>
            <List.Item>
              Open a chat with <Code>@userinfobot</Code> in Telegram and send it any message; it
              replies with your ID (a number such as <Code>123456789</Code>).
            </List.Item>
            <List.Item>
              Or start a chat with the Perch bot (send it <Code>/start</Code>), then open{' '}
              <Code>https://api.telegram.org/bot&lt;token&gt;/getUpdates</Code> and read{' '}
              <Code>message.chat.id</Code>.
            </List.Item>
          </List>
          <Text size="sm" c="dimmed">
            Start a chat with the bot before testing: bots cannot message people who never wrote to
            them.
          </Text>
        </Stack>
      ),
    },
    {
      id: 'discord',
      question: 'How do I find my Discord user ID?',
      answer: (
        <List type="ordered" spacing={4}>
          <List.Item>
            In Discord, open User Settings, then Advanced, and turn on Developer Mode.
          </List.Item>
          <List.Item>Right-click your name (or long-press it on mobile).</List.Item>
          <List.Item>
            Choose Copy User ID. It is a long number such as <Code>112233445566778899</Code>.
          </List.Item>
        </List>
      ),
    },
    {
      id: 'limits',
      question: 'What are the limits?',
      answer: (
        <List spacing={4}>
          <List.Item>Up to {MAX_HANDLES_PER_USER} handles per person.</List.Item>
          <List.Item>
            Backfill: 7 or 15 days from the dashboard (15 is the default); the API accepts 1 to 90
            days.
          </List.Item>
          <List.Item>
            Analytics periods: a week is 7 days, a month is 30 days (the default).
          </List.Item>
        </List>
      ),
    },
  ];
}

export interface FaqAccordionProps {
  /** Where invitation requests go. */
  supportEmail: string;
}

/** Frequently asked questions about Perch. */
export function FaqAccordion({ supportEmail }: FaqAccordionProps) {
  const entries = faqEntries(supportEmail);
  return (
    <Accordion variant="separated" radius="md" multiple defaultValue={['what']}>
      {entries.map((entry) => (
        <Accordion.Item key={entry.id} value={entry.id}>
          <Accordion.Control>
            <Text span fw={600}>
              {entry.question}
            </Text>
          </Accordion.Control>
          <Accordion.Panel>{entry.answer}</Accordion.Panel>
        </Accordion.Item>
      ))}
    </Accordion>
  );
}
