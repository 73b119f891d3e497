import { describe, expect, it } from 'vitest';
import { WEBHOOK_MESSAGES, webhookEndpointInputSchema } from './webhooks.js';

describe('webhookEndpointInputSchema', () => {
  it('trims and accepts an endpoint', () => {
    expect(
      webhookEndpointInputSchema.parse({
        name: ' Ops ',
        url: ' https://hooks.example.com/p ',
        preset: 'slack',
      }),
    ).toEqual({ name: 'Ops', url: 'https://hooks.example.com/p', preset: 'slack' });
  });

  it.each([
    [{ name: '', url: 'https://a.example', preset: 'generic' }, WEBHOOK_MESSAGES.nameRequired],
    [{ name: 'a', url: ' ', preset: 'generic' }, WEBHOOK_MESSAGES.urlRequired],
    [
      { name: 'a', url: `https://a.example/${'a'.repeat(2000)}`, preset: 'generic' },
      WEBHOOK_MESSAGES.urlTooLong,
    ],
    [{ name: 'a', url: 'https://a.example', preset: 'teams' }, WEBHOOK_MESSAGES.presetInvalid],
  ])('refuses %o with its message', (input, message) => {
    const result = webhookEndpointInputSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(message);
  });
});
