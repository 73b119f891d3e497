import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver of the journeys, on 127.0.0.1: it records every request and answers 200.
 *
 * It checks signatures the way docs/webhooks.md tells a receiver to, written here from that
 * description rather than taken from the server: the HMAC-SHA256 of `<X-Perch-Timestamp>.<raw
 * body>` keyed with the whole secret, in hex after `v1=`, and a timestamp within 5 minutes. The
 * secret is the one the Settings page shows once, so it is learned after the receiver started:
 * requests are checked when read (`signedWith`).
 */

/** How far a request's timestamp may be from the receiver's clock (docs/webhooks.md). */
const TOLERANCE_SECONDS = 300;

export interface ReceivedWebhook {
  method: string;
  path: string;
  /** X-Perch-Timestamp, or '' when missing. */
  timestamp: string;
  /** X-Perch-Signature, or '' when missing. */
  signature: string;
  contentType: string;
  /** The body as received, before any parsing (the signature covers these bytes). */
  body: string;
  /** Epoch ms when it arrived. */
  at: number;
}

export interface WebhookReceiver {
  /** The address to give Perch, e.g. http://127.0.0.1:41234/perch-hook */
  url: string;
  requests: ReceivedWebhook[];
  close(): Promise<void>;
}

/** Whether `request` carries a valid v1 signature of its body made with `secret`. */
export function signedWith(request: ReceivedWebhook, secret: string): boolean {
  if (!/^\d{1,12}$/.test(request.timestamp)) return false;
  const arrivedSeconds = Math.floor(request.at / 1000);
  if (Math.abs(arrivedSeconds - Number(request.timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret)
    .update(`${request.timestamp}.${request.body}`)
    .digest();
  return request.signature
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const given = Buffer.from(part.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** The `type` of a request's JSON body ('post', 'alert', 'test'), or null when it is not JSON. */
export function payloadType(request: ReceivedWebhook): string | null {
  try {
    const parsed = JSON.parse(request.body) as { type?: unknown };
    return typeof parsed.type === 'string' ? parsed.type : null;
  } catch {
    return null;
  }
}

const header = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value[0] : value) ?? '';

/** Starts a receiver on a free loopback port, answering `path`. */
export async function startWebhookReceiver(path = '/perch-hook'): Promise<WebhookReceiver> {
  const requests: ReceivedWebhook[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        timestamp: header(req.headers['x-perch-timestamp']),
        signature: header(req.headers['x-perch-signature']),
        contentType: header(req.headers['content-type']),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
