import { describe, expect, it } from 'vitest';
import { HANDLES_POLL_COLLECTING_MS, HANDLES_POLL_IDLE_MS } from '@/lib/polling/intervals';
import { preferencesStore } from '@/lib/preferences';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { makeHandle } from '../test/handle-fixtures';
import { IDLE_PROGRESS, getBackfillProgress } from './get-backfill-progress';
import { handlesPollInterval } from './get-handles';
import { removeHandle } from './remove-handle';

describe('handles API', () => {
  it('polls the list every 3 s while a handle collects, else at the refresh preference (30 s)', () => {
    const ready = makeHandle({ handle: 'nasa' });
    const collecting = makeHandle({
      handle: 'spacex',
      backfill_status: 'in_progress',
      backfill_completed_at: null,
    });
    expect(handlesPollInterval(undefined)).toBe(HANDLES_POLL_IDLE_MS);
    expect(handlesPollInterval([ready])).toBe(30_000);
    expect(handlesPollInterval([ready, collecting])).toBe(HANDLES_POLL_COLLECTING_MS);
    expect(HANDLES_POLL_COLLECTING_MS).toBe(3_000);
    preferencesStore.update({ refreshInterval: 60_000 });
    try {
      expect(handlesPollInterval([ready])).toBe(60_000);
      expect(handlesPollInterval([ready, collecting])).toBe(3_000);
    } finally {
      preferencesStore.reset();
    }
  });

  it('reads a 404 on backfill progress as idle, 0 %, no data', async () => {
    stubFetch({
      'GET /api/v1/handles/nasa/backfill-progress': () => fail(404, 'Not found', 'NOT_FOUND'),
    });
    await expect(getBackfillProgress('nasa')).resolves.toEqual(IDLE_PROGRESS);
    expect(IDLE_PROGRESS).toMatchObject({ status: 'idle', progress: 0, hasData: false });
  });

  it('passes other progress failures on', async () => {
    stubFetch({
      'GET /api/v1/handles/nasa/backfill-progress': () => fail(500, 'Boom', 'INTERNAL'),
    });
    await expect(getBackfillProgress('nasa')).rejects.toThrow('Boom');
  });

  it('never sends a temporary id to the server', async () => {
    const fetchMock = stubFetch({ 'DELETE /api/v1/handles/5': () => ok({ removed: true }) });
    await expect(removeHandle(-3)).rejects.toThrow(
      'Invalid handle IDs detected (-3). Please report this issue.',
    );
    expect(fetchMock).not.toHaveBeenCalled();
    document.cookie = 'perch_csrf=csrf; path=/';
    await removeHandle(5);
    expect(requestsTo(fetchMock, 'DELETE /api/v1/handles/5')).toHaveLength(1);
  });
});
