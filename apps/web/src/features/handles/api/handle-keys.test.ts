import { describe, expect, it } from 'vitest';
import { handleTweetsBrowseQueryOptions, handleTweetsQueryOptions } from './get-handle-tweets';
import { backfillProgressQueryOptions } from './get-backfill-progress';
import { handleKeys } from './handle-keys';

/** Whether `key` starts with `prefix`, as TanStack Query matches a partial key. */
const startsWith = (key: readonly unknown[], prefix: readonly unknown[]) =>
  prefix.every((part, index) => JSON.stringify(key[index]) === JSON.stringify(part));

describe('handle query keys', () => {
  it("files every key under 'handles', and a handle's keys under its lower-case name", () => {
    const keys = [
      handleKeys.list,
      backfillProgressQueryOptions('NASA').queryKey,
      handleTweetsQueryOptions({ handle: 'NASA', page: 2, limit: 20 }).queryKey,
      handleTweetsBrowseQueryOptions({ handle: 'NASA', q: 'moon' }).queryKey,
    ];
    for (const key of keys) expect(startsWith(key, handleKeys.all)).toBe(true);
    for (const key of keys.slice(1)) expect(startsWith(key, handleKeys.detail('nasa'))).toBe(true);
  });

  it("puts the dashboard's and the browser's pages under the handle's tweets", () => {
    const tweets = handleKeys.tweets('Nasa');
    expect(startsWith(handleTweetsQueryOptions({ handle: 'NASA' }).queryKey, tweets)).toBe(true);
    expect(startsWith(handleTweetsBrowseQueryOptions({ handle: 'nasa' }).queryKey, tweets)).toBe(
      true,
    );
    expect(startsWith(backfillProgressQueryOptions('nasa').queryKey, tweets)).toBe(false);
  });
});
