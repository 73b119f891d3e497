import { Alert } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { IconFlask } from '@tabler/icons-react';
import { publicConfigQueryOptions } from '@/lib/public-config';

/** A small notice while the server's tweet source is the built-in demo. */
export function DemoDataNotice() {
  const { data } = useQuery(publicConfigQueryOptions);
  if (data?.tweetSource !== 'demo') return null;
  return (
    <Alert
      color="grape"
      variant="light"
      icon={<IconFlask size={18} />}
      title="Demo data"
      data-testid="demo-data-notice"
      mb="lg"
    >
      This server uses its built-in demo source: tweets and followers are generated, not fetched
      from X.
    </Alert>
  );
}
