import { describe, expect, it } from 'vitest';
import {
  forwardingBlocker,
  webhookForwardingBlocker,
  type ForwardingSettings,
} from './forwarding.js';

function settings(overrides: Partial<ForwardingSettings> = {}): ForwardingSettings {
  return {
    twitterConnected: true,
    telegramConnected: true,
    discordConnected: true,
    botRunning: true,
    telegram: { available: true, stoppedReason: null },
    discord: { available: true, stoppedReason: null },
    ...overrides,
  };
}

describe('forwardingBlocker', () => {
  it('is null when notifications can arrive', () => {
    expect(forwardingBlocker(settings(), 'telegram')).toBeNull();
    expect(forwardingBlocker(settings(), 'discord')).toBeNull();
  });

  it('asks for the X account when only that is missing', () => {
    expect(forwardingBlocker(settings({ twitterConnected: false }), 'telegram')).toBe(
      'Connect your X account in Settings to receive notifications',
    );
  });

  it('names the missing channel before the X account', () => {
    const missing = settings({ twitterConnected: false, discordConnected: false });
    expect(forwardingBlocker(missing, 'discord')).toBe(
      'Connect Discord in Settings to receive notifications',
    );
    expect(forwardingBlocker(missing, 'telegram')).toBe(
      'Connect your X account in Settings to receive notifications',
    );
  });

  it('says when the server has no bot for the channel', () => {
    const none = settings({ telegram: { available: false, stoppedReason: null } });
    expect(forwardingBlocker(none, 'telegram')).toBe(
      'Telegram is not set up on this server: ask the operator to set TELEGRAM_BOT_TOKEN',
    );
    expect(forwardingBlocker(none, 'discord')).toBeNull();
  });

  it('gives the reason delivery stopped, then a forwarder that is off', () => {
    const blocked = settings({
      telegram: { available: true, stoppedReason: 'The bot was blocked in Telegram.' },
    });
    expect(forwardingBlocker(blocked, 'telegram')).toBe(
      'Telegram delivery stopped: The bot was blocked in Telegram.',
    );
    expect(forwardingBlocker(settings({ botRunning: false }), 'discord')).toBe(
      'Forwarding is off: start it in Settings to receive notifications',
    );
  });
});

describe('webhookForwardingBlocker', () => {
  it('needs the X account and the forwarder, not Telegram or Discord', () => {
    expect(
      webhookForwardingBlocker(settings({ telegramConnected: false, discordConnected: false })),
    ).toBeNull();
    expect(webhookForwardingBlocker(settings({ twitterConnected: false }))).toBe(
      'Connect your X account in Settings to receive notifications',
    );
    expect(webhookForwardingBlocker(settings({ botRunning: false }))).toBe(
      'Forwarding is off: start it in Settings to receive notifications',
    );
  });
});
