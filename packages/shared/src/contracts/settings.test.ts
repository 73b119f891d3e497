import { describe, expect, it } from 'vitest';
import {
  SETTINGS_MESSAGES,
  discordTestRequestSchema,
  discordUserIdSchema,
  saveSettingsRequestSchema,
  telegramChatIdSchema,
  telegramUsernameSchema,
} from './settings.js';

const firstIssue = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues[0]?.message;

describe('settings field rules', () => {
  it('normalises a Telegram chat id and says what is wrong with a bad one', () => {
    expect(telegramChatIdSchema.parse(' @@123456 ')).toBe('123456');
    expect(telegramChatIdSchema.parse('-1001234567890')).toBe('-1001234567890');
    expect(firstIssue(telegramChatIdSchema.safeParse(''))).toBe(
      SETTINGS_MESSAGES.telegramChatIdRequired,
    );
    expect(firstIssue(telegramChatIdSchema.safeParse(' @ '))).toBe(
      SETTINGS_MESSAGES.telegramChatIdRequired,
    );
    expect(firstIssue(telegramChatIdSchema.safeParse('@john'))).toBe(
      'Please use your numeric Chat ID, not your username.',
    );
    expect(firstIssue(telegramChatIdSchema.safeParse('12é4'))).toBe(
      SETTINGS_MESSAGES.telegramChatIdNumeric,
    );
    expect(firstIssue(telegramChatIdSchema.safeParse('12 34'))).toBe(
      SETTINGS_MESSAGES.telegramChatIdRequired,
    );
  });

  it('checks Discord user ids', () => {
    expect(discordUserIdSchema.parse(' 82198898841029460 ')).toBe('82198898841029460');
    expect(firstIssue(discordUserIdSchema.safeParse(''))).toBe('Please enter your Discord User ID');
    expect(firstIssue(discordUserIdSchema.safeParse('12345'))).toBe(
      SETTINGS_MESSAGES.discordUserIdInvalid,
    );
    expect(firstIssue(discordTestRequestSchema.safeParse({}))).toBe(
      'Please enter your Discord User ID to test',
    );
  });

  it("reads '' and null as disconnect, and 'placeholder_username' as no Twitter", () => {
    expect(
      saveSettingsRequestSchema.parse({
        telegram_chat_id: '',
        discord_user_id: null,
        twitter_username: 'placeholder_username',
      }),
    ).toEqual({ telegram_chat_id: null, discord_user_id: null, twitter_username: null });
    expect(saveSettingsRequestSchema.parse({ twitter_username: '@Jack' })).toEqual({
      twitter_username: 'Jack',
    });
    expect(firstIssue(saveSettingsRequestSchema.safeParse({}))).toBe(
      SETTINGS_MESSAGES.nothingToSave,
    );
  });

  it('strips the @ of a Telegram username', () => {
    expect(telegramUsernameSchema.parse('@ann_smith')).toBe('ann_smith');
    expect(telegramUsernameSchema.safeParse('ann').success).toBe(false);
  });
});
