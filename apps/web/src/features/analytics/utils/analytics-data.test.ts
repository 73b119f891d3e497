import { describe, expect, it } from 'vitest';
import { makeCompleteAnalytics, makeEmptyAnalytics } from '../test/analytics-fixtures';
import {
  hasCompleteAnalyticsData,
  hasNoPosts,
  isForHandle,
  isStillCollecting,
  neighbourHandles,
} from './analytics-data';

const collecting = {
  analytics_status: 'collecting',
  backfillProgress: {
    progress: 20,
    status: 'in_progress',
    totalTweets: 0,
    message: '',
    estimatedCompletion: null,
    hasData: false,
    lastUpdated: '2025-03-10T12:00:00.000Z',
    isComplete: false,
  },
} as const;

describe('analytics data rules', () => {
  it('compares handles case-insensitively', () => {
    const data = makeCompleteAnalytics('NASA');
    expect(isForHandle(data, 'nasa')).toBe(true);
    expect(isForHandle(data, 'spacex')).toBe(false);
  });

  it('polls only while the server still collects', () => {
    expect(isStillCollecting(undefined)).toBe(false);
    expect(isStillCollecting(makeCompleteAnalytics())).toBe(false);
    expect(isStillCollecting(makeCompleteAnalytics('nasa', collecting))).toBe(true);
  });

  it('counts data as complete when ready, or when posts, top tweets, a series or a rate exist', () => {
    expect(hasCompleteAnalyticsData(undefined)).toBe(false);
    expect(hasCompleteAnalyticsData(makeCompleteAnalytics())).toBe(true);
    const nothingYet = makeCompleteAnalytics('nasa', {
      ...collecting,
      summary: { ...makeEmptyAnalytics().summary, followers: 10 },
      topTweets: { tweets: [] },
      timeSeries: { series: [] },
    });
    expect(hasCompleteAnalyticsData(nothingYet)).toBe(false);
    expect(hasCompleteAnalyticsData({ ...nothingYet, analytics_status: 'data_ready' })).toBe(true);
    expect(
      hasCompleteAnalyticsData({
        ...nothingYet,
        backfillProgress: { ...nothingYet.backfillProgress, status: 'complete' },
      }),
    ).toBe(true);
    expect(
      hasCompleteAnalyticsData({
        ...nothingYet,
        summary: { ...nothingYet.summary, total_tweets: 3 },
      }),
    ).toBe(true);
    expect(
      hasCompleteAnalyticsData({
        ...nothingYet,
        topTweets: makeCompleteAnalytics().topTweets,
      }),
    ).toBe(true);
    expect(
      hasCompleteAnalyticsData({ ...nothingYet, timeSeries: makeCompleteAnalytics().timeSeries }),
    ).toBe(true);
    expect(
      hasCompleteAnalyticsData({
        ...nothingYet,
        summary: { ...nothingYet.summary, engagement_rate: 0.5 },
      }),
    ).toBe(true);
  });

  it('tells a window without posts', () => {
    expect(hasNoPosts(makeEmptyAnalytics())).toBe(true);
    expect(hasNoPosts(makeCompleteAnalytics())).toBe(false);
  });

  it('finds the handles before and after the selected one, without wrapping', () => {
    const handles = ['nasa', 'SpaceX', 'github'];
    expect(neighbourHandles(handles, 'spacex')).toEqual(['nasa', 'github']);
    expect(neighbourHandles(handles, 'nasa')).toEqual(['SpaceX']);
    expect(neighbourHandles(handles, 'github')).toEqual(['SpaceX']);
    expect(neighbourHandles(['nasa'], 'nasa')).toEqual([]);
    expect(neighbourHandles(handles, 'unknown')).toEqual([]);
  });
});
