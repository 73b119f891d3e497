/**
 * Whether a webhook endpoint URL may be saved:
 *
 * - https:// only; plain http:// only to this machine (localhost, 127.0.0.0/8, [::1]) and only
 *   with WEBHOOK_ALLOW_LOOPBACK, so a test receiver needs no certificate;
 * - no user name or password in it (the request is signed; credentials in a URL leak to logs);
 * - at most 2,000 characters;
 * - a host written as an IP address must be one the address policy allows. A host name is not
 *   resolved here: what it resolves to is checked at every connect (webhook-sender.ts).
 *
 * Messages are the shared WEBHOOK_MESSAGES, so the API and the web form say the same.
 */
import net from 'node:net';
import { WEBHOOK_MESSAGES, WEBHOOK_URL_MAX_LENGTH } from '@perch/shared';
import { addressKind, addressRefusal, type AddressPolicy } from './address-policy.js';

export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/** The host of a URL without IPv6 brackets ('[::1]' is '::1'). */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** 'localhost' or a loopback IP address, as written in a URL. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || addressKind(name) === 'loopback';
}

const fail = (message: string): WebhookUrlCheck => ({ ok: false, message });

/** Checks an endpoint URL for saving; `ok` with the parsed URL, or a message to show. */
export function checkWebhookUrl(raw: string, policy: AddressPolicy): WebhookUrlCheck {
  const text = raw.trim();
  if (text === '') return fail(WEBHOOK_MESSAGES.urlRequired);
  if (text.length > WEBHOOK_URL_MAX_LENGTH) return fail(WEBHOOK_MESSAGES.urlTooLong);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(WEBHOOK_MESSAGES.urlInvalid);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return fail(WEBHOOK_MESSAGES.httpsRequired);
  }
  if (url.hostname === '') return fail(WEBHOOK_MESSAGES.urlInvalid);
  if (url.username !== '' || url.password !== '') return fail(WEBHOOK_MESSAGES.credentialsInUrl);
  const host = urlHost(url);
  if (url.protocol === 'http:' && !(policy.allowLoopback && isLoopbackHost(host))) {
    return fail(
      isLoopbackHost(host) ? WEBHOOK_MESSAGES.httpLoopbackOnly : WEBHOOK_MESSAGES.httpsRequired,
    );
  }
  if (isLoopbackHost(host) && !policy.allowLoopback)
    return fail(WEBHOOK_MESSAGES.addressNotAllowed);
  // The URL parser has already turned the odd IPv4 spellings (0x7f.1, 2130706433) into dotted form.
  if (net.isIP(host) !== 0 && addressRefusal(host, policy) !== null) {
    return fail(WEBHOOK_MESSAGES.addressNotAllowed);
  }
  return { ok: true, url };
}
