import {
  COMPONENT_STATUS_CACHE_MS,
  SETTINGS_MESSAGES,
  X_CONNECT_ERROR_MESSAGES,
} from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { COMPONENT_STATUS_KEY, loadComponentStatus, saveComponentStatus } from './component-status';
import {
  botStartErrorText,
  discordTestErrorText,
  refusalOr,
  telegramTestErrorText,
  xConnectResult,
} from './settings-messages';

const apiError = (status: number, message?: string, details?: string) =>
  new ApiError(
    status,
    message ?? `Request failed with status ${status}`,
    `HTTP_${status}`,
    details,
    message,
  );

describe('settings messages', () => {
  it('maps Telegram test failures to the spec texts', () => {
    expect(telegramTestErrorText(apiError(400, 'Bad Request: chat not found'))).toBe(
      SETTINGS_MESSAGES.telegramTestChatNotFound,
    );
    expect(telegramTestErrorText(apiError(400))).toBe(SETTINGS_MESSAGES.telegramTestChatNotFound);
    expect(telegramTestErrorText(apiError(403, 'Forbidden: bot was blocked by the user'))).toBe(
      SETTINGS_MESSAGES.telegramTestBlocked,
    );
    expect(telegramTestErrorText(apiError(502, 'Bad Gateway'))).toBe(
      'Error testing Telegram connection: Bad Gateway',
    );
    // The server's own spec texts pass through.
    expect(telegramTestErrorText(apiError(409, SETTINGS_MESSAGES.telegramUnavailable))).toBe(
      SETTINGS_MESSAGES.telegramUnavailable,
    );
  });

  it("keeps Discord's details next to the spec text", () => {
    expect(
      discordTestErrorText(apiError(400, SETTINGS_MESSAGES.discordTestFailed, 'Unknown User')),
    ).toEqual({
      text: SETTINGS_MESSAGES.discordTestFailed,
      details: 'Unknown User',
    });
    expect(discordTestErrorText(new Error('boom'))).toEqual({
      text: SETTINGS_MESSAGES.discordTestFailed,
    });
  });

  it('uses the server words for a refusal, else the fallback', () => {
    expect(refusalOr(apiError(400, 'Nope'), 'Fallback')).toBe('Nope');
    expect(refusalOr(apiError(500, 'Internal'), 'Fallback')).toBe('Fallback');
    expect(refusalOr(new Error('x'), 'Fallback')).toBe('Fallback');
  });

  it('names a failed bot start', () => {
    expect(botStartErrorText(apiError(405))).toBe(SETTINGS_MESSAGES.botApiConfiguration);
    expect(botStartErrorText(new ApiError(0, 'x', 'NETWORK_ERROR'))).toBe(
      SETTINGS_MESSAGES.botNetworkError,
    );
    expect(botStartErrorText(new ApiError(200, 'x', 'INVALID_RESPONSE'))).toBe(
      SETTINGS_MESSAGES.botInvalidResponse,
    );
    expect(botStartErrorText(apiError(400, 'Not yet'))).toBe('Failed to start bot: Not yet');
  });

  it('reads the way back from X', () => {
    expect(xConnectResult(new URLSearchParams(''))).toBeNull();
    expect(xConnectResult(new URLSearchParams('twitter=connected'))).toEqual({
      kind: 'success',
      text: SETTINGS_MESSAGES.twitterSaved,
    });
    expect(xConnectResult(new URLSearchParams('twitter=error&reason=x_unavailable'))).toEqual({
      kind: 'error',
      text: X_CONNECT_ERROR_MESSAGES.x_unavailable,
    });
  });

  it('remembers the component status for an hour', () => {
    const status = {
      apiConnected: true,
      twitterConnected: true,
      telegramConnected: true,
      discordConnected: false,
      botRunning: true,
    };
    saveComponentStatus(status, 1_000);
    expect(loadComponentStatus(1_000 + COMPONENT_STATUS_CACHE_MS)?.status).toEqual(status);
    expect(loadComponentStatus(1_001 + COMPONENT_STATUS_CACHE_MS)).toBeNull();
    localStorage.setItem(COMPONENT_STATUS_KEY, '{"savedAt":1,"status":{"botRunning":"yes"}}');
    expect(loadComponentStatus(2)).toBeNull();
  });
});
