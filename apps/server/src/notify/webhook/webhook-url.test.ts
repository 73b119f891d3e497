import { WEBHOOK_MESSAGES } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { PUBLIC_ONLY } from './address-policy.js';
import { checkWebhookUrl } from './webhook-url.js';

const loopbackAllowed = { allowLoopback: true, allowPrivate: false };
const privateAllowed = { allowLoopback: false, allowPrivate: true };
const M = WEBHOOK_MESSAGES;

describe('checkWebhookUrl', () => {
  it.each([
    ['https://hooks.example.com/perch', PUBLIC_ONLY, null],
    ['  https://hooks.example.com/perch?x=1  ', PUBLIC_ONLY, null],
    ['https://hooks.slack.com/services/T0/B0/XX', PUBLIC_ONLY, null],
    ['https://93.184.216.34:8443/hook', PUBLIC_ONLY, null],
    ['https://[2606:4700::1111]/hook', PUBLIC_ONLY, null],
    ['', PUBLIC_ONLY, M.urlRequired],
    ['   ', PUBLIC_ONLY, M.urlRequired],
    ['not a url', PUBLIC_ONLY, M.urlInvalid],
    ['hooks.example.com/perch', PUBLIC_ONLY, M.urlInvalid],
    ['ftp://hooks.example.com/', PUBLIC_ONLY, M.httpsRequired],
    ['javascript:alert(1)', PUBLIC_ONLY, M.httpsRequired],
    ['file:///etc/passwd', PUBLIC_ONLY, M.httpsRequired],
    ['http://hooks.example.com/', PUBLIC_ONLY, M.httpsRequired],
    ['http://hooks.example.com/', loopbackAllowed, M.httpsRequired],
    ['https://user:pass@hooks.example.com/', PUBLIC_ONLY, M.credentialsInUrl],
    ['https://user@hooks.example.com/', PUBLIC_ONLY, M.credentialsInUrl],
    // Plain http only to loopback, only with the switch on.
    ['http://127.0.0.1:8080/hook', PUBLIC_ONLY, M.httpLoopbackOnly],
    ['http://localhost:8080/hook', PUBLIC_ONLY, M.httpLoopbackOnly],
    ['http://127.0.0.1:8080/hook', loopbackAllowed, null],
    ['http://127.8.9.10/hook', loopbackAllowed, null],
    ['http://localhost:8080/hook', loopbackAllowed, null],
    ['http://LOCALHOST./hook', loopbackAllowed, null],
    ['http://[::1]:8080/hook', loopbackAllowed, null],
    ['http://10.0.0.1/hook', loopbackAllowed, M.httpsRequired],
    // Loopback and other local addresses over https are refused by the address policy.
    ['https://127.0.0.1/hook', PUBLIC_ONLY, M.addressNotAllowed],
    ['https://localhost/hook', PUBLIC_ONLY, M.addressNotAllowed],
    ['https://[::1]/hook', PUBLIC_ONLY, M.addressNotAllowed],
    ['https://[::ffff:127.0.0.1]/hook', PUBLIC_ONLY, M.addressNotAllowed],
    ['https://0x7f.1/hook', PUBLIC_ONLY, M.addressNotAllowed],
    ['https://2130706433/hook', PUBLIC_ONLY, M.addressNotAllowed],
    ['https://10.1.2.3/hook', PUBLIC_ONLY, M.addressNotAllowed],
    ['https://10.1.2.3/hook', privateAllowed, null],
    ['https://169.254.169.254/latest/meta-data', privateAllowed, M.addressNotAllowed],
    ['https://[fe80::1]/hook', PUBLIC_ONLY, M.addressNotAllowed],
    ['https://0.0.0.0/hook', PUBLIC_ONLY, M.addressNotAllowed],
  ])('%s with %o: %s', (raw, policy, message) => {
    const check = checkWebhookUrl(raw, policy);
    expect(check.ok ? null : check.message).toBe(message);
  });

  it('accepts 2,000 characters and refuses one more', () => {
    const base = 'https://hooks.example.com/';
    const fits = base + 'a'.repeat(2000 - base.length);
    expect(checkWebhookUrl(fits, PUBLIC_ONLY).ok).toBe(true);
    expect(checkWebhookUrl(`${fits}a`, PUBLIC_ONLY)).toEqual({ ok: false, message: M.urlTooLong });
  });

  it('returns the parsed URL', () => {
    const check = checkWebhookUrl('https://Hooks.Example.com/a b', PUBLIC_ONLY);
    expect(check.ok && check.url.href).toBe('https://hooks.example.com/a%20b');
  });
});
