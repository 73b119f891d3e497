import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DUPLICATE_TEST_WINDOW_MS, DuplicateTestGuard } from './duplicate-test-guard.js';

describe('DuplicateTestGuard', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers repeats with the running or recent test for 2 s after it succeeded, then sends again', async () => {
    expect(DUPLICATE_TEST_WINDOW_MS).toBe(2_000);
    const guard = new DuplicateTestGuard();
    const send = vi.fn(async () => undefined);
    const first = guard.run('telegram:42', send);
    expect(guard.run('telegram:42', send)).toBe(first);
    await first;
    await vi.advanceTimersByTimeAsync(DUPLICATE_TEST_WINDOW_MS - 1);
    expect(guard.run('telegram:42', send)).toBe(first);
    expect(send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await guard.run('telegram:42', send);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('keeps tests of other chats apart, and forgets a failure at once', async () => {
    const guard = new DuplicateTestGuard();
    const send = vi.fn(async () => undefined);
    await guard.run('telegram:1', send);
    await guard.run('telegram:2', send);
    expect(send).toHaveBeenCalledTimes(2);

    const failing = vi.fn(async () => {
      throw new Error('chat not found');
    });
    await expect(guard.run('discord:7', failing)).rejects.toThrow('chat not found');
    await expect(guard.run('discord:7', failing)).rejects.toThrow('chat not found');
    expect(failing).toHaveBeenCalledTimes(2);
  });

  it('takes a shorter window', async () => {
    const guard = new DuplicateTestGuard(200);
    const send = vi.fn(async () => undefined);
    await guard.run('telegram:42', send);
    await vi.advanceTimersByTimeAsync(199);
    await guard.run('telegram:42', send);
    expect(send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await guard.run('telegram:42', send);
    expect(send).toHaveBeenCalledTimes(2);
  });
});
