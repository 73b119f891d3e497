import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  RETRY_TEXTS,
  analyticsSectionFailedText,
  handlesLoadFailedText,
  switchHandleFailedText,
} from './retry-texts';

describe('retry texts', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('numbers the handle-list attempts out of 5', () => {
    expect(handlesLoadFailedText(1)).toBe('Failed to load handles (attempt 1/5)');
    expect(handlesLoadFailedText(5)).toBe('Failed to load handles (attempt 5/5)');
    expect(handlesLoadFailedText(2, 3)).toBe('Failed to load handles (attempt 2/3)');
  });

  it('names the handle and the analytics section', () => {
    expect(switchHandleFailedText('jack')).toBe('Failed to switch to @jack');
    expect(switchHandleFailedText('@jack')).toBe('Failed to switch to @jack');
    expect(analyticsSectionFailedText('profile')).toBe('Failed to fetch profile analytics');
    expect(analyticsSectionFailedText('posts')).toBe('Failed to fetch posts analytics');
    expect(analyticsSectionFailedText('engagement')).toBe('Failed to fetch engagement analytics');
    expect(analyticsSectionFailedText('trends')).toBe('Failed to fetch trends analytics');
  });

  it('keeps the fixed texts of the error catalogue word for word', () => {
    expect(RETRY_TEXTS).toEqual({
      systemNotReady: 'System not ready, please try again',
      analyticsStoreInitFailed: 'Failed to initialize analytics store',
      analyticsLoadFailed: 'Failed to load analytics data',
      analyticsFetchFailed: 'Failed to fetch analytics data',
      analyticsRefreshFailed: 'Failed to refresh analytics data',
      refreshFailed: 'Failed to refresh data',
      noDataYet: 'No data available yet for this handle',
      dataMismatch: 'Data mismatch detected, please refresh',
      collectionStuck: 'Collection stuck at 0% - marked as failed',
    });
  });
});
